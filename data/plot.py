"""ringmaster plot: the figures of a paper from ringmaster's output folders (run by `ringmaster plot`).

Folders: a `sweep` (results.csv + runs/), a `simulate` run (jobs.csv), a multi-policy `simulate` (one
sub-folder per policy) or a `replay` (jobs.csv + runs.csv). Figures, as PNG and SVG in --out:
  jct_cdf        JCT CDF per policy (seeds pooled; one panel per load of a sweep)
  jct_vs_load    average and p99 JCT against load, mean and standard deviation over seeds (sweeps over --load)
Layout options (docs/sweep.md): --figures, --where KEY=VALUE, --series-by KEY, --panel-by KEY, --rename OLD=NEW,
--metrics, --log-y, --load-label; KEY is a sweep parameter, `folder` or `policy.N` (N-th `+`-part of the policy).
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
import matplotlib.ticker  # noqa: E402


def _one_line(kind, value, tb):
    """Bad input to plot is one `error:` line and exit 2, never a traceback: a file that is not what its name says
    (a damaged results.csv, summary.json, jobs.csv), or a folder missing one."""
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, value, tb)
        return
    if isinstance(value, OSError) and value.filename:
        msg = f"{value.filename}: {value.strerror or value}"
    else:
        msg = f"{type(value).__name__}: {value}"
    sys.stderr.write(f"error: {CURRENT or 'plot'}: {msg} (a damaged or incomplete ringmaster output folder?)\n")
    sys.stderr.flush()
    os._exit(2)


CURRENT = ""  # the file being read, for _one_line
sys.excepthook = _one_line

ap = argparse.ArgumentParser(prog="ringmaster plot")
ap.add_argument("dirs", nargs="+")
ap.add_argument("--out", required=True)
ap.add_argument("--format", default="png,svg")
ap.add_argument("--figures", default="jct_cdf,jct_vs_load,util_queue,gantt")
ap.add_argument("--where", action="append", default=[])
ap.add_argument("--series-by", default="policy")
ap.add_argument("--panel-by", default="")
ap.add_argument("--rename", action="append", default=[])
ap.add_argument("--metrics", default="avg_jct_s,p99_jct_s")
ap.add_argument("--log-y", action="store_true")
ap.add_argument("--load-label", default="offered load (x the trace's arrival rate; a workload's --load)")
args = ap.parse_args()
FIGURES = set(f for f in args.figures.split(",") if f)
for f in FIGURES - {"jct_cdf", "jct_vs_load", "util_queue", "gantt"}:
    sys.exit(f"error: --figures: unknown figure {f!r} (jct_cdf, jct_vs_load, util_queue, gantt)")
RENAME = {}
for x in args.rename:
    if "=" not in x:
        sys.exit(f"error: --rename {x!r}: expected OLD=NEW")
    k, v = x.split("=", 1)
    RENAME[k] = v
WHERE = []
for x in args.where:
    if "=" not in x:
        sys.exit(f"error: --where {x!r}: expected KEY=VALUE (e.g. load=0.9, seed=1, policy.2=tune)")
    WHERE.append(tuple(x.split("=", 1)))
FORMATS = [f for f in args.format.split(",") if f]
os.makedirs(args.out, exist_ok=True)
written = []


def read_csv(path, need=()):
    """A CSV's rows; one error line naming the file if it is not CSV or lacks a column it must have."""
    try:
        with open(path, newline="") as f:
            if "\0" in f.read(65536):
                raise ValueError("binary data (a NUL byte)")
            f.seek(0)
            reader = csv.DictReader(f, strict=True)
            rows = list(reader)
            header = reader.fieldnames or []
        for r in rows:
            if None in r or any(v is None for v in r.values()):
                raise ValueError(f"line {reader.line_num}: a row's field count differs from the header's")
    except (csv.Error, ValueError, UnicodeDecodeError) as e:
        sys.exit(f"error: {path}: not a ringmaster CSV ({e})")
    for c in need:
        if c not in header:
            sys.exit(f"error: {path}: no column {c!r} (is it a ringmaster output?)")
    return rows


def summary(d):
    p = os.path.join(d, "summary.json")
    if os.path.exists(p):
        try:
            with open(p) as f:
                return json.load(f)
        except (ValueError, UnicodeDecodeError) as e:
            sys.exit(f"error: {p}: not JSON ({e})")
    return {}


