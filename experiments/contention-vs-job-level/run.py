#!/usr/bin/python3
"""Contention-aware scheduling (Wang et al. 2020) against job-level policies on a real trace.

The first N jobs (default 3,000) of the Philly list on `synergy128` (16 servers x 8 V100, 40 Gbps), each job
given the default model mix (resnet50, vgg16, inception3, lstm) by ringmaster's workload resolution.

Task model (`--exec task`, event-driven, with the steady-state fast-forward of issue 16): jobs are DAGs of
forward/backward tasks and one all-reduce per iteration; GPUs are shared by memory; flows on a NIC slow each
other down (contention). Policies: ada-srsf (SSF queue, LWF-2, SRSF keys, AdaDUAL), srsf1 (never share a NIC),
srsf2 (always accept two-way sharing).
Job-level model (`--exec rate`): exclusive GPUs, one rate per job from its placement's ring all-reduce,
contention from the placements sharing a NIC. Policies: fifo, srsf (preemptive, backfill), tiresias
(2D-LAS, consolidated).

Prints the table, writes results.csv and README.md's table next to this file.
Usage: run.py [--bin PATH] [--jobs N] [--workers N] [--table-only]
"""
import argparse
import concurrent.futures
import csv
import json
import os
import subprocess
import tempfile
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, ".."))
from sweep_grid import write_readme_table  # noqa: E402
PHILLY = os.path.abspath(os.path.join(ROOT, "..", "shared", "traces", "philly-jobs", "philly.csv"))
ap = argparse.ArgumentParser()
ap.add_argument("--bin", default=os.path.join(ROOT, "build", "ringmaster"))
ap.add_argument("--jobs", type=int, default=3000)
ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
ap.add_argument("--table-only", action="store_true", help="rebuild README.md's table from results.csv")
args = ap.parse_args()

RUNS = [("task", "ada-srsf"), ("task", "srsf1"), ("task", "srsf2"),
        ("rate", "fifo"), ("rate", "srsf"), ("rate", "tiresias")]
BASE = ["--cluster", "synergy128", "--trace", PHILLY, "--format", "philly", "--max-jobs", str(args.jobs), "-q"]
COLS = ["model", "policy", "avg_jct_h", "p50_jct_h", "p99_jct_h", "makespan_h", "wall_s", "jumps",
        "skipped_iterations"]


def run(model, policy, tmp):
    out = os.path.join(tmp, f"{model}-{policy}".replace("+", "_"))
    t0 = time.monotonic()
    subprocess.run([args.bin, "simulate", *BASE, "--exec", model, "--policy", policy, "--out", out], check=True)
    wall = time.monotonic() - t0
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    t = s.get("timing", {})
    return {"model": model, "policy": policy, "avg_jct_h": s["avg_jct_s"] / 3600, "p50_jct_h": s["p50_jct_s"] / 3600,
            "p99_jct_h": s["p99_jct_s"] / 3600, "makespan_h": s["makespan_s"] / 3600, "wall_s": wall,
            "jumps": int(t.get("fast_forward_jumps", 0)), "skipped_iterations": int(t.get("fast_forward_iterations", 0))}


if args.table_only:
    with open(os.path.join(HERE, "results.csv")) as f:
        rows = list(csv.DictReader(f))
else:
    tmp = tempfile.mkdtemp(prefix="rm-cvj-")
    # The slow task-model runs first, so that the workers finish together.
    with concurrent.futures.ThreadPoolExecutor(args.workers) as pool:
        rows = list(pool.map(lambda r: run(r[0], r[1], tmp), RUNS))
    with open(os.path.join(HERE, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, COLS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in r.items()})

lines = ["| model | policy | avg JCT (h) | p50 JCT (h) | p99 JCT (h) | makespan (h) | wall (s) | jumps | iterations jumped |",
         "|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    f = {k: (float(r[k]) if k not in ("model", "policy") else r[k]) for k in COLS}
    lines.append(f"| {f['model']} | `{f['policy']}` | {f['avg_jct_h']:.2f} | {f['p50_jct_h']:.2f} | {f['p99_jct_h']:.2f} | "
                 f"{f['makespan_h']:.1f} | {f['wall_s']:.1f} | {int(f['jumps']):,} | {int(f['skipped_iterations']):,} |")
table = "\n".join(lines)
print(table)
write_readme_table(HERE, table)
