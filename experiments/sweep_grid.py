"""The experiments' shared pieces: a list of `simulate` runs as one `ringmaster sweep --grid` (docs/sweep.md),
and the table that run.py writes into its README."""
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


def write_readme_table(folder, table, name="table"):
    """Replaces what stands between <!-- NAME --> and <!-- /NAME --> in folder/README.md with `table`."""
    readme = os.path.join(folder, "README.md")
    if not os.path.exists(readme):
        return
    with open(readme) as f:
        text = f.read()
    a, b = f"<!-- {name} -->", f"<!-- /{name} -->"
    if a in text and b in text:
        text = text[: text.index(a) + len(a)] + "\n" + table + "\n" + text[text.index(b):]
        with open(readme, "w") as f:
            f.write(text)
