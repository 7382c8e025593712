"""ringmaster plot: the figures of a paper from ringmaster's output folders (run by `ringmaster plot`).

Folders: a `sweep` (results.csv + runs/), a `simulate` run (jobs.csv), a multi-policy `simulate` (one
sub-folder per policy) or a `replay` (jobs.csv + runs.csv). Figures, as PNG, SVG and PDF in --out (`ringmaster plot
--list`; --only picks some), one colour and marker per policy in every figure of a call:
  jct_cdf        JCT CDF per policy (seeds pooled; one panel per load of a sweep)
  queue_cdf      queueing delay (jobs.csv queue_s) CDF per policy, panels as jct_cdf
  ftf_cdf        finish-time fairness rho (jobs.csv ftf_rho) CDF per policy, panels as jct_cdf
  jct_by_gpus    average JCT per GPU-count bucket (1, 2-4, 5-8, 9+), one bar per policy, the jobs per bucket named
  jct_vs_load    average, median and p99 JCT against load, the mean over seeds and its 95 % confidence interval
                 (Student's t); log y by itself when the series span more than a decade
Layout options (docs/sweep.md): --figures, --where KEY=VALUE, --series-by KEY, --panel-by KEY, --rename OLD=NEW,
--metrics, --log-y, --load-label; KEY is a sweep parameter, `folder` or `policy.N` (N-th `+`-part of the policy).
  util_queue     GPU utilisation and queue length over time (timeseries.csv; per policy, highest load, first seed),
                 each the time-weighted mean over windows of 1 % of the plotted span (at least one minute)
  elastic_gpus   elastic runs (elastic.csv): GPUs per elastic job over time, one panel per policy: the mean per
                 running elastic job and the jobs whose GPU count changed most
  gantt          GPU occupancy per job, one panel per policy (gpus.csv of simulate: every GPU of a run of up to 300
                 jobs, else the first servers up to 64 GPUs, said in the caption; runs.csv of replay)
Every figure is titled with the runs' cluster, trace and load; panels share their x-range; a CDF is on a log x-axis
when its values span more than two decades (at most six decades shown; smaller values at its left edge).
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
from matplotlib.collections import PolyCollection  # noqa: E402


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
ap.add_argument("--format", default="png,svg,pdf")
ap.add_argument("--figures", default="jct_cdf,queue_cdf,ftf_cdf,jct_by_gpus,jct_vs_load,util_queue,elastic_gpus,gantt")
ap.add_argument("--where", action="append", default=[])
ap.add_argument("--series-by", default="policy")
ap.add_argument("--panel-by", default="")
ap.add_argument("--rename", action="append", default=[])
ap.add_argument("--metrics", default="avg_jct_s,p50_jct_s,p99_jct_s")
ap.add_argument("--log-y", action="store_true")
ap.add_argument("--check-layout", action="store_true",
                help="an overlap in any figure's layout is an error (exit 2), not a warning")
ap.add_argument("--load-label", default=None,
                help="x-axis label against load (default: what --load meant in these runs)")
args = ap.parse_args()
FIGURES = set(f for f in args.figures.split(",") if f)
KNOWN = ["jct_cdf", "queue_cdf", "ftf_cdf", "jct_by_gpus", "jct_vs_load", "util_queue", "elastic_gpus", "gantt"]
for f in FIGURES - set(KNOWN):
    sys.exit(f"error: --only: unknown figure {f!r} ({', '.join(KNOWN)}; ringmaster plot --list)")
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


def open_text(path):
    """The file opened for the csv module, checked to be text: a NUL byte in its first 64 KiB raises ValueError."""
    f = open(path, newline="")
    if "\0" in f.read(65536):
        f.close()
        raise ValueError("binary data (a NUL byte)")
    f.seek(0)
    return f


def require_columns(path, header, need):
    for c in need:
        if c not in header:
            sys.exit(f"error: {path}: no column {c!r} (is it a ringmaster output?)")


def read_csv(path, need=()):
    """A CSV's rows; one error line naming the file if it is not CSV or lacks a column it must have."""
    try:
        with open_text(path) as f:
            reader = csv.DictReader(f, strict=True)
            rows = list(reader)
            header = reader.fieldnames or []
        for r in rows:
            if None in r or any(v is None for v in r.values()):
                raise ValueError(f"line {reader.line_num}: a row's field count differs from the header's")
    except (csv.Error, ValueError, UnicodeDecodeError) as e:
        sys.exit(f"error: {path}: not a ringmaster CSV ({e})")
    require_columns(path, header, need)
    return rows


