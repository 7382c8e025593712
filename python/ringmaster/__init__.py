"""ringmaster: a scheduler and trace-driven simulator for distributed deep-learning training jobs.

    import ringmaster
    runs = ringmaster.simulate(cluster="tiny", trace="builtin:demo", policy=["fifo", "srsf"])
    runs["srsf"].jobs          # a pandas DataFrame: jobs.csv
    runs["srsf"].timeseries    # timeseries.csv
    runs["srsf"].summary       # summary.json as a dict

Keyword arguments are simulate's command-line options with `_` for `-` (max_jobs for --max-jobs), checked by the
same code with the same messages (a bad one raises ringmaster.InputError). A policy may be a class written in
Python (a subclass of ringmaster.Policy): see docs/python.md.

    sw = ringmaster.sweep("out/sweep", cluster="tiny", trace="builtin:demo", policy=["fifo", "srsf"],
                          load=[0.5, 1.0], seeds="1-3")
    sw.results                 # results.csv as a DataFrame: one row per run
    sw.run(0).jobs             # one run's outputs, as simulate() returns them
"""
import inspect
import io
import json
import os
import re
import shutil
import sys
import warnings

from . import _core

__all__ = ["simulate", "sweep", "load", "Loaded", "Policy", "Decisions", "order", "placement", "allocation", "scheduler", "Result", "InputError", "JobView", "ServerView", "ClusterView"]

InputError = getattr(_core, "InputError", ValueError)
__version__ = getattr(_core, "version", "unknown")  # the git describe of the build, as `ringmaster --version`
JobView = _core.JobView
ServerView = _core.ServerView
ClusterView = _core.ClusterView


class Policy:
    """A policy written in Python, at one of the scheduler's extension points, told by the methods it defines
    (or by a ``point`` attribute: "order", "placement", "allocation", "scheduler"). Views are read-only and valid
    during the call; docs/python.md lists their fields.

    A queue order defines ``key(self, job) -> number``: the waiting job with the smallest key is served first (ties:
    earlier submit, then lower id), ``job`` a ringmaster.JobView at the pass's time. Its flags, as a C++ order's:

    preemptive                a running job with a larger key than a waiting one may be stopped for it
    backfill                  later jobs may start when an earlier one cannot (None: as preemptive)
    key_fixed_while_waiting   a waiting job's key does not change while it waits (lets the scheduler index it)
    running_key               how a running job's key moves: "moves" (anything), "falls" (never rises), "steps"
                              (constant between the times next_change gives)
    next_change(self, job)    when a running job's key next changes (microseconds, e.g.
                              job.first_time_attained(x)), or None; define it with running_key = "steps"

    A placement defines ``place(self, job, servers) -> [(server, gpu), ...] | None`` over the servers with a free
    GPU (ringmaster.ServerView), or ``filter(self, job, server) -> bool`` and/or ``score(self, job, server) ->
    number``: the servers kept, by score descending (ties: lower index), give their free GPUs best first.

    An allocation defines ``allocate(self, job, servers) -> [(cpus, mem_gb), ...] | None``: one share per server
    of the job's placement (each entry a dict: server, gpus, fair_cpus, fair_mem_gb, best_cpus, best_mem_gb), or
    None to leave the job waiting (``may_refuse = False`` declares it never does, for whole schedulers).

    A whole scheduler defines ``schedule(self, view) -> ringmaster.Decisions | None``, called once per scheduling
    pass with a ringmaster.ClusterView (now_s, jobs, waiting, running, servers, free_gpus).
    """

    preemptive = False
    backfill = None
    key_fixed_while_waiting = False
    running_key = "moves"
    next_change = None


def _made(name, attrs):
    """A Policy subclass made by order()/placement()/..., belonging to the module that called them (so that a sweep
    can name it by its file)."""
    cls = type(name, (Policy,), attrs)
    cls.__module__ = sys._getframe(2).f_globals.get("__name__", cls.__module__)
    return cls


