"""The experiments' way to run a list of `simulate` runs: one `ringmaster sweep --grid` (docs/sweep.md)."""
import json
import os
import subprocess
import tempfile


def sweep_grid(binary, runs, tmp, workers=2):
    """runs: [(label, simulate arguments)] -> [run folder], in the same order (each holds summary.json, jobs.csv)."""
    out = tempfile.mkdtemp(dir=tmp)
    grid = os.path.join(out, "cells.json")
    with open(grid, "w") as f:
        json.dump({"cells": [{"index": i, "params": [["run", str(label)]], "args": list(a)}
                             for i, (label, a) in enumerate(runs)]}, f)
    subprocess.run([binary, "sweep", "--grid", grid, "-j", str(workers), "-q", "--out", out], check=True)
    return [os.path.join(out, "runs", "%05d" % i) for i in range(len(runs))]


def summary(run_dir):
    with open(os.path.join(run_dir, "summary.json")) as f:
        return json.load(f)
