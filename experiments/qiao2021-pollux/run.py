#!/usr/bin/python3
"""Qiao, Choe, Subramanya, Neiswanger, Ho, Zhang, Ganger, Xing (Pollux, OSDI'21) reproduced with ringmaster.

Figure 8a of the paper: average JCT against relative job load (0.5, 1.0, 1.5, 2.0; 8 workloads each) for Pollux,
Optimus+Oracle (+TunedJobs) and Tiresias (+TunedJobs) on 16 nodes of 4 T4 GPUs, from the authors' simulator. The
authors publish that simulator's per-job results (shared/goldens/peers/pollux); ours run under --compat pollux:
the two baselines job by job, Pollux by the mean (its genetic search draws other random numbers than the authors').
Prints every table and rewrites README.md and fig8a.png next to this file.
Usage: run.py [--bin PATH] [--workers N] [--loads 0.5,1.0,...] [--pollux-runs DIR] [--engine-pollux-runs DIR]
  --pollux-runs DIR: reuse Pollux runs already made, one folder DIR/<load>-<workload> each (summary.json, jobs.csv).
  --engine-pollux-runs DIR: the same for the engine's pollux (section 3).
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sweep_grid import csv_rows as rows, summary, sweep_grid, write_readme  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SHARED = os.path.abspath(os.path.join(ROOT, "..", "shared"))
GOLD = os.path.join(SHARED, "goldens", "peers", "pollux")
TRACES = os.path.join(SHARED, "traces")
LOADS = ["0.5", "1.0", "1.5", "2.0"]
POLICIES = ["pollux", "optimus", "tiresias"]
ap = argparse.ArgumentParser()
ap.add_argument("--bin", default=os.path.join(ROOT, "build", "ringmaster"))
ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
ap.add_argument("--loads", default=",".join(LOADS))
ap.add_argument("--pollux-runs", default="")
ap.add_argument("--engine-pollux-runs", default="")
args = ap.parse_args()
loads = args.loads.split(",")
TMP = tempfile.mkdtemp(prefix="rm-pollux-")


def folder(load):
    return "workloads" if load == "1.0" else "workloads-" + load


def published(policy, load):
    """{workload file: {job: jct}} of the authors' published run."""
    out = {}
    for r in rows(os.path.join(GOLD, f"{policy}-{load}.csv")):
        out.setdefault(r["workload"], {})[r["job"]] = float(r["jct_s"])
    return out


def sim_args(policy, load, w):
    return ["--compat", "pollux", "--cluster", "pollux:16:4", "--format", "pollux", "--data-dir", TRACES,
            "--trace", os.path.join(TRACES, "pollux", folder(load), f"workload-{w}.csv"), "--policy", policy,
            "--seed", "1"]


# Our engine (no --compat): the elastic jobs of docs/elastic.md on the pollux-64 preset under the measured tables, as
# Pollux's jobs (--job-model, docs/elastic.md "Pollux's job model"): pollux is Pollux's policy over jobs that choose
# their batch by their fitted goodput models (pollux), optimus Optimus+Oracle and tiresias our 2D-LAS preset (not the
# simulator's two-queue copy) over jobs at their trace's batch (pollux-tuned), as Pollux's simulator runs its baselines.
ENGINE = ["pollux", "optimus", "tiresias"]


def engine_args(policy, load, w):
    return ["--cluster", "pollux-64", "--format", "pollux", "--data-dir", TRACES, "--perf-model", "measured:pollux",
            "--job-model", "pollux" if policy == "pollux" else "pollux-tuned",
            "--trace", os.path.join(TRACES, "pollux", folder(load), f"workload-{w}.csv"), "--policy", policy,
            "--seed", "1"]


runs, where = [], {}
for policy in POLICIES:
    for load in loads:
        for w in range(1, 9):
            reuse = os.path.join(args.pollux_runs, f"{load}-{w}") if args.pollux_runs and policy == "pollux" else ""
            if reuse and os.path.exists(os.path.join(reuse, "summary.json")):
                where[(policy, load, w)] = reuse
            else:
                runs.append(((policy, load, w), sim_args(policy, load, w)))