def order(key, name=None, **flags):
    """A queue order from a plain function key(job) -> number, with the flags of ringmaster.Policy as keywords
    (preemptive=True, ...). A plain function given as a policy is an order too (its attributes are the flags)."""
    return _made(name or key.__name__, dict(flags, key=staticmethod(key)))


def placement(score=None, filter=None, place=None, name=None):
    """A placement from plain functions: place(job, servers), or score(job, server) and/or filter(job, server)."""
    if place is None and score is None and filter is None:
        raise TypeError("ringmaster.placement needs place, or score and/or filter")
    methods = {k: staticmethod(f) for k, f in (("score", score), ("filter", filter), ("place", place)) if f}
    return _made(name or next(iter(methods.values())).__func__.__name__, methods)


def allocation(allocate, name=None, may_refuse=True):
    """A CPU/DRAM allocation from a plain function allocate(job, servers) -> [(cpus, mem_gb), ...] | None."""
    return _made(name or allocate.__name__, {"allocate": staticmethod(allocate), "may_refuse": may_refuse})


def scheduler(schedule, name=None):
    """A whole scheduler from a plain function schedule(view) -> Decisions | dict | None."""
    return _made(name or schedule.__name__, {"schedule": staticmethod(schedule)})


class Decisions:
    """What a whole Python scheduler decides at a pass: preemptions (applied first), then resizes of running elastic
    jobs, then starts in order, and an optional time to be called again even if nothing happens (the engine calls at
    every arrival and finish)."""

    def __init__(self):
        self.starts = []
        self.preempts = []
        self.resizes = []
        self.wake_at_s = None

    def start(self, job, gpus):
        """Start a waiting job (a JobView or its id) on `gpus`, a list of (server, gpu) pairs, as many as it asks."""
        self.starts.append((job, list(gpus)))
        return self

    def preempt(self, job):
        """Stop a running job (it waits again, its progress kept); its GPUs are free for this pass's starts."""
        self.preempts.append(job)
        return self

    def resize(self, job, gpus):
        """Give a running elastic job (job.elastic) another set of GPUs: grow, shrink or move, within
        [job.gpus_min, job.gpus_max]. Its old GPUs are free to this pass's resizes and starts; it pays the restart
        delay (docs/elastic.md) and its reallocations count."""
        self.resizes.append((job, list(gpus)))
        return self

    def wake_at(self, seconds):
        """Be called again at this simulated time (seconds, after now)."""
        self.wake_at_s = seconds
        return self

    def __repr__(self):
        return (f"<ringmaster.Decisions {len(self.starts)} starts, {len(self.preempts)} preemptions, "
                f"{len(self.resizes)} resizes>")


class Table:
    """A CSV's rows where pandas is not installed (an interpreter other than Debian's python3): len(), iteration over
    rows as dicts, t["column"] as a list, t.columns. With python3-pandas, results are DataFrames instead."""

    def __init__(self, text):
        import csv

        reader = csv.DictReader(io.StringIO(text))
        self.columns = list(reader.fieldnames or [])
        self.rows = list(reader)

    def __len__(self):
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __getitem__(self, column):
        return [r[column] for r in self.rows]

    @property
    def shape(self):
        return (len(self.rows), len(self.columns))

    def __repr__(self):
        return f"<ringmaster.Table {len(self.rows)} rows x {len(self.columns)} columns>"


_WARNED_NO_PANDAS = False


class PandasMissingWarning(UserWarning):
    """pandas is not importable: results are ringmaster.Table objects. (A UserWarning, shown by default: Python
    ignores ImportWarning unless asked.)"""


