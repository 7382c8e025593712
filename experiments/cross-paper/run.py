#!/usr/bin/python3
"""Cross-paper comparison: every policy family that can run it, on one Philly slice and one cluster.

The first 5,000 jobs (by submit time) of the Philly list on `synergy128` (16 servers x 8 GPUs, 24 CPUs and
500 GB each), at three offered loads. Job-level engine (`--exec rate`: exclusive GPUs, ring all-reduce over
the placement, contention): fifo, srtf, srsf, tiresias (2D-LAS), a-srpt-p and sjf-bco-online, each with
GPU-proportional CPUs/DRAM (`fair`, the GPU-only run) and Synergy-TUNE (`tune`), placed consolidated (the
default); fifo, srtf, srsf and 2d-las also placed first-fit (the default until issue 26), to split each gap
into placement and order. The same job-level rows again under `--perf-model measured:gavel` (Gavel's V100
table for the jobs it measured, on `synergy128-v100.yaml`, the same cluster with its GPU type named). Round
model (`--exec round`: 300-s leases, every job re-allocated each round, no network): the Synergy presets (FIFO
with proportional, TUNE, OPT) and two job-level orders with TUNE (srtf+tune, tiresias+tune).
Prints the tables, writes results.csv, README.md's tables and jct.png next to this file.
Usage: run.py [--bin PATH] [--workers N] [--jobs N]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sweep_grid import summary, sweep_grid, write_readme_table  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
DATA = os.path.abspath(os.path.join(ROOT, "..", "shared", "traces"))
PHILLY = os.path.join(DATA, "philly-jobs", "philly.csv")
ap = argparse.ArgumentParser()
ap.add_argument("--bin", default=os.path.join(ROOT, "build", "ringmaster"))
ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
ap.add_argument("--jobs", type=int, default=5000)
ap.add_argument("--table-only", action="store_true", help="rebuild the table and figure from results.csv")
args = ap.parse_args()
TMP = tempfile.mkdtemp(prefix="rm-cross-")
LOADS = [0.5, 0.7, 0.9]
JOB_LEVEL = ["fifo", "srtf", "srsf", "tiresias", "a-srpt-p", "sjf-bco-online"]
FIRST_FIT = ["fifo+first-fit", "srtf+first-fit", "srsf+first-fit", "2d-las+first-fit"]
# (policy, execution model, performance model)
POLICIES = [(p + "+" + a, "rate", "analytic") for p in JOB_LEVEL for a in ("fair", "tune")]
POLICIES += [(p + "+fair", "rate", "analytic") for p in FIRST_FIT]
POLICIES += [(p, "round", "synergy-profiles") for p in ("synergy-proportional", "synergy-tune", "synergy-opt",
                                                         "srtf+tune", "tiresias+tune")]
POLICIES += [(p + "+fair", "rate", "measured:gavel") for p in JOB_LEVEL[:5] + FIRST_FIT]
BASE = ["--trace", PHILLY, "--format", "philly", "--max-jobs", str(args.jobs), "--data-dir", DATA, "-q"]
CLUSTER = {"analytic": "synergy128", "synergy-profiles": "synergy128",
           "measured:gavel": os.path.join(HERE, "synergy128-v100.yaml")}


def run(policy, exec_model, scale, tag):
    out = os.path.join(TMP, tag)
    subprocess.run([args.bin, "simulate", "--cluster", "synergy128", *BASE, "--exec", exec_model, "--policy", policy, "--arrival-scale",
                    repr(scale), "--out", out], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f), out


if args.table_only:
    with open(os.path.join(HERE, "results.csv")) as f:
        rows = [{k: (v if k in ("policy", "exec", "perf") else float(v)) for k, v in r.items()} for r in csv.DictReader(f)]
else:
    # Offered load of the slice at its own arrival times (summary.json offered_load: GPU-seconds of work, each job
    # alone at its best placement on an idle cluster, over span x GPUs); each run's `--load L` rescales the
    # arrivals to offered load L (issue 41; until then this script computed the factor and passed --arrival-scale).
    calib, cdir = run("fifo", "rate", 1.0, "calib")
    load1 = calib["offered_load"]
    print(f"slice: {args.jobs} jobs, offered load {load1:.2f} at the trace's own arrival times on 128 GPUs")

    # One `ringmaster sweep --grid` (docs/sweep.md), the slowest runs first (sjf-bco-online re-plans at every
    # event), so that the workers finish together.
    tasks = sorted(((p, e, m, load) for load in LOADS for p, e, m in POLICIES),
                   key=lambda t: ("sjf-bco" not in t[0], t[3]))
    base = [a for a in BASE if a != "-q"]
    perf = lambda m: ["--perf-model", m] if m.startswith("measured") else []  # noqa: E731
    dirs = sweep_grid(args.bin, [(f"{p}/{e}/{m}/{load}", ["--cluster", CLUSTER[m]] + base + perf(m) + [
                                  "--exec", e, "--policy", p, "--load", repr(load)])
                                 for p, e, m, load in tasks], TMP, args.workers)
    rows = []
    for (p, e, m, load), d in zip(tasks, dirs):
        s = summary(d)
        rows.append({"load": load, "policy": p, "exec": e, "perf": m, "avg_jct_h": s["avg_jct_s"] / 3600,
                     "p99_jct_h": s["p99_jct_s"] / 3600, "makespan_h": s["makespan_s"] / 3600,
                     "gpu_util": s["gpu_util"], "preemptions": s["preemptions"],
                     "gpu_time_inflation": s.get("gpu_time_inflation", float("nan")),
                     "perf_fallback_jobs": s.get("perf_fallback_jobs", 0)})
    order = {k: i for i, k in enumerate(POLICIES)}
    rows.sort(key=lambda r: (r["load"], order[(r["policy"], r["exec"], r["perf"])]))
    with open(os.path.join(HERE, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in r.items()})

def row(load, p, e, m):
    return next(x for x in rows if x["load"] == load and x["policy"] == p and x["exec"] == e and x["perf"] == m)


lines = ["| policy | model | perf model | " + " | ".join(f"load {l}: avg / p99 JCT (h)" for l in LOADS) +
         " | makespan (h) at 0.9 | util at 0.9 | GPU-hours held at 0.9 | GPU-time inflation at 0.9 |",
         "|---|---|---|" + "---|" * len(LOADS) + "---|---|---|---|"]
for m in ("analytic", "synergy-profiles", "measured:gavel"):  # the best average per load within a perf model
    best = {l: min(r["avg_jct_h"] for r in rows if r["load"] == l and r["perf"] == m) for l in LOADS}
    for p, e, mm in POLICIES:
        if mm != m:
            continue
        cells = []
        for l in LOADS:
            r = row(l, p, e, m)
            c = f"{r['avg_jct_h']:.1f} / {r['p99_jct_h']:.0f}"
            cells.append(f"**{c}**" if r["avg_jct_h"] == best[l] else c)
        r9 = row(LOADS[-1], p, e, m)
        held = r9["gpu_util"] * r9["makespan_h"] * 128 / 1000
        infl = r9["gpu_time_inflation"]
        lines.append(f"| {p} | {e} | {m} | " + " | ".join(cells) + f" | {r9['makespan_h']:.0f} | {r9['gpu_util']:.3f} | "
                     f"{held:.0f}k | {'-' if infl != infl else f'{infl:.2f}'} |")
table = "\n".join(lines)
print(table)

# Each order's gap to the best job-level scheduler (a-srpt-p) at load 0.9, split into placement (first-fit ->
# consolidated, the same order) and order (consolidated -> a-srpt-p), under each job-level perf model.
gap = ["| perf model | order | first-fit (h) | consolidated (h) | a-srpt-p (h) | gap (h) | placement's share | order's share |",
       "|---|---|---|---|---|---|---|---|"]
for m in ("analytic", "measured:gavel"):
    best = row(LOADS[-1], "a-srpt-p+fair", "rate", m)["avg_jct_h"]
    for ff, cons in (("fifo+first-fit", "fifo"), ("srtf+first-fit", "srtf"), ("srsf+first-fit", "srsf"),
                     ("2d-las+first-fit", "tiresias")):
        a = row(LOADS[-1], ff + "+fair", "rate", m)["avg_jct_h"]
        b = row(LOADS[-1], cons + "+fair", "rate", m)["avg_jct_h"]
        g = a - best
        share = (lambda x: f"{100 * x / g:.0f} %") if abs(g) > 1e-9 else (lambda x: "-")
        gap.append(f"| {m} | {cons} | {a:.1f} | {b:.1f} | {best:.1f} | {g:.1f} | {share(a - b)} | {share(b - best)} |")
gap_table = "\n".join(gap)
fallback = row(LOADS[-1], "fifo+fair", "rate", "measured:gavel")["perf_fallback_jobs"]
gap_table += (f"\n\nUnder measured:gavel, {fallback:.0f} of the {args.jobs} jobs have no Gavel table (vgg16, "
              "inception3 and jobs over 8 GPUs) and run under the analytic law (summary.json perf_fallback_jobs).")
print(gap_table)
write_readme_table(HERE, table)
write_readme_table(HERE, gap_table, "gap")

import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

fig, axes = plt.subplots(1, len(LOADS), figsize=(15, 9), sharey=True)
labels = [f"{p} ({e}{', ' + m if m.startswith('measured') else ''})" for p, e, m in POLICIES]
colors = ["#9467bd" if m.startswith("measured") else "#1f77b4" if e == "rate" and p.endswith("+fair") else
          "#2ca02c" if e == "rate" else "#d62728" for p, e, m in POLICIES]
for ax, l in zip(axes, LOADS):
    vals = [row(l, p, e, m)["avg_jct_h"] for p, e, m in POLICIES]
    ax.barh(range(len(vals)), vals, color=colors)
    ax.set_xscale("log")
    ax.set_title(f"offered load {l}")
    ax.set_xlabel("average JCT (hours, log scale)")
    ax.grid(axis="x", alpha=0.3)
axes[0].set_yticks(range(len(labels)))
axes[0].set_yticklabels(labels)
axes[0].invert_yaxis()
from matplotlib.patches import Patch  # noqa: E402
fig.legend(handles=[Patch(color="#1f77b4", label="job-level engine, GPU-proportional CPUs"),
                    Patch(color="#2ca02c", label="job-level engine, Synergy-TUNE"),
                    Patch(color="#d62728", label="round model (300-s leases)"),
                    Patch(color="#9467bd", label="job-level engine, measured:gavel")], loc="lower center", ncol=4)
fig.suptitle(f"Philly, first {args.jobs} jobs, synergy128 (128 GPUs, 24 CPUs and 500 GB per 8-GPU server)")
fig.tight_layout(rect=(0, 0.06, 1, 0.97))
fig.savefig(os.path.join(HERE, "jct.png"), dpi=110)
print("wrote results.csv, README.md table, jct.png")
