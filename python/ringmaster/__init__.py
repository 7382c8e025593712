"""ringmaster: a scheduler and trace-driven simulator for distributed deep-learning training jobs.

    import ringmaster
    runs = ringmaster.simulate(cluster="tiny", trace="builtin:demo", policy=["fifo", "srsf"])
    runs["srsf"].jobs          # a pandas DataFrame: jobs.csv
    runs["srsf"].timeseries    # timeseries.csv
    runs["srsf"].summary       # summary.json as a dict

Keyword arguments are simulate's command-line options with `_` for `-` (max_jobs for --max-jobs), checked by the
same code with the same messages (a bad one raises ringmaster.InputError). A policy may be a class written in
Python (a subclass of ringmaster.Policy): see docs/python.md.
"""
import io
import json
import warnings

from . import _core

__all__ = ["simulate", "Policy", "Result", "InputError", "JobView"]

InputError = getattr(_core, "InputError", ValueError)
JobView = _core.JobView


class Policy:
    """A policy written in Python. A queue order defines ``key(self, job) -> number``: the waiting job with the
    smallest key is served first (ties: earlier submit, then lower id), ``job`` a read-only ringmaster.JobView at
    the pass's time. Its flags, as a C++ order declares them:

    preemptive                a running job with a larger key than a waiting one may be stopped for it
    backfill                  later jobs may start when an earlier one cannot (None: as preemptive)
    key_fixed_while_waiting   a waiting job's key does not change while it waits (lets the scheduler index it)
    running_key               how a running job's key moves: "moves" (anything), "falls" (never rises), "steps"
                              (constant between the times next_change gives)
    next_change(self, job)    when a running job's key next changes (microseconds, e.g.
                              job.first_time_attained(x)), or None; define it with running_key = "steps"
    """

    preemptive = False
    backfill = None
    key_fixed_while_waiting = False
    running_key = "moves"
    next_change = None


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

    def __repr__(self):
        return f"<ringmaster.Table {len(self.rows)} rows x {len(self.columns)} columns>"


def _table(text):
    try:
        import pandas as pd
    except ImportError:
        return Table(text)
    return pd.read_csv(io.StringIO(text))


class Result:
    """One run: ``jobs`` and ``timeseries`` (pandas DataFrames, as jobs.csv and timeseries.csv), ``gpus`` (gpus.csv
    for small runs, else None), ``summary`` (summary.json as a dict), ``policy`` (its text)."""

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
    name = getattr(p, "__name__", type(p).__name__)
    return _core.register_policy(p), name


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
        for p in [policy] if isinstance(policy, str) or not isinstance(policy, (list, tuple)) else policy:
            text, name = _policy_text(p)
            args += ["--policy", text]
            names.append(name)
    if out is not None:
        args += ["--out", str(out)]
    args += _option_args(options)
    raws = _core.run_simulate(args, out is not None)
    if not names:
        names = [r["policy"] for r in raws]
    results = {}
    for name, raw in zip(names, raws):
        r = Result(raw)
        for w in r.warnings:
            warnings.warn(f"{name}: {w}", stacklevel=2)
        results[name] = r
    return results