def _table(text):
    global _WARNED_NO_PANDAS
    try:
        import pandas as pd
    except ImportError:
        if not _WARNED_NO_PANDAS:  # said once per process, naming the interpreter (issue 46: it was silent)
            _WARNED_NO_PANDAS = True
            warnings.warn(f"ringmaster: pandas is not importable by {sys.executable} (Python {sys.version.split()[0]}): "
                          "results are ringmaster.Table objects (rows as dicts, .shape, t[column]); for DataFrames run "
                          "Debian's /usr/bin/python3 with python3-pandas (apt-get install python3-pandas)",
                          PandasMissingWarning, stacklevel=4)
        return Table(text)
    return pd.read_csv(io.StringIO(text))


class Result:
    """One run: ``jobs`` and ``timeseries`` (pandas DataFrames, as jobs.csv and timeseries.csv), ``gpus`` (gpus.csv:
    every GPU of a small run, the first servers of a large one; None where the model writes none), ``summary`` (summary.json as a dict), ``policy`` (its text)."""

    def __init__(self, raw):
        self.policy = raw["policy"]
        self.jobs = _table(raw["jobs_csv"])
        self.timeseries = _table(raw["timeseries_csv"])
        self.gpus = _table(raw["gpus_csv"]) if raw["gpus_csv"] else None
        self.summary = json.loads(raw["summary_json"])
        self.warnings = list(raw["warnings"])

    def __repr__(self):
        s = self.summary
        return "<ringmaster.Result {}: {} jobs, avg JCT {:.1f} s, makespan {:.1f} s>".format(
            self.policy, s.get("jobs"), s.get("avg_jct_s", 0.0), s.get("makespan_s", 0.0))


def _policy_text(p):
    """A policy string, a Python class (or instance), or a tuple of parts joined with '+'."""
    if isinstance(p, str):
        return p, p
    if isinstance(p, (tuple, list)):
        texts = [_policy_text(x) for x in p]
        return "+".join(t for t, _ in texts), "+".join(n for _, n in texts)
    # Its label: a `label` attribute where it has one, else the class's name (an instance: its class's).
    name = getattr(p, "label", None) or getattr(p, "__name__", type(p).__name__)
    return _core.register_policy(p), str(name)


def _option_args(options):
    args = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                args += [flag, str(v)]
        else:
            args += [flag, str(value)]
    return args


def simulate(cluster=None, trace=None, policy=None, out=None, **options):
    """Simulates `trace` on `cluster` under each policy; returns {policy: Result} in the order given.

    Writes files only when `out` is given (the CLI's folders: one per policy when there are several)."""
    args = []
    if cluster is not None:
        args += ["--cluster", str(cluster)]
    if trace is not None:
        args += ["--trace", str(trace)]
    names = []
    if policy is not None:
        # {label: policy} names each policy; else a class's `label` attribute or name, a string's own label.
        given = (list(policy.items()) if isinstance(policy, dict) else
                 [(None, p) for p in ([policy] if isinstance(policy, str) or not isinstance(policy, (list, tuple))
                                      else policy)])
        for label, p in given:
            text, name = _policy_text(p)
            if label is not None:
                name = str(label)
                text = f"{name}={text}"
            elif text == name:  # a policy string: its label is the CLI's (LABEL=SPEC, or the spec)
                name = None
            elif re.fullmatch(r"[A-Za-z0-9_.+-]+", name):  # a class's name labels it: summary.json, folder names
                text = f"{name}={text}"
            args += ["--policy", text]
            names.append(name)
    if out is not None:
        args += ["--out", str(out)]
    args += _option_args(options)
    raws = _core.run_simulate(args, out is not None)
    if not names:
        names = [None] * len(raws)
    names = [n if n is not None else r.get("label", r["policy"]) for n, r in zip(names, raws)]
    results = {}
    for name, raw in zip(names, raws):
        base, k = name, 2
        while name in results:  # two policies of one name (two lambdas): the second is "name#2"
            name, k = f"{base}#{k}", k + 1
        r = Result(raw)
        for w in r.warnings:
            warnings.warn(f"{name}: {w}", stacklevel=2)
        results[name] = r
    return results


