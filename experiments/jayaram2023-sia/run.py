#!/usr/bin/python3
"""Sia (SOSP'23) headline comparison on the artifact's Philly workloads: average JCT of Sia, Pollux and Gavel.

Columns: the authors' simulator run here under the cvxpy shim (tests/data/sia: sia and gavel; Pollux from
authors-pollux.csv where runs exist, seeded), --compat sia (the same simulator reproduced), and our engine
(`sia` and `gavel-throughput-perf` with measured:sia as the job model's oracle; Pollux's engine policy takes one GPU
type only). Run times: the authors' CPU seconds (authors-runtime.csv, measured here) against ours (summary.json wall_s).
Usage: run.py [--skip-pollux] [--workers N] [--reuse]
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
TRACES = {"philly": [f"philly/workload-{w}" for w in range(1, 9)],  # the artifact's Philly-derived workloads
          "saturn": [f"saturn/workload-{w}" for w in range(1, 11)]}  # Helios-Saturn (its run_experiment.sh default)
WORKLOADS = TRACES["philly"] + TRACES["saturn"]

ap = argparse.ArgumentParser()
ap.add_argument("--skip-pollux", action="store_true")
ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
ap.add_argument("--reuse", action="store_true", help="keep the runs already in the output folder (their summary.json)")
args = ap.parse_args()


def run(kind, policy, w):
    out = os.path.join(OUT, f"{kind}-{policy}-{w.replace('/', '-')}")
    cmd = [BIN, "simulate", "-q", "--cluster", "sia-64", "--trace", f"{SHARED}/traces/sia/workloads/{w}.csv",
           "--format", "pollux", "--policy", policy.split("+")[0], "--data-dir", f"{SHARED}/traces", "--out", out]
    cmd += ["--compat", "sia"] if kind == "compat" else ["--perf-model", "measured:sia"]
    if policy.endswith("+sia-jobs"):
        cmd += ["--job-model", "sia"]
    if not (args.reuse and os.path.exists(os.path.join(out, "summary.json"))):
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
runs += [("engine", p, w) for p in ("sia+sia-jobs", "sia", "gavel-throughput-perf", "fifo") for w in WORKLOADS]
os.makedirs(OUT, exist_ok=True)
res = {}
with cf.ThreadPoolExecutor(args.workers) as ex:
    for kind, policy, w, jct, wall in ex.map(lambda r: run(*r), runs):
        res[(kind, policy, w)] = (jct, wall)

authors = {"sia": {}, "gavel": {}, "pollux": {}}
for p in ("sia", "gavel", "pollux"):  # the goldens (tests/data/sia), then runs kept here (Pollux: seeded)
    for path in [os.path.join(ROOT, f"tests/data/sia/{t}-{p}.csv") for t in TRACES] + [os.path.join(HERE, f"authors-{p}.csv")]:
        if os.path.exists(path):
            authors[p].update(golden_means(path))
cpu = {}
with open(os.path.join(HERE, "authors-runtime.csv")) as f:
    for r in csv.DictReader(f):
        cpu.setdefault(r["policy"], {})[r["workload"]] = float(r["cpu_s"])


def mean_h(vals):
    return f"{statistics.mean(vals) / 3600:.3f}" if vals else "-"


# The artifact README's sample output (S:README.md:22-25): Gavel on the 10 Saturn workloads, its authors' run.
README_SAMPLE = {("saturn", "gavel"): "2.548 (artifact README's sample run)"}
lines = ["# Sia (Jayaram Subramanya et al., SOSP'23): average JCT on its Philly and Helios workloads", "",
         "Made by `experiments/jayaram2023-sia/run.sh` (this file is rewritten by it). Cluster: the artifact's default,",
         "`sia-64` = 6 x 4 T4 (`aws`), 2 x 8 A100 (`dgx-ext`), 3 x 8 RTX 2080 Ti (`rtx`). Workloads: the artifact's",
         "`workloads/philly/workload-{1..8}.csv` and `workloads/saturn/workload-{1..10}.csv` (Helios-Saturn; 160 jobs",
         "each, 8 h of arrivals). Mean over the workloads of the average JCT, hours. The paper's claim (abstract): on",
         "44- to 64-GPU clusters of three GPU types, Sia reduces average JCT by 30-93 % against Pollux and Gavel on",
         "workloads from 3 environments; its per-workload figures are not given in a form we can copy.", ""]
for trace, ws in TRACES.items():
    lines += [f"## {trace}", "",
              "| policy | authors' simulator | --compat sia | ours, engine: Sia's jobs | ours, engine: oracle |",
              "|---|---|---|---|---|"]
    for p in ("sia", "pollux", "gavel"):
        a = [authors[p][w] for w in ws if w in authors[p]]
        a_txt = mean_h(a)
        if 0 < len(a) < len(ws):  # a subset: ours on the same workloads beside it
            same = [res[("compat", p, w)][0] for w in ws if w in authors[p] and ("compat", p, w) in res]
            a_txt += f" ({len(a)} of {len(ws)} workloads; --compat sia on those: {mean_h(same)})"
        if (trace, p) in README_SAMPLE:
            a_txt = (a_txt + " under the shim; " if a else "") + README_SAMPLE[(trace, p)]
        c = [res[("compat", p, w)][0] for w in ws if ("compat", p, w) in res]
        if p == "sia":
            e1 = mean_h([res[("engine", "sia+sia-jobs", w)][0] for w in ws]) + " (sia, --job-model sia)"
            e2 = mean_h([res[("engine", "sia", w)][0] for w in ws]) + " (sia)"
        elif p == "gavel":
            e1, e2 = "-", mean_h([res[("engine", "gavel-throughput-perf", w)][0] for w in ws]) + " (gavel-throughput-perf)"
        else:
            e1 = e2 = "- (the engine's pollux takes one GPU type)"
        lines.append(f"| {p} | {a_txt} | {mean_h(c)} | {e1} | {e2} |")
    lines.append(f"| fifo (reference) | - | - | - | {mean_h([res[('engine', 'fifo', w)][0] for w in ws])} |")
    lines += ["", "Sia's average JCT against the baselines' (ratio of the means; the paper: 0.07-0.70):", ""]
    for col, key in (("--compat sia", "compat"),):
        sia_c = [res[(key, "sia", w)][0] for w in ws if (key, "sia", w) in res]
        for b in ("pollux", "gavel"):
            bc = [res[(key, b, w)][0] for w in ws if (key, b, w) in res]
            if sia_c and bc:
                lines.append(f"- {col}: sia / {b} = {statistics.mean(sia_c) / statistics.mean(bc):.2f}")
    lines.append("")
lines += ["## Per workload (average JCT, seconds)", "",
          "| workload | authors sia | compat sia | authors gavel | compat gavel | authors pollux | compat pollux | engine sia (Sia's jobs) |",
          "|---|---|---|---|---|---|---|---|"]
for w in WORKLOADS:
    def g(key):
        return f"{res[key][0]:.1f}" if key in res else "-"

    def au(p):
        return f"{authors[p][w]:.1f}" if w in authors[p] else "-"
    lines.append(f"| {w} | {au('sia')} | {g(('compat', 'sia', w))} | {au('gavel')} | {g(('compat', 'gavel', w))} | "
                 f"{au('pollux')} | {g(('compat', 'pollux', w))} | {g(('engine', 'sia+sia-jobs', w))} |")
lines += ["", "## Run time per workload", "",
          "Median; the authors' simulator: CPU seconds of one Python process under the shim on this machine",
          "(authors-runtime.csv); ours: summary.json `wall_s` of one run, one core, same work.", "",
          "| policy | authors' simulator | --compat sia | ratio |", "|---|---|---|---|"]
for p in ("sia", "gavel", "pollux"):
    a = [v for w, v in cpu.get(p, {}).items() if w in TRACES["philly"]]
    c = [res[("compat", p, w)][1] for w in TRACES["philly"] if ("compat", p, w) in res]
    if not c:
        continue
    ratio = f"{statistics.median(a) / statistics.median(c):.0f}x" if a else "-"
    lines.append((f"| {p} | {statistics.median(a):.1f} s (philly, {len(a)} runs) |" if a else f"| {p} | - |") +
                 f" {statistics.median(c):.2f} s | {ratio} |")
text = "\n".join(lines) + "\n"
notes = os.path.join(HERE, "NOTES.md")
if os.path.exists(notes):
    text += "\n" + open(notes).read()
with open(os.path.join(HERE, "README.md"), "w") as f:
    f.write(text)
print(text)