# Every run: {label, params, dir}; params are the sweep's parameters (policy, load, seed, ...).
runs = []
for src, d in enumerate(args.dirs):
    first = len(runs)
    if not os.path.isdir(d):
        sys.exit(f"error: {d}: not a folder")
    if os.path.exists(os.path.join(d, "results.csv")):
        grid = os.path.join(d, "grid.json")
        if not os.path.exists(grid):
            sys.exit(f"error: {d}: results.csv without grid.json: not a sweep folder (ringmaster sweep writes both)")
        try:
            with open(grid) as f:
                cells = json.load(f)["cells"]
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
            sys.exit(f"error: {grid}: not a sweep's grid ({type(e).__name__}: {e})")
        for cell, row in zip(cells, read_csv(os.path.join(d, "results.csv"), need=("status",))):
            if row["status"] != "ok":
                continue
            params = {k: v for k, v in cell["params"]}
            params.setdefault("policy", row.get("scheduler", "run"))
            runs.append({"params": params, "dir": os.path.join(d, "runs", "%05d" % cell["index"])})
    elif os.path.exists(os.path.join(d, "jobs.csv")):
        s = summary(d)
        runs.append({"params": {"policy": s.get("policy", os.path.basename(os.path.normpath(d)))}, "dir": d})
    else:
        subs = sorted(e for e in os.listdir(d) if os.path.exists(os.path.join(d, e, "jobs.csv")))
        if not subs:
            sys.exit(f"error: {d}: no results.csv, jobs.csv or run folders in it")
        for e in subs:
            s = summary(os.path.join(d, e))
            runs.append({"params": {"policy": s.get("policy", e)}, "dir": os.path.join(d, e)})
    for r in runs[first:]:
        r["params"]["folder"] = os.path.basename(os.path.normpath(d))


def key_value(r, key):
    """A run's value of KEY: a sweep parameter, `folder`, or `policy.N`, the N-th `+`-part of the policy name."""
    if key.startswith("policy.") and key[7:].isdigit():
        parts = r["params"]["policy"].split("+")
        n = int(key[7:])
        return parts[n - 1] if 1 <= n <= len(parts) else ""
    return r["params"].get(key)


def same(a, b):
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return a == b


for key, value in WHERE:
    if all(key_value(r, key) is None for r in runs):
        sys.exit(f"error: --where {key}={value}: no run has a parameter {key!r}")
    runs = [r for r in runs if same(key_value(r, key), value)]
if not runs:
    sys.exit("error: no complete run to plot" + (" (after --where)" if WHERE else ""))
for r in runs:
    v = key_value(r, args.series_by)
    if v is None:
        sys.exit(f"error: --series-by {args.series_by}: not a parameter of every run")
    r["label"] = RENAME.get(v, v if args.series_by == "policy" or args.series_by.startswith("policy.") or v in RENAME
                            else f"{args.series_by} {v}")
    if args.series_by == "policy" and len(args.dirs) > 1:  # the same policy from two folders: tell them apart
        r["label"] += " [" + r["params"]["folder"] + "]"
    r["panel"] = key_value(r, args.panel_by) if args.panel_by else None


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

WHERE_TEXT = (" (" + ", ".join(f"{k}={v}" for k, v in WHERE) + ")") if WHERE else ""


def panel_title(p):
    if p is None:
        return ""
    if args.panel_by == "load":
        return f"load {float(p):g}"
    return RENAME.get(p, p if args.panel_by == "policy" or args.panel_by.startswith("policy.") else f"{args.panel_by} {p}")


# 1. JCT CDF per policy, one panel per load (or per --panel-by value).
if args.panel_by:
    panels = list(dict.fromkeys(r["panel"] for r in runs))
    if args.panel_by == "load":
        panels = sorted(panels, key=float)
    in_panel = lambda r, p: r["panel"] == p  # noqa: E731
else:
    panels = loads if loads else [None]
    in_panel = lambda r, p: p is None or float(r["params"].get("load", -1)) == p  # noqa: E731
if "jct_cdf" not in FIGURES:
    panels = []