def _file_policy_text(p):
    """A sweep's runs are processes of the ringmaster binary: a Python class goes to them as its file and name."""
    if isinstance(p, str):
        return p
    if isinstance(p, (tuple, list)):
        return "+".join(_file_policy_text(x) for x in p)
    if not (inspect.isclass(p) or inspect.isfunction(p)):
        raise InputError(f"--policy: {type(p).__name__}: a sweep builds its policies in each run: give the class (or "
                         "function), not an instance")
    module = sys.modules.get(p.__module__)
    path = getattr(module, "__file__", None)
    # Its name in its file: the one it is bound to there (ringmaster.order(...) makes classes named after the key).
    names = [k for k, v in vars(module).items() if v is p] if module else []
    name = p.__qualname__ if p.__qualname__ in names else (names[0] if names else p.__qualname__)
    # A class of the running script (__main__) would re-run the whole script in every cell: refused as well.
    if not path or not names or p.__module__ == "__main__" or not os.path.isfile(path):
        raise InputError(f"--policy: {name}: a sweep runs each cell as its own process, so a Python policy must be a "
                         "top-level class (or function) of a .py file that the script imports (give it, or the string "
                         "py:file=PATH;class=NAME)")
    return f"py:file={os.path.abspath(path)};class={name}"


def _binary():
    """The ringmaster binary a sweep's runs use: $RINGMASTER_BIN, the one built beside this module, or PATH's."""
    for candidate in (os.environ.get("RINGMASTER_BIN"), getattr(_core, "BUILD_BINARY", None), shutil.which("ringmaster")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise InputError("sweep: no ringmaster binary: build the project (its build/ringmaster), or set RINGMASTER_BIN")


class Sweep:
    """A sweep's folder: ``results`` (results.csv as a DataFrame: the grid's parameters, status, every summary.json
    key), ``status`` (0 all runs complete, 1 some failed: their rows say why), ``out``, and ``run(i)``: run i's
    outputs as a Result."""

    def __init__(self, out, status):
        self.out = str(out)
        self.status = status
        with open(os.path.join(self.out, "results.csv")) as f:
            self.results = _table(f.read())

    def run(self, index):
        d = os.path.join(self.out, "runs", f"{int(index):05d}")
        raw = {"warnings": []}
        with open(os.path.join(d, "summary.json")) as f:
            raw["summary_json"] = f.read()
        raw["policy"] = json.loads(raw["summary_json"]).get("policy", "")
        for key, name in (("jobs_csv", "jobs.csv"), ("timeseries_csv", "timeseries.csv"), ("gpus_csv", "gpus.csv")):
            path = os.path.join(d, name)
            raw[key] = open(path).read() if os.path.exists(path) else ""
        return Result(raw)

    def __repr__(self):
        return f"<ringmaster.Sweep {self.out}: {len(self.results)} runs, status {self.status}>"


def sweep(out, cluster=None, trace=None, policy=None, **options):
    """Runs a grid of simulate runs as `ringmaster sweep` does (docs/sweep.md): the same folder layout under `out`
    (runs/NNNNN/, results.csv), resumable (a second call skips the runs already complete), `parallel` runs at a
    time. Every keyword is a simulate or sweep option with `_` for `-`; a list gives one grid axis (load=[0.5, 1.0],
    policy=["fifo", "srsf"]), a string may be a range ("0.5:0.9:0.1", seeds="1-5"). Returns a Sweep."""
    args = []
    for flag, value in (("--cluster", cluster), ("--trace", trace)):
        for v in [] if value is None else [value] if isinstance(value, str) else list(value):
            args += [flag, str(v)]
    if policy is not None:
        if isinstance(policy, dict):  # {label: policy}: each run's folder, summary.json and legends by its label
            args += [a for label, p in policy.items() for a in ("--policy", f"{label}={_file_policy_text(p)}")]
        else:
            for p in [policy] if isinstance(policy, str) or not isinstance(policy, (list, tuple)) else policy:
                label = getattr(p, "label", None) if not isinstance(p, (str, tuple, list)) else None
                args += ["--policy", (f"{label}=" if label else "") + _file_policy_text(p)]
    args += _option_args(options)
    args += ["--out", str(out)]
    status = _core.run_sweep(args, _binary())
    return Sweep(out, status)


class Loaded:
    """Every run under a folder as tidy tables (ringmaster.load): ``runs`` has one row per run (``run``: its folder
    relative to the one loaded, ``policy``: its label, the sweep's parameters as columns, then every number of its
    summary.json), ``jobs`` every run's jobs.csv rows with the run's ``run``, ``policy`` and parameters in front."""

    def __init__(self, path, runs, jobs):
        self.path, self.runs, self.jobs = path, runs, jobs

    def __repr__(self):
        return f"<ringmaster.Loaded {self.path}: {len(self.runs)} runs, {len(self.jobs)} jobs>"

    def _repr_html_(self):
        head = getattr(self.runs, "_repr_html_", None)
        return (f"<p><b>ringmaster.load({html_escape(self.path)})</b>: {len(self.runs)} runs, {len(self.jobs)} jobs</p>"
                + (head() if head else f"<pre>{html_escape(repr(self.runs))}</pre>"))


def html_escape(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def load(path):
    """Reads what ringmaster wrote under `path`, whatever made it: one simulate/replay/serve run (jobs.csv there), a
    multi-policy simulate folder (one sub-folder per policy) or a sweep (results.csv, grid.json, runs/), and returns a
    Loaded: ``runs`` (runs x figures) and ``jobs`` (runs x jobs), tidy, for a notebook's groupby and plots."""
    import csv

    path = str(path)
    found = []  # (run folder, {parameter: value})
    grid = os.path.join(path, "grid.json")
    if os.path.exists(os.path.join(path, "jobs.csv")):
        found.append((path, {}))
    elif os.path.exists(grid):
        with open(grid) as f:
            cells = json.load(f)["cells"]
        for cell in cells:
            d = os.path.join(path, "runs", "%05d" % cell["index"])
            if os.path.exists(os.path.join(d, "jobs.csv")) and os.path.exists(os.path.join(d, "summary.json")):
                found.append((d, {k: v for k, v in cell["params"] if k != "policy"}))
    elif os.path.isdir(path):
        for e in sorted(os.listdir(path)):
            d = os.path.join(path, e)
            if os.path.exists(os.path.join(d, "jobs.csv")) and os.path.exists(os.path.join(d, "summary.json")):
                found.append((d, {}))
    if not found:
        raise InputError(f"{path}: no run in it (a folder of `ringmaster simulate`, `sweep`, `replay` or `serve`)")
    params = list(dict.fromkeys(k for _, p in found for k in p))
    run_rows, figure_keys, job_rows, job_cols = [], [], [], []
    for d, p in found:
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        rel = os.path.relpath(d, path)
        front = {"run": "." if rel == "." else rel, "policy": s.get("policy_label", s.get("policy", ""))}
        front.update({k: p.get(k, "") for k in params})
        row = dict(front)
        for k, v in s.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                row[k] = v
                if k not in figure_keys:
                    figure_keys.append(k)
        run_rows.append(row)
        with open(os.path.join(d, "jobs.csv"), newline="") as f:
            reader = csv.DictReader(f)
            for c in reader.fieldnames or []:
                if c not in job_cols:
                    job_cols.append(c)
            for j in reader:
                job_rows.append({**front, **j})

    def text(rows, columns):
        out = io.StringIO()
        w = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow(r)
        return out.getvalue()

    lead = ["run", "policy"] + params
    return Loaded(path, _table(text(run_rows, lead + figure_keys)), _table(text(job_rows, lead + job_cols)))