for policy in ENGINE:
    for load in loads:
        for w in range(1, 9):
            reuse = os.path.join(args.engine_pollux_runs, f"{load}-{w}") if args.engine_pollux_runs and policy == "pollux" else ""
            if reuse and os.path.exists(os.path.join(reuse, "summary.json")):
                where[("engine-" + policy, load, w)] = reuse
            else:
                runs.append((("engine-" + policy, load, w), engine_args(policy, load, w)))
start = time.time()
for (key, _), d in zip(runs, sweep_grid(args.bin, [(f"{k[0]}-{k[1]}-{k[2]}", a) for k, a in runs], TMP, args.workers)):
    where[key] = d
wall = time.time() - start

lines = ["## 1. The baselines, job by job (Tiresias, Optimus+Oracle)", "",
         "The authors' simulator's published per-job JCTs (adaptdl `osdi21-artifact` @c793c70, `results-jobload`) against",
         "ours under `--compat pollux` (docs/policies.md, \"Pollux's simulator\"): a job matches when its JCT, whole",
         "seconds, is the same.", "",
         "| load | policy | avg JCT s (authors) | avg JCT s (ours) | jobs matching |", "|---|---|---|---|---|"]
fig = {p: {"paper": [], "ours": []} for p in POLICIES}
total = same = 0
for policy in ["tiresias", "optimus"]:
    for load in loads:
        pub = published(policy, load)
        ours, theirs, match, n = [], [], 0, 0
        for w in range(1, 9):
            key = f"workloads/workload-{w}" if load == "1.0" else f"workloads-{load}/workload-{w}"
            got = {r["job_id"]: float(r["jct_s"]) for r in rows(os.path.join(where[(policy, load, w)], "jobs.csv"))}
            for job, jct in pub[key].items():
                n += 1
                match += got.get(job) == jct
            ours.append(statistics.mean(got.values()))
            theirs.append(statistics.mean(pub[key].values()))
        total += n
        same += match
        lines.append(f"| {load} | {policy} | {statistics.mean(theirs):.2f} | {statistics.mean(ours):.2f} | {match} of {n} |")
lines += ["", f"**{same} of {total} jobs match.**", "",
          "## 2. Figure 8a: average JCT against relative load", "",
          "Mean over the 8 workloads of each load of the workload's average JCT (hours). Pollux's genetic search is",
          "seeded (`--seed 1`) with our own generator, so its runs are the authors' in distribution, not job by job;",
          "their published Pollux runs are single unseeded runs (their README: runs vary by a few per cent).", "",
          "| load | Pollux (authors) | Pollux (ours) | ours vs authors | Optimus (authors / ours) | Tiresias (authors / ours) | Pollux's speed-up over Optimus, Tiresias (ours) |",
          "|---|---|---|---|---|---|---|"]
for load in loads:
    m = {}
    for policy in POLICIES:
        pub = published(policy, load)
        keys = [f"workloads/workload-{w}" if load == "1.0" else f"workloads-{load}/workload-{w}" for w in range(1, 9)]
        theirs = statistics.mean(statistics.mean(pub[k].values()) for k in keys)
        ours = statistics.mean(summary(where[(policy, load, w)])["avg_jct_s"] for w in range(1, 9))
        m[policy] = (theirs, ours)
        fig[policy]["paper"].append(theirs / 3600)
        fig[policy]["ours"].append(ours / 3600)
    p, o, t = m["pollux"], m["optimus"], m["tiresias"]
    lines.append(f"| {load} | {p[0] / 3600:.3f} | {p[1] / 3600:.3f} | {100 * (p[1] / p[0] - 1):+.2f} % | "
                 f"{o[0] / 3600:.3f} / {o[1] / 3600:.3f} | {t[0] / 3600:.3f} / {t[1] / 3600:.3f} | "
                 f"{o[1] / p[1]:.2f}x, {t[1] / p[1]:.2f}x |")
