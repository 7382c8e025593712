"""ringmaster plot: the figures of a paper from ringmaster's output folders (run by `ringmaster plot`).

Folders: a `sweep` (results.csv + runs/), a `simulate` run (jobs.csv), a multi-policy `simulate` (one
sub-folder per policy) or a `replay` (jobs.csv + runs.csv). Figures, as PNG and SVG in --out:
  jct_cdf        JCT CDF per policy (seeds pooled; one panel per load of a sweep)
  jct_vs_load    average and p99 JCT against load, mean and standard deviation over seeds (sweeps over --load)
  util_queue     GPU utilisation and queue length over time (timeseries.csv; per policy, highest load, first seed)
  gantt          GPU occupancy per job (gpus.csv of simulate, runs.csv of replay; runs of up to 300 jobs)
Matplotlib from Debian (python3-matplotlib); docs/sweep.md says why.
"""
import argparse
import csv
import json
import math
import os
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ap = argparse.ArgumentParser(prog="ringmaster plot")
ap.add_argument("dirs", nargs="+")
ap.add_argument("--out", required=True)
ap.add_argument("--format", default="png,svg")
args = ap.parse_args()
FORMATS = [f for f in args.format.split(",") if f]
os.makedirs(args.out, exist_ok=True)
written = []


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def summary(d):
    p = os.path.join(d, "summary.json")
    if os.path.exists(p):
        with open(p) as f:
            return json.load(f)
    return {}


# Every run: {label, params, dir}; params are the sweep's parameters (policy, load, seed, ...).
runs = []
for src, d in enumerate(args.dirs):
    first = len(runs)
    if not os.path.isdir(d):
        sys.exit(f"error: {d}: not a folder")
    if os.path.exists(os.path.join(d, "results.csv")) and os.path.isdir(os.path.join(d, "runs")):
        with open(os.path.join(d, "grid.json")) as f:
            cells = json.load(f)["cells"]
        for cell, row in zip(cells, read_csv(os.path.join(d, "results.csv"))):
            if row["status"] != "ok":
                continue
            params = {k: v for k, v in cell["params"]}
            runs.append({"label": params.get("policy", row.get("scheduler", "run")), "params": params,
                         "dir": os.path.join(d, "runs", "%05d" % cell["index"])})
    elif os.path.exists(os.path.join(d, "jobs.csv")):
        s = summary(d)
        runs.append({"label": s.get("policy", os.path.basename(os.path.normpath(d))), "params": {}, "dir": d})
    else:
        subs = sorted(e for e in os.listdir(d) if os.path.exists(os.path.join(d, e, "jobs.csv")))
        if not subs:
            sys.exit(f"error: {d}: no results.csv, jobs.csv or run folders in it")
        for e in subs:
            s = summary(os.path.join(d, e))
            runs.append({"label": s.get("policy", e), "params": {}, "dir": os.path.join(d, e)})
    if len(args.dirs) > 1:  # the same policy from two folders (e.g. simulate and replay): tell them apart
        for r in runs[first:]:
            r["label"] += " [" + os.path.basename(os.path.normpath(d)) + "]"
if not runs:
    sys.exit("error: no complete run to plot")


def save(fig, name):
    for fmt in FORMATS:
        p = os.path.join(args.out, f"{name}.{fmt}")
        fig.savefig(p, dpi=110)
        written.append(p)
    plt.close(fig)


def time_unit(seconds):
    return (3600.0, "hours") if seconds > 3 * 3600 else (60.0, "minutes") if seconds > 600 else (1.0, "seconds")


def jcts(r):
    return [float(x["jct_s"]) for x in read_csv(os.path.join(r["dir"], "jobs.csv"))
            if x.get("status", "finished") == "finished" and x["jct_s"] not in ("", "nan", "inf")]


labels = list(dict.fromkeys(r["label"] for r in runs))
colors = {l: plt.cm.tab10(i % 10) for i, l in enumerate(labels)}
loads = sorted({float(r["params"]["load"]) for r in runs if "load" in r["params"]})