def read_columns(path, columns, need=(), finished_only=False):
    """Some columns of a large CSV as arrays of floats (NaN where empty), streamed: a whole trace's jobs.csv or
    timeseries.csv is hundreds of thousands of rows, which as dicts took most of plot's memory. finished_only: only
    the rows whose `status` (where there is one) is `finished`. Errors as read_csv's."""
    from array import array
    out = {c: array("d") for c in columns}
    try:
        with open_text(path) as f:
            reader = csv.reader(f, strict=True)
            header = next(reader, [])
            require_columns(path, header, need)
            at = [(out[c], header.index(c)) for c in columns if c in header]
            st = header.index("status") if finished_only and "status" in header else -1
            n = len(header)
            for row in reader:
                if len(row) != n:
                    raise ValueError(f"line {reader.line_num}: a row's field count differs from the header's")
                if st >= 0 and row[st] != "finished":
                    continue
                for arr, i in at:
                    v = row[i]
                    arr.append(float(v) if v else math.nan)
    except (csv.Error, ValueError, UnicodeDecodeError) as e:
        sys.exit(f"error: {path}: not a ringmaster CSV ({e})")
    return out


_JOBS = {}


def job_columns(r):
    """A run's finished jobs (jobs.csv): jct_s, queue_s, ftf_rho and num_gpus, read once per run."""
    if r["dir"] not in _JOBS:
        _JOBS[r["dir"]] = read_columns(os.path.join(r["dir"], "jobs.csv"), ("jct_s", "queue_s", "ftf_rho", "num_gpus"),
                                       need=("jct_s",), finished_only=True)
    return _JOBS[r["dir"]]


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
        runs.append({"params": {"policy": s.get("policy_label", s.get("policy", os.path.basename(os.path.normpath(d))))},
                     "dir": d})
    else:
        subs = sorted(e for e in os.listdir(d) if os.path.exists(os.path.join(d, e, "jobs.csv")))
        if not subs:
            sys.exit(f"error: {d}: no results.csv, jobs.csv or run folders in it")
        for e in subs:
            s = summary(os.path.join(d, e))
            runs.append({"params": {"policy": s.get("policy_label", s.get("policy", e))}, "dir": os.path.join(d, e)})
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


def figure(nrows=1, ncols=1, **kw):
    """A figure under matplotlib's constrained layout: titles, labels, tick labels and the legend placed outside the
    panels never overlap, at the figure size asked (issue 46)."""
    return plt.subplots(nrows, ncols, layout="constrained", **kw)


def legend_outside(fig, axes):
    """One legend for the whole figure, right of the top-right panel, outside every panel's data: the policies of
    every panel (one colour and marker each), in the order of `labels`."""
    handles = {}
    for ax in axes:
        for h, l in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(l, h)
    if not handles:
        return
    order = [l for l in labels if l in handles] + [l for l in handles if l not in labels]
    visible = [ax for ax in axes if ax.get_visible() and ax.axison]
    top = min(ax.get_subplotspec().rowspan.start for ax in visible)
    anchor = max((ax for ax in visible if ax.get_subplotspec().rowspan.start == top),
                 key=lambda ax: ax.get_subplotspec().colspan.stop)
    anchor.legend([handles[l] for l in order], order, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                  borderaxespad=0.0, frameon=False)


def _boxes_overlap(a, b, slack=0.5):
    return a.x0 + slack < b.x1 and b.x0 + slack < a.x1 and a.y0 + slack < b.y1 and b.y0 + slack < a.y1