lines += ["", "## 3. The same workloads on our engine (no `--compat`)", "",
          "Every job elastic (docs/elastic.md), on the `pollux-64` preset under `--perf-model measured:pollux`, as Pollux's",
          "jobs (`--job-model`, docs/elastic.md \"Pollux's job model\": progress in epochs scaled by statistical efficiency,",
          "step times from the same tables, continuous time): `pollux` is Pollux's policy (the same NSGA-II search) over",
          "jobs that re-choose their batch by the goodput models they fit to their own steps (`--job-model pollux`), and",
          "reads those fitted models; `optimus` (Optimus+Oracle as a registry policy) and `tiresias` (our 2D-LAS preset",
          "at each job's asked width) run jobs at their trace's batch (`--job-model pollux-tuned`), as Pollux's simulator",
          "runs its baselines. Mean over the 8 workloads of each load of the workload's average JCT (hours); wall",
          "seconds per run (median, summary.json).", "",
          "| load | Pollux (authors / compat / engine) | Optimus (authors / compat / engine) | Tiresias (authors / compat / engine) | engine reallocations per run (pollux, optimus) | engine wall s per run (pollux, others) |",
          "|---|---|---|---|---|---|"]
for load in loads:
    cells, cpu, cpu_p = [], [], []
    for policy in ENGINE:
        pub = published(policy, load)
        keys = [f"workloads/workload-{w}" if load == "1.0" else f"workloads-{load}/workload-{w}" for w in range(1, 9)]
        theirs = statistics.mean(statistics.mean(pub[k].values()) for k in keys)
        compat = statistics.mean(summary(where[(policy, load, w)])["avg_jct_s"] for w in range(1, 9))
        eng = [summary(where[("engine-" + policy, load, w)]) for w in range(1, 9)]
        engine_mean = statistics.mean(e['avg_jct_s'] for e in eng)
        fig[policy].setdefault("engine", []).append(engine_mean / 3600)
        cells.append(f"{theirs / 3600:.3f} / {compat / 3600:.3f} / {engine_mean / 3600:.3f}")
        (cpu_p if policy == "pollux" else cpu).extend(e.get("wall_s", 0) for e in eng)
    moves = [statistics.mean(summary(where[("engine-" + p, load, w)]).get("reallocations", 0) for w in range(1, 9))
             for p in ("pollux", "optimus")]
    lines.append(f"| {load} | {cells[0]} | {cells[1]} | {cells[2]} | {moves[0]:.0f}, {moves[1]:.0f} | "
                 f"{statistics.median(cpu_p):.1f}, {statistics.median(cpu):.3f} |")
rounds = [summary(where[("pollux", l, w)]).get("pollux_round_ms_p50", 0) for l in loads for w in range(1, 9)]
lines += ["", f"Pollux's policy per round here: median {statistics.median(rounds):.0f} ms over the runs' medians (the "
          "authors' Python GA: about 2 s). This run of the script took "
          f"{wall:.0f} s of wall time for the runs it made (2-core machine).", "",
          "![Figure 8a, authors' simulator vs ours](fig8a.png)"]
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    x = [float(l) for l in loads]
    fig_, ax = plt.subplots(figsize=(6, 4), constrained_layout=True)
    colors = {"pollux": "tab:blue", "optimus": "tab:orange", "tiresias": "tab:green"}
    for policy in POLICIES:
        ax.plot(x, fig[policy]["paper"], "--o", color=colors[policy], label=f"{policy} (authors)")
        ax.plot(x, fig[policy]["ours"], "-x", color=colors[policy], label=f"{policy} (ours, compat)")
        ax.plot(x, fig[policy]["engine"], ":^", color=colors[policy], label=f"{policy} (ours, engine)")
    ax.set_xlabel("relative job load")
    ax.set_ylabel("average JCT (h)")
    ax.legend(loc="upper left", fontsize=8)
    fig_.savefig(os.path.join(HERE, "fig8a.png"), dpi=110)
except ImportError:
    pass
print("\n".join(lines))
write_readme(HERE, "Pollux (Qiao et al., OSDI'21) reproduced with ringmaster", lines)