# 1. JCT CDF per policy, one panel per load.
panels = loads if loads else [None]
ncol = min(3, len(panels))
nrow = math.ceil(len(panels) / ncol)
fig, axes = plt.subplots(nrow, ncol, figsize=(5.5 * ncol, 4.2 * nrow), squeeze=False)
allj = [j for r in runs for j in jcts(r)]
unit, uname = time_unit(max(allj) if allj else 1)
for k, load in enumerate(panels):
    ax = axes[k // ncol][k % ncol]
    for l in labels:
        vals = sorted(j / unit for r in runs if r["label"] == l and (load is None or float(r["params"].get("load", -1)) == load)
                      for j in jcts(r))
        if vals:
            ax.plot(vals, [(i + 1) / len(vals) for i in range(len(vals))], label=l, color=colors[l], lw=1.6)
    ax.set_xscale("log")
    ax.set_xlabel(f"job completion time ({uname}, log scale)")
    ax.set_ylabel("fraction of jobs")
    ax.set_ylim(0, 1.01)
    ax.grid(alpha=0.3)
    ax.set_title("JCT CDF" + (f", load {load:g}" if load is not None else ""))
    ax.legend(fontsize=8, loc="lower right")
for k in range(len(panels), nrow * ncol):
    axes[k // ncol][k % ncol].axis("off")
fig.tight_layout()
save(fig, "jct_cdf")

# 2. Average and p99 JCT against load, mean +- standard deviation over seeds.
if len(loads) >= 2:
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, key, title in ((axes[0], "avg_jct_s", "average JCT"), (axes[1], "p99_jct_s", "p99 JCT")):
        series = {}
        for r in runs:
            if "load" not in r["params"]:
                continue
            s = summary(r["dir"])
            if key in s:
                series.setdefault(r["label"], {}).setdefault(float(r["params"]["load"]), []).append(s[key])
        top = max((max(v) for pts in series.values() for v in pts.values()), default=1)
        unit, uname = time_unit(top)
        for l, pts in series.items():
            xs = sorted(pts)
            ys = [statistics.mean(pts[x]) / unit for x in xs]
            es = [(statistics.stdev(pts[x]) if len(pts[x]) > 1 else 0) / unit for x in xs]
            ax.errorbar(xs, ys, yerr=es, label=l, color=colors[l], marker="o", ms=4, capsize=3, lw=1.6)
        ax.set_xlabel("offered load (x the trace's arrival rate; a workload's --load)")
        ax.set_ylabel(f"{title} ({uname})")
        ax.set_title(f"{title} vs load (mean +- std over seeds)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    save(fig, "jct_vs_load")

# 3. GPU utilisation and queue length over time: one run per policy (highest load, first seed).
chosen = {}
for r in runs:
    key = r["label"]
    rank = (-float(r["params"].get("load", 0)), int(r["params"].get("seed", 0)))
    if os.path.exists(os.path.join(r["dir"], "timeseries.csv")) and (key not in chosen or rank < chosen[key][0]):
        chosen[key] = (rank, r)
if chosen:
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(11, 6.5), sharex=True)
    series = {l: read_csv(os.path.join(r["dir"], "timeseries.csv")) for l, (_, r) in chosen.items()}
    tmax = max((float(rows[-1]["time_s"]) for rows in series.values() if rows), default=1)
    unit, uname = time_unit(tmax)
    for l, rows in series.items():
        t = [float(x["time_s"]) / unit for x in rows]
        a1.step(t, [float(x["gpu_util"]) for x in rows], where="post", label=l, color=colors[l], lw=1.2)
        a2.step(t, [int(x["queued"]) for x in rows], where="post", label=l, color=colors[l], lw=1.2)
    a1.set_ylabel("GPU utilisation (busy / all GPUs)")
    a1.set_ylim(0, 1.05)
    a2.set_ylabel("jobs waiting in the queue")
    a2.set_xlabel(f"time ({uname})")
    title = "GPU utilisation and queue length"
    if loads:
        title += " (highest load, first seed of each policy)"
    a1.set_title(title)
    for a in (a1, a2):
        a.grid(alpha=0.3)
        a.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    save(fig, "util_queue")

# 4. Gantt chart of GPU occupancy: the first run of up to 300 jobs with per-GPU stretches.
for _, r in sorted(chosen.values(), key=lambda x: x[0]) if chosen else []:
    d = r["dir"]
    stretches = []  # (job, start, end, gpu row name)
    if os.path.exists(os.path.join(d, "gpus.csv")):
        for x in read_csv(os.path.join(d, "gpus.csv")):
            stretches.append((x["job_id"], float(x["start_s"]), float(x["end_s"]), f"s{x['server']}:g{x['gpu']}"))
    elif os.path.exists(os.path.join(d, "runs.csv")):
        for x in read_csv(os.path.join(d, "runs.csv")):
            for k in range(int(x["gpus"])):
                stretches.append((x["job_id"], float(x["start_s"]), float(x["end_s"]), f"{x['node']}:{k}"))
    jobs = {s[0] for s in stretches}
    if not stretches or len(jobs) > 300:
        continue
    if os.path.exists(os.path.join(d, "runs.csv")) and not os.path.exists(os.path.join(d, "gpus.csv")):
        # runs.csv has GPUs per node, not their indices: stack each node's stretches onto free rows.
        rows_free, placed = {}, []
        for job, a, b, name in sorted(stretches, key=lambda s: (s[1], s[0])):
            node = name.split(":")[0]
            slots = rows_free.setdefault(node, [])
            for i, until in enumerate(slots):
                if until <= a + 1e-9:
                    slots[i] = b
                    placed.append((job, a, b, f"{node}:{i}"))
                    break
            else:
                slots.append(b)
                placed.append((job, a, b, f"{node}:{len(slots) - 1}"))
        stretches = placed
    names = sorted({s[3] for s in stretches}, key=lambda n: [int(p) if p.isdigit() else p
                                                              for p in n.replace("s", "").replace("g", "").replace("n", "").split(":")])
    row = {n: i for i, n in enumerate(names)}
    tmax = max(s[2] for s in stretches)
    unit, uname = time_unit(tmax)
    order = sorted(jobs)
    cmap = plt.cm.tab20
    fig, ax = plt.subplots(figsize=(12, max(3, 0.28 * len(names) + 1.5)))
    for job, a, b, name in stretches:
        ax.barh(row[name], (b - a) / unit, left=a / unit, height=0.8, color=cmap(order.index(job) % 20),
                edgecolor="black", linewidth=0.3)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(f"time ({uname})")
    ax.set_ylabel("GPU (server:gpu)")
    ax.set_title(f"GPU occupancy, {r['label']}: {len(jobs)} jobs, one colour per job (colours repeat)")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    save(fig, "gantt")
    break

for p in written:
    print(p)