def layout_problems(fig):
    """What overlaps in a laid-out figure, in words: a legend over any panel's data, a title, axis label or tick
    label over another panel or over another text, neighbouring tick labels of one axis over each other, or any of
    them cut off at the figure's edge. Empty when the layout is clean."""
    fig.draw_without_rendering()
    r = fig.canvas.get_renderer()
    W, H = fig.bbox.width, fig.bbox.height
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.axison]
    texts = []  # (what, owner index, bbox)
    st = getattr(fig, "_suptitle", None)
    if st is not None and st.get_text():
        texts.append(("the figure's title", -1, st.get_window_extent(r)))
    out = []
    for i, ax in enumerate(panels):
        name = f"panel {i + 1}"
        for what, t in (("title", ax.title), ("x label", ax.xaxis.label), ("y label", ax.yaxis.label)):
            if t.get_visible() and t.get_text():
                texts.append((f"{name}'s {what}", i, t.get_window_extent(r)))
        for axis, which in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            # Only the ticks inside the view: matplotlib keeps labels for locations beyond it that it never draws.
            lo, hi = sorted(axis.get_view_interval())
            eps = (hi - lo) * 1e-9
            # Major and minor labels together, in the axis' order: a log axis' minor labels crowd its major ones.
            labelled = sorted(list(zip(axis.get_majorticklocs(), axis.get_ticklabels(which="major"))) +
                              list(zip(axis.get_minorticklocs(), axis.get_ticklabels(which="minor"))),
                              key=lambda x: x[0])
            inside = [(t, t.get_window_extent(r)) for loc, t in labelled
                      if t.get_visible() and t.get_text() and lo - eps <= loc <= hi + eps]
            for (t1, b1), (t2, b2) in zip(inside, inside[1:]):
                if _boxes_overlap(b1, b2):
                    out.append(f"{name}'s {which} tick labels {t1.get_text()!r} and {t2.get_text()!r} overlap")
            for t, b in inside:
                texts.append((f"{name}'s {which} tick label {t.get_text()!r}", i, b))
        leg = ax.get_legend()
        if leg is not None and leg.get_visible():
            lb = leg.get_window_extent(r)
            texts.append((f"{name}'s legend", i, lb))
            for j, other in enumerate(panels):
                if _boxes_overlap(lb, other.bbox):
                    out.append(f"{name}'s legend lies over the data of panel {j + 1}")
    for k, (w1, o1, b1) in enumerate(texts):
        if b1.x0 < -1 or b1.y0 < -1 or b1.x1 > W + 1 or b1.y1 > H + 1:
            out.append(f"{w1} is cut off at the figure's edge")
        for j, ax in enumerate(panels):
            if j != o1 and _boxes_overlap(b1, ax.bbox):
                out.append(f"{w1} lies over panel {j + 1}")
        for w2, o2, b2 in texts[k + 1:]:
            if o1 != o2 and _boxes_overlap(b1, b2):
                out.append(f"{w1} and {w2} overlap")
    return out


def save(fig, name):
    problems = layout_problems(fig)
    for p in problems[:5]:
        sys.stderr.write(f"{'error' if args.check_layout else 'warning'}: {name}: layout: {p}\n")
    if problems and args.check_layout:
        sys.exit(2)
    for fmt in FORMATS:
        p = os.path.join(args.out, f"{name}.{fmt}")
        fig.savefig(p, dpi=110)
        written.append(p)
    plt.close(fig)


def time_unit(seconds):
    return (3600.0, "hours") if seconds > 3 * 3600 else (60.0, "minutes") if seconds > 600 else (1.0, "seconds")


def jcts(r):
    return [x for x in job_columns(r)["jct_s"] if math.isfinite(x)]