ncol = min(3, max(1, len(panels)))
nrow = max(1, math.ceil(len(panels) / ncol))
allj = [j for r in runs for j in jcts(r)] if panels else []
unit, uname = time_unit(max(allj) if allj else 1)
if panels:
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.5 * ncol, 4.2 * nrow), squeeze=False)
    for k, load in enumerate(panels):
        ax = axes[k // ncol][k % ncol]
        for l in labels:
            vals = sorted(j / unit for r in runs if r["label"] == l and in_panel(r, load) for j in jcts(r))
            if vals:
                ax.plot(vals, [(i + 1) / len(vals) for i in range(len(vals))], label=l, color=colors[l], lw=1.6)
        ax.set_xscale("log")
        ax.set_xlabel(f"job completion time ({uname}, log scale)")
        ax.set_ylabel("fraction of jobs")
        ax.set_ylim(0, 1.01)
        ax.grid(alpha=0.3)
        ax.set_title("JCT CDF" + (f", {panel_title(load)}" if load is not None else "") + WHERE_TEXT)
        ax.legend(fontsize=8, loc="lower right")
    for k in range(len(panels), nrow * ncol):
        axes[k // ncol][k % ncol].axis("off")
    fig.tight_layout()
    save(fig, "jct_cdf")

# 2. JCT metrics against load, mean +- standard deviation over seeds: one column per metric, one row per
#    --panel-by value (with a single metric, the panels side by side).
METRIC_NAMES = {"avg_jct_s": "average JCT", "p50_jct_s": "median JCT", "p95_jct_s": "p95 JCT",
                "p99_jct_s": "p99 JCT", "makespan_s": "makespan"}
metrics = [m for m in args.metrics.split(",") if m]
if len(loads) >= 2 and "jct_vs_load" in FIGURES and metrics:
    vpanels = (list(dict.fromkeys(r["panel"] for r in runs if "load" in r["params"])) if args.panel_by and args.panel_by != "load"
               else [None])
    grid = [(p, m) for p in vpanels for m in metrics]
    ncol = len(metrics) if len(metrics) > 1 else min(3, len(vpanels))
    nrow = math.ceil(len(grid) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.8 * ncol, 4.4 * nrow), squeeze=False)
    for k, (panel, key) in enumerate(grid):
        ax = axes[k // ncol][k % ncol]
        title = METRIC_NAMES.get(key, key)
        series = {}
        for r in runs:
            if "load" not in r["params"] or (panel is not None and r["panel"] != panel):
                continue
            s = summary(r["dir"])
            if isinstance(s.get(key), (int, float)):
                series.setdefault(r["label"], {}).setdefault(float(r["params"]["load"]), []).append(s[key])
        if not series:
            sys.exit(f"error: --metrics {key}: no run's summary.json has it")
        top = max((max(v) for pts in series.values() for v in pts.values()), default=1)
        unit, uname = time_unit(top) if key.endswith("_s") else (1.0, "")
        for l in labels:
            if l not in series:
                continue
            pts = series[l]
            xs = sorted(pts)
            ys = [statistics.mean(pts[x]) / unit for x in xs]
            es = [(statistics.stdev(pts[x]) if len(pts[x]) > 1 else 0) / unit for x in xs]
            ax.errorbar(xs, ys, yerr=es, label=l, color=colors[l], marker="o", ms=4, capsize=3, lw=1.6)
        ax.set_xlabel(args.load_label)
        ax.set_ylabel(f"{title} ({uname}{', log scale' if args.log_y else ''})" if uname else title)
        if args.log_y:
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
            ax.yaxis.set_minor_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        ax.set_title((f"{panel_title(panel)}: " if panel is not None else "") + f"{title} vs load (mean +- std over seeds)" + WHERE_TEXT,
                     fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    for k in range(len(grid), nrow * ncol):
        axes[k // ncol][k % ncol].axis("off")
    fig.tight_layout()
    save(fig, "jct_vs_load")

# 3. GPU utilisation and queue length over time: one run per policy (highest load, first seed).
chosen = {}
for r in runs:
    key = r["label"]
    rank = (-float(r["params"].get("load", 0)), int(r["params"].get("seed", 0)))
    if os.path.exists(os.path.join(r["dir"], "timeseries.csv")) and (key not in chosen or rank < chosen[key][0]):
        chosen[key] = (rank, r)
if chosen and "util_queue" in FIGURES:
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
for _, r in sorted(chosen.values(), key=lambda x: x[0]) if "gantt" in FIGURES else []:
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
