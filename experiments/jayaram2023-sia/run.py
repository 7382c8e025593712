#!/usr/bin/python3
"""Sia (SOSP'23) headline comparison on the artifact's Philly workloads: average JCT of Sia, Pollux and Gavel.

Columns: the authors' simulator run here under the cvxpy shim (tests/data/sia: sia and gavel; Pollux from
authors-pollux.csv where runs exist, seeded), --compat sia (the same simulator reproduced), and our engine
(`sia` and `gavel-throughput-perf` with measured:sia as the job model's oracle; Pollux's engine policy takes one GPU
type only). Run times: the authors' CPU seconds (authors-runtime.csv, measured here) against ours (summary.json wall_s).
Usage: run.py [--skip-pollux] [--workers N]
"""
import argparse
import concurrent.futures as cf
import csv
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SHARED = os.path.abspath(os.path.join(ROOT, "..", "shared"))
BIN = os.path.join(ROOT, "build", "ringmaster")
OUT = os.path.join("/tmp", "ringmaster-jayaram2023-sia")
WORKLOADS = [f"philly/workload-{w}" for w in range(1, 9)]

ap = argparse.ArgumentParser()
ap.add_argument("--skip-pollux", action="store_true")
ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
args = ap.parse_args()


def run(kind, policy, w):
    out = os.path.join(OUT, f"{kind}-{policy}-{w.replace('/', '-')}")
    cmd = [BIN, "simulate", "-q", "--cluster", "sia-64", "--trace", f"{SHARED}/traces/sia/workloads/{w}.csv",
           "--format", "pollux", "--policy", policy, "--data-dir", f"{SHARED}/traces", "--out", out]
    cmd += ["--compat", "sia"] if kind == "compat" else ["--perf-model", "measured:sia"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    return kind, policy, w, s["avg_jct_s"], s.get("wall_s", 0.0)


def golden_means(path):
    by = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            by.setdefault(r["workload"], []).append(float(r["jct_s"]))
    return {w: sum(v) / len(v) for w, v in by.items()}


runs = [("compat", p, w) for p in ("sia", "gavel") + (() if args.skip_pollux else ("pollux",)) for w in WORKLOADS]
runs += [("engine", p, w) for p in ("sia", "gavel-throughput-perf", "fifo") for w in WORKLOADS]
os.makedirs(OUT, exist_ok=True)
res = {}
with cf.ThreadPoolExecutor(args.workers) as ex:
    for kind, policy, w, jct, wall in ex.map(lambda r: run(*r), runs):
        res[(kind, policy, w)] = (jct, wall)

authors = {"sia": golden_means(os.path.join(ROOT, "tests/data/sia/philly-sia.csv")),
           "gavel": golden_means(os.path.join(ROOT, "tests/data/sia/philly-gavel.csv"))}
pollux_path = os.path.join(HERE, "authors-pollux.csv")
authors["pollux"] = golden_means(pollux_path) if os.path.exists(pollux_path) else {}
cpu = {}
with open(os.path.join(HERE, "authors-runtime.csv")) as f:
    for r in csv.DictReader(f):
        cpu.setdefault(r["policy"], {})[r["workload"]] = float(r["cpu_s"])


def mean_h(vals):
    return f"{statistics.mean(vals) / 3600:.3f}" if vals else "-"


lines = ["# Sia (Jayaram Subramanya et al., SOSP'23): average JCT on the Philly workloads", "",
         "Made by `experiments/jayaram2023-sia/run.sh` (this file is rewritten by it). Cluster: the artifact's default,",
         "`sia-64` = 6 x 4 T4 (`aws`), 2 x 8 A100 (`dgx-ext`), 3 x 8 RTX 2080 Ti (`rtx`). Workloads: the artifact's",
         "`workloads/philly/workload-{1..8}.csv` (160 jobs each, 8 h of arrivals). Mean over the 8 workloads of the",
         "average JCT, hours.", "",
         "| policy | paper (claim) | authors' simulator (shim) | --compat sia | ours, engine |",
         "|---|---|---|---|---|"]
paper = {"sia": "-", "pollux": "Sia 30-93 % lower avg JCT than Pollux, Gavel (abstract; 3 traces)", "gavel": "(same)"}
engine_of = {"sia": "sia", "gavel": "gavel-throughput-perf", "pollux": None}
for p in ("sia", "pollux", "gavel"):
    a = [authors[p][w] for w in WORKLOADS if w in authors[p]]
    a_txt = mean_h(a) + (f" ({len(a)} of 8 workloads)" if 0 < len(a) < 8 else "")
    c = [res[("compat", p, w)][0] for w in WORKLOADS if ("compat", p, w) in res]
    e = [res[("engine", engine_of[p], w)][0] for w in WORKLOADS] if engine_of[p] else []
    lines.append(f"| {p} | {paper[p]} | {a_txt} | {mean_h(c)} | "
                 f"{mean_h(e) + ' (' + engine_of[p] + ')' if e else 'one GPU type only (pollux)'} |")
fifo = [res[("engine", "fifo", w)][0] for w in WORKLOADS]
lines.append(f"| fifo (reference) | - | - | - | {mean_h(fifo)} |")
lines += ["", "Per workload (average JCT, seconds):", "",
          "| workload | authors sia | compat sia | authors gavel | compat gavel | compat pollux | engine sia | engine gavel-throughput-perf |",
          "|---|---|---|---|---|---|---|---|"]
for w in WORKLOADS:
    def g(key):
        return f"{res[key][0]:.1f}" if key in res else "-"
    lines.append(f"| {w} | {authors['sia'].get(w, float('nan')):.1f} | {g(('compat', 'sia', w))} | "
                 f"{authors['gavel'].get(w, float('nan')):.1f} | {g(('compat', 'gavel', w))} | {g(('compat', 'pollux', w))} | "
                 f"{g(('engine', 'sia', w))} | {g(('engine', 'gavel-throughput-perf', w))} |")
lines += ["", "Run time per workload (median; the authors' simulator: CPU seconds of one Python process under the shim,",
          "measured on this machine; ours: summary.json wall_s, one core):", "",
          "| policy | authors' simulator | --compat sia | ratio |", "|---|---|---|---|"]
for p in ("sia", "gavel", "pollux"):
    a = list(cpu.get(p, {}).values())
    c = [res[("compat", p, w)][1] for w in WORKLOADS if ("compat", p, w) in res]
    if not c:
        continue
    ratio = f"{statistics.median(a) / statistics.median(c):.0f}x" if a else "-"
    lines.append(f"| {p} | {statistics.median(a):.1f} s |" if a else f"| {p} | - |")
    lines[-1] += f" {statistics.median(c):.2f} s | {ratio} |"
text = "\n".join(lines) + "\n"
notes = os.path.join(HERE, "NOTES.md")
if os.path.exists(notes):
    text += "\n" + open(notes).read()
with open(os.path.join(HERE, "README.md"), "w") as f:
    f.write(text)
print(text)