def palette(n):
    """n distinct colours: tab10 or tab20 where they suffice, else hues stepped by the golden ratio (neighbours far
    apart), alternating in lightness."""
    if n <= 10:
        return [plt.cm.tab10(i) for i in range(n)]
    if n <= 20:
        return [plt.cm.tab20(i) for i in range(n)]
    import matplotlib.colors as mc
    return [mc.hsv_to_rgb(((i * 0.6180339887) % 1.0, 0.55 + 0.45 * ((i // 7) % 2), 0.95 - 0.35 * (i % 3 == 2)))
            for i in range(n)]


labels = list(dict.fromkeys(r["label"] for r in runs))
colors = dict(zip(labels, palette(len(labels))))  # one colour and one marker per policy, the same in every figure
markers = dict(zip(labels, (["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"] * (len(labels) // 10 + 1))))

# Student's t quantile t(0.975, n-1) for n-1 = 1..30 degrees of freedom; 1.96 beyond.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def ci95(values):
    """Half-width of the 95 % confidence interval of the mean over seeds (t distribution); 0 for one seed."""
    n = len(values)
    if n < 2:
        return 0.0
    return (T975[n - 2] if n - 2 < len(T975) else 1.96) * statistics.stdev(values) / math.sqrt(n)
loads = sorted({float(r["params"]["load"]) for r in runs if "load" in r["params"]})


def load_label():
    """What a sweep's --load meant: a trace's and luo2025's offered load; synergy-*'s arrivals per hour."""
    if args.load_label:
        return args.load_label
    traces = {summary(r["dir"]).get("trace", "") for r in runs if "load" in r["params"]}
    if traces and all(t.startswith("workload:synergy") for t in traces):
        return "arrivals per hour (synergy workload's --load)"
    return "offered load (GPU-s demanded / cluster GPU-s over the arrivals; --load)"


def context(only_load=None):
    """The figure's title: the runs' cluster(s), trace(s) and load(s)."""
    clusters, traces = [], []
    for r in runs:
        s = summary(r["dir"])
        for v, seen in ((s.get("cluster"), clusters), (s.get("trace"), traces)):
            if v and v not in seen:
                seen.append(v)
    text = ", ".join(clusters or ["cluster ?"]) + "; " + ", ".join(os.path.basename(t) for t in traces or ["trace ?"])
    ls = [only_load] if only_load is not None else loads
    if ls:
        text += "; load = " + ", ".join(f"{x:g}" for x in ls)
    return text

WHERE_TEXT = (" (" + ", ".join(f"{k}={v}" for k, v in WHERE) + ")") if WHERE else ""


def panel_title(p):
    if p is None:
        return ""
    if args.panel_by == "load":
        return f"load = {float(p):g}"
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


def column_values(r, column):
    """A run's finished jobs' values of a jobs.csv column (seconds)."""
    return [x for x in job_columns(r)[column] if math.isfinite(x)]


CDF_POINTS = 4000


def cdf_figure(name, what, values, timed=True):
    """One CDF per policy of values(run), one panel per load (or --panel-by value); log x over two decades; timed:
    values are seconds, shown in the unit that suits them."""
    ps = panels if name in FIGURES else []
    if not ps:
        return
    ncol = min(3, max(1, len(ps)))
    nrow = max(1, math.ceil(len(ps) / ncol))
    per_run = {id(r): values(r) for r in runs}
    allv = [v for vs in per_run.values() for v in vs]
    unit, uname = time_unit(max(allv) if allv else 1) if timed else (1.0, "")
    # One x-range for every panel; log only when the values span more than two decades, and then at most six
    # decades: smaller values (a zero queueing delay, rounding noise of 1e-9 s) sit at the axis' left edge and still
    # count in the CDF, which is over every job.
    positive = [v / unit for v in allv if v > 0]
    log_x = bool(positive) and max(positive) / min(positive) > 100
    floor = max(min(positive), max(positive) / 1e6) if log_x else None
    clipped = log_x and any(v / unit < floor for v in allv)
    fig, axes = figure(nrow, ncol, figsize=(5.5 * ncol, 4.2 * nrow), squeeze=False, sharex=True, sharey=True)
    for k, load in enumerate(ps):
        ax = axes[k // ncol][k % ncol]
        for l in labels:
            vals = sorted(v / unit for r in runs if r["label"] == l and in_panel(r, load) for v in per_run[id(r)])
            n = len(vals)
            if not n:
                continue
            # At most CDF_POINTS points per line, at evenly spaced ranks (a whole trace is 100k jobs per run).
            ranks = range(n) if n <= CDF_POINTS else sorted({round(i * (n - 1) / (CDF_POINTS - 1)) for i in range(CDF_POINTS)})
            xs = [max(vals[i], floor) if log_x else vals[i] for i in ranks]
            ax.plot(xs, [(i + 1) / n for i in ranks], label=l, color=colors[l], lw=1.6)
        if log_x:
            ax.set_xscale("log")
        scale = (", log scale" + (f"; below {floor:.2g} at the left edge" if clipped else "")) if log_x else ""
        ax.set_xlabel(f"{what} ({uname}{scale})" if uname else f"{what}{f' ({scale[2:]})' if scale else ''}")
        ax.tick_params(labelbottom=True, labelleft=True)
        ax.set_ylabel("fraction of jobs")
        ax.set_ylim(0, 1.01)
        ax.grid(alpha=0.3)
        ax.set_title(f"{what} CDF" + (f", {panel_title(load) if args.panel_by else f'load = {load:g}'}"
                                      if load is not None else "") + WHERE_TEXT, fontsize=10)
    for k in range(len(ps), nrow * ncol):
        axes[k // ncol][k % ncol].axis("off")
    legend_outside(fig, list(axes.flat))
    fig.suptitle(context(), fontsize=10)
    save(fig, name)


cdf_figure("jct_cdf", "job completion time", jcts)
cdf_figure("queue_cdf", "queueing delay", lambda r: column_values(r, "queue_s"))
# Finish-time fairness (Mahajan et al.'s rho, jobs.csv ftf_rho): 1 = as fast as on its fair share, above 1 = wronged.
cdf_figure("ftf_cdf", "finish-time fairness rho", lambda r: column_values(r, "ftf_rho"), timed=False)

# 1b. Mean JCT by the jobs' GPU count (buckets 1, 2-4, 5-8, 9+): one bar per policy (the runs pooled), the number
#     of jobs of each bucket under its label. Large jobs are where placement policies differ.
BUCKETS = [("1 GPU", 1, 1), ("2-4", 2, 4), ("5-8", 5, 8), ("9+", 9, 10 ** 9)]
if "jct_by_gpus" in FIGURES:
    by = {l: [[] for _ in BUCKETS] for l in labels}
    for r in runs:
        cols = job_columns(r)
        for jct, g in zip(cols["jct_s"], cols["num_gpus"]):
            if not math.isfinite(jct) or math.isnan(g):
                continue
            for b, (_, lo, hi) in enumerate(BUCKETS):
                if lo <= int(g) <= hi:
                    by[r["label"]][b].append(jct)
    used = [b for b in range(len(BUCKETS)) if any(by[l][b] for l in labels)]
    if used:
        top = max(statistics.mean(by[l][b]) for l in labels for b in used if by[l][b])
        unit, uname = time_unit(top)
        fig, ax = figure(figsize=(max(6.0, 1.2 * len(used) * max(1, len(labels)) * 0.6 + 2), 4.4))
        width = 0.8 / max(1, len(labels))
        for i, l in enumerate(labels):
            xs = [k + (i - (len(labels) - 1) / 2) * width for k in range(len(used))]
            ys = [statistics.mean(by[l][b]) / unit if by[l][b] else 0 for b in used]
            ax.bar(xs, ys, width=width, label=l, color=colors[l])
        counts = [max(len(by[l][b]) for l in labels) for b in used]
        ax.set_xticks(range(len(used)))
        ax.set_xticklabels([f"{BUCKETS[b][0]}\n({n} jobs)" for b, n in zip(used, counts)])
        ax.set_xlabel("GPUs a job asks for")
        ax.set_ylabel(f"average JCT ({uname})")
        ax.set_title("average JCT by job size" + WHERE_TEXT, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
        legend_outside(fig, [ax])
        fig.suptitle(context(), fontsize=10)
        save(fig, "jct_by_gpus")

# 2. JCT metrics against load, mean and its 95 % confidence interval over seeds (Student's t): one column per metric, one row per
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
    fig, axes = figure(nrow, ncol, figsize=(5.8 * ncol, 4.4 * nrow), squeeze=False, sharex=True)
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
            es = [ci95(pts[x]) / unit for x in xs]
            ax.errorbar(xs, ys, yerr=es, label=l, color=colors[l], marker=markers[l], ms=4, capsize=3, lw=1.6)
        ax.set_xlabel(load_label())
        # Log y when asked, or when the series span more than a decade (one bad policy would squash the others).
        means = [statistics.mean(v) for pts in series.values() for v in pts.values() if v]
        log_y = args.log_y or (bool(means) and min(means) > 0 and max(means) / min(means) > 10)
        ax.set_ylabel(f"{title} ({uname}{', log scale' if log_y else ''})" if uname else f"{title}{' (log scale)' if log_y else ''}")
        if log_y:
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
            # Minor labels only where they fit: every one within a decade, 2 and 5 within two, none beyond.
            lo, hi = ax.get_ylim()
            span = math.log10(hi / lo) if lo > 0 and hi > lo else 99
            keep = {2, 3, 4, 5, 6, 7, 8, 9} if span <= 1 else {2, 5} if span <= 2 else set()

            def minor(y, _pos, keep=keep):
                m = round(y / 10 ** math.floor(math.log10(y) + 1e-9)) if y > 0 else 0
                return f"{y:g}" if m in keep else ""
            ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(minor))
        ax.set_title((f"{panel_title(panel)}: " if panel is not None else "") + f"{title} vs load (mean, 95 % CI over seeds, t)" + WHERE_TEXT,
                     fontsize=10)
        ax.grid(alpha=0.3)
    for k in range(len(grid), nrow * ncol):
        axes[k // ncol][k % ncol].axis("off")
    for ax in axes.flat:
        ax.tick_params(labelbottom=True)
    legend_outside(fig, list(axes.flat))
    fig.suptitle(context(), fontsize=10)
    save(fig, "jct_vs_load")

# 3. GPU utilisation and queue length over time: one run per policy (highest load, first seed).
chosen = {}
for r in runs:
    key = r["label"]
    rank = (-float(r["params"].get("load", 0)), int(r["params"].get("seed", 0)))
    if os.path.exists(os.path.join(r["dir"], "timeseries.csv")) and (key not in chosen or rank < chosen[key][0]):
        chosen[key] = (rank, r)
if chosen and "util_queue" in FIGURES:
    fig, (a1, a2) = figure(2, 1, figsize=(11, 6.5), sharex=True)
    series = {l: read_columns(os.path.join(r["dir"], "timeseries.csv"), ("time_s", "gpu_util", "queued"),
                              need=("time_s", "gpu_util", "queued")) for l, (_, r) in chosen.items()}
    tmax = max((cols["time_s"][-1] for cols in series.values() if cols["time_s"]), default=1)
    unit, uname = time_unit(tmax)
    # Each series is a step function (a value holds until the next row); plotted as its time-weighted mean over
    # consecutive windows of 1 % of the span (at least a minute), so a busy run is a line, not a band.
    window = max(tmax / 100.0, 60.0)

    def smooth(cols, key):
        ts = cols["time_s"]
        vs = cols[key]
        xs, ys = [], []
        k, start = 0, 0.0
        while start < tmax and ts:
            end = start + window
            area = 0.0
            while k + 1 < len(ts) and ts[k + 1] <= start:
                k += 1
            i = k
            while i < len(ts) and ts[i] < end:
                a = max(ts[i], start)
                b = min(ts[i + 1] if i + 1 < len(ts) else tmax, end)
                if b > a:
                    area += vs[i] * (b - a)
                i += 1
            covered = min(end, tmax) - max(start, ts[0])
            if covered > 0:
                xs.append((start + min(end, tmax)) / 2 / unit)
                ys.append(area / covered)
            start = end
        return xs, ys

    for l, rows in series.items():
        if not rows["time_s"]:
            continue
        a1.plot(*smooth(rows, "gpu_util"), label=l, color=colors[l], lw=1.4)
        a2.plot(*smooth(rows, "queued"), label=l, color=colors[l], lw=1.4)
    a1.set_ylabel("GPU utilisation (busy / all GPUs)")
    a1.set_ylim(0, 1.05)
    a2.set_ylabel("jobs waiting in the queue")
    a2.set_xlabel(f"time ({uname})")
    title = f"GPU utilisation and queue length, mean over {window / unit:.3g}-{uname[:-1]} windows"
    if loads:
        title += " (highest load, first seed of each policy)"
    a1.set_title(title, fontsize=10)
    fig.suptitle(context(max(loads) if loads else None), fontsize=10)
    for a in (a1, a2):
        a.grid(alpha=0.3)
    legend_outside(fig, [a1, a2])
    save(fig, "util_queue")

# 3b. Elastic runs: GPUs per job over time (elastic.csv: every stretch an elastic job held a number of GPUs), one
#     panel per policy (the run chosen above): the time-weighted mean GPUs per running elastic job over windows of 1 % of
#     the span, and the allocations of the jobs whose GPU count changed most often, one step line each.
TRACKED = 8
elastic = []
for _, r in sorted(chosen.values(), key=lambda x: x[0]) if "elastic_gpus" in FIGURES else []:
    p = os.path.join(r["dir"], "elastic.csv")
    if os.path.exists(p):
        rows = [(x["job_id"], float(x["start_s"]), float(x["end_s"]), int(x["gpus"]))
                for x in read_csv(p, need=("job_id", "start_s", "end_s", "gpus"))]
        if rows:
            elastic.append((r, rows))
if elastic:
    fig, axes = figure(len(elastic), 1, figsize=(11, 3.2 * len(elastic) + 0.8), squeeze=False, sharex=True)
    tmax = max(b for _, rows in elastic for _, _, b, _ in rows)
    unit, uname = time_unit(tmax)
    window = max(tmax / 100.0, 60.0)
    nwin = max(1, math.ceil(tmax / window))
    for ax, (r, rows) in zip(axes[:, 0], elastic):
        held = [0.0] * nwin  # GPU-seconds of running elastic jobs per window
        ran = [0.0] * nwin   # job-seconds of running elastic jobs per window
        for _, a, b, g in rows:
            k = int(a // window)
            while k < nwin and k * window < b:
                o = min(b, (k + 1) * window) - max(a, k * window)
                if o > 0:
                    held[k] += g * o
                    ran[k] += o
                k += 1
        xs = [(k + 0.5) * window / unit for k in range(nwin) if ran[k] > 0]
        ys = [held[k] / ran[k] for k in range(nwin) if ran[k] > 0]
        by_job = {}
        for job, a, b, g in sorted(rows, key=lambda x: (x[1], x[0])):
            by_job.setdefault(job, []).append((a, b, g))
        # The jobs whose count changed most: a change is a stretch whose GPU count differs from the one before it.
        changes = {j: sum(1 for x, y in zip(st, st[1:]) if x[2] != y[2]) for j, st in by_job.items()}
        top = sorted(by_job, key=lambda j: (-changes[j], j))[:TRACKED]
        jc = dict(zip(top, palette(max(len(top), 10))))
        for job in top:
            px, py = [], []
            for a, b, g in by_job[job]:
                if px and a > px[-1] * unit + 1e-9:  # a gap (waiting, restarting): no GPUs
                    px += [px[-1], a / unit]
                    py += [0, 0]
                px += [a / unit, b / unit]
                py += [g, g]
            ax.plot(px, py, color=jc[job], lw=1.0, alpha=0.85, label="_nolegend_")
        ax.plot(xs, ys, color="black", lw=2.0, label="mean GPUs per running elastic job")
        ax.plot([], [], color="grey", lw=1.0, label=f"one job (the {len(top)} whose GPU count changed most)")
        ax.set_ylabel("GPUs")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.set_title(f"{r['label']}: {len(by_job)} elastic jobs, {sum(changes.values())} changes of GPU count", fontsize=9)
        ax.tick_params(labelbottom=True)
    axes[-1][0].set_xlabel(f"time ({uname}); mean over {window / unit:.3g}-{uname[:-1]} windows")
    legend_outside(fig, list(axes[:, 0]))
    fig.suptitle("GPUs per elastic job over time; " + context(max(loads) if loads else None), fontsize=10)
    save(fig, "elastic_gpus")

# 4. Gantt chart of GPU occupancy: one panel per policy (the run chosen above), any run size.
def stretches_of(d):
    """(job, start, end, GPU row) of a run, and the caption's note when the rows are a sample of the cluster."""
    out, note = [], ""
    if os.path.exists(os.path.join(d, "gpus.csv")):
        for x in read_csv(os.path.join(d, "gpus.csv"), need=("job_id", "start_s", "end_s", "server", "gpu")):
            out.append((x["job_id"], float(x["start_s"]), float(x["end_s"]), f"s{x['server']}:g{x['gpu']}"))
        s = summary(d)
        if "gantt_servers" in s:
            note = (f"sampled: servers 0-{int(s['gantt_servers']) - 1} of {int(s['cluster_servers'])}, every job that "
                    "ran on them")
    elif os.path.exists(os.path.join(d, "runs.csv")):
        raw = [(x["job_id"], float(x["start_s"]), float(x["end_s"]), x["node"], int(x["gpus"]))
               for x in read_csv(os.path.join(d, "runs.csv"), need=("job_id", "start_s", "end_s", "node", "gpus"))]
        # runs.csv has GPUs per node, not their indices: stack each node's stretches onto free rows.
        rows_free = {}
        for job, a, b, node, g in sorted(raw, key=lambda s: (s[1], s[0])):
            slots = rows_free.setdefault(node, [])
            for _ in range(g):
                for i, until in enumerate(slots):
                    if until <= a + 1e-9:
                        slots[i] = b
                        out.append((job, a, b, f"{node}:{i}"))
                        break
                else:
                    slots.append(b)
                    out.append((job, a, b, f"{node}:{len(slots) - 1}"))
    return out, note


def row_key(n):
    return [int(p) if p.isdigit() else p for p in n.replace("s", "").replace("g", "").replace("n", "").split(":")]


gantts = []
for _, r in sorted(chosen.values(), key=lambda x: x[0]) if "gantt" in FIGURES else []:
    st, note = stretches_of(r["dir"])
    if st:
        gantts.append((r, st, note))
if gantts:
    heights = [max(2.2, min(0.2, 6.4 / max(1, len({s[3] for s in st}))) * len({s[3] for s in st}) + 1.0)
               for _, st, _ in gantts]
    fig, axes = figure(len(gantts), 1, figsize=(12, sum(heights) + 0.6), squeeze=False, sharex=True,
                             gridspec_kw={"height_ratios": heights})
    tmax = max(s[2] for _, st, _ in gantts for s in st)
    unit, uname = time_unit(tmax)
    for ax, (r, st, note) in zip(axes[:, 0], gantts):
        names = sorted({s[3] for s in st}, key=row_key)
        row = {n: i for i, n in enumerate(names)}
        jobs = sorted({s[0] for s in st}, key=lambda j: (len(j), j))
        jc = dict(zip(jobs, palette(max(len(jobs), 21))))  # distinct colours, neighbours far apart
        # One collection of rectangles per panel, rasterised inside vector files: a real trace's tens of thousands of
        # stretches were one artist each (minutes, and a 124 MB SVG); now seconds and a few hundred KB (issue 46).
        rects = [((a / unit, row[name] - 0.4), (b / unit, row[name] - 0.4), (b / unit, row[name] + 0.4),
                  (a / unit, row[name] + 0.4)) for job, a, b, name in st]
        bars = PolyCollection(rects, facecolors=[jc[job] for job, _, _, _ in st], edgecolors="black",
                              linewidths=0.3 if len(st) < 2000 else 0.0, rasterized=True)
        ax.add_collection(bars)
        ax.set_xlim(0, tmax / unit * 1.01)
        ax.set_ylim(-0.6, len(names) - 0.4)
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels(names, fontsize=6 if len(names) > 40 else 7)
        ax.invert_yaxis()
        ax.set_ylabel("GPU")
        ax.grid(axis="x", alpha=0.3)
        ax.set_title(f"{r['label']}: {len(jobs)} jobs, one colour per job" + (f" ({note})" if note else ""), fontsize=9)
        ax.tick_params(labelbottom=True)
    axes[-1][0].set_xlabel(f"time ({uname})")
    fig.suptitle("GPU occupancy; " + context(max(loads) if loads else None), fontsize=10)
    save(fig, "gantt")

for p in written:
    print(p)
