#!/usr/bin/python3
"""Every command shown in README.md and docs/*.md runs (issue 15), every cluster YAML example there loads and every
Python example compiles (issue 29): extracted from the code blocks, run in
document order in one temporary folder per file, with `build/ringmaster` / `ringmaster` replaced by the binary
and `../shared` by the shared folder. A command must exit 0, unless it is
  - a synopsis (placeholders such as DIR, `...`, `[optional]`, `a | b`): printed, not run;
  - one of COVERED: it needs a real Slurm, so the named test runs the same command against one (this script
    checks that the test exists and holds the command's subcommand).
A new documented command is run automatically; one that cannot run here must be added to COVERED with a reason.
Usage: doc_commands_test.py BINARY SOURCE_DIR
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

BIN, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
SHARED = os.path.abspath(os.path.join(SRC, "..", "shared"))
# command prefix -> (test script that runs it against a real Slurm, text that script must contain)
COVERED = {
    "ringmaster serve --backend slurm": ("tests/slurm/serve_test.sh", "serve --backend slurm"),
    "ringmaster replay --backend slurm": ("tests/slurm/replay_test.sh", "replay --backend slurm"),
    "ringmaster simulate --cluster real/cluster.yaml": ("tests/slurm/replay_test.sh", "trace_scaled.csv"),
    "ringmaster compare sim real": ("tests/slurm/replay_test.sh", "compare"),
    "sudo experiments/slurm-fidelity/run.sh": ("tests/slurm/replay_test.sh", "replay --backend slurm"),
    "ringmaster status --state": ("tests/slurm/operate_test.sh", "status --state"),
}
# Files a command names that the docs assume the reader has: made before the file's commands run.
SETUP = {
    "my_cluster.yaml": "name: my-cluster\nservers:\n  - {count: 16, gpus: 4, nic_gbps: 10}\n",
}


def commands(path):
    """(line, command) of every ringmaster command in the file's code blocks (fenced or indented)."""
    out, fenced, pending, start = [], False, None, 0
    for n, raw in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if raw.strip().startswith("```"):
            fenced = not fenced
            continue
        in_block = fenced or raw.startswith("    ")
        line = raw.strip()
        if pending is not None:
            pending += " " + line.rstrip("\\").strip()
            if not line.endswith("\\"):
                out.append((start, pending))
                pending = None
            continue
        if not in_block or not re.match(r"(sudo )?(build/ringmaster|ringmaster|experiments/\S+/run\.sh)\b", line):
            continue
        line = re.sub(r"\s+#.*$", "", line)
        if line.endswith("\\"):
            pending, start = line.rstrip("\\").strip(), n
        else:
            out.append((n, line))
    return [(n, re.sub(r"\s+#.*$", "", c).strip()) for n, c in out]


def blocks(path, lang):
    """(line, text) of every fenced ```lang block of the file."""
    out, cur, start = [], None, 0
    for n, raw in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if cur is None and raw.strip() == "```" + lang:
            cur, start = [], n + 1
        elif cur is not None and raw.strip().startswith("```"):
            out.append((start, "\n".join(cur) + "\n"))
            cur = None
        elif cur is not None:
            cur.append(raw)
    return out


def is_synopsis(cmd):
    words = shlex.split(cmd.replace("[", " [ "), posix=True) if cmd.count('"') % 2 == 0 else cmd.split()
    return ("..." in cmd or " [" in cmd or " | " in cmd or
            any(re.fullmatch(r"[A-Z][A-Z_]*", w) for w in words[2:]))


def main():
    docs = [os.path.join(SRC, "README.md")] + sorted(
        os.path.join(SRC, "docs", f) for f in os.listdir(os.path.join(SRC, "docs")) if f.endswith(".md"))
    failures, ran, synopses, covered = [], 0, 0, 0
    for doc in docs:
        rel = os.path.relpath(doc, SRC)
        # The commands run in work/, beside a `shared` link, as in a checkout: what they leave to a default that
        # names ../shared (--data-dir's ../shared/traces) finds it, whatever machine's /tmp this is.
        top = tempfile.mkdtemp(prefix="rm-doc-")
        os.symlink(SHARED, os.path.join(top, "shared"))
        work = os.path.join(top, "work")
        os.mkdir(work)
        for name, text in SETUP.items():
            with open(os.path.join(work, name), "w") as f:
                f.write(text)
        # a trace for the commands that read the reader's own jobs.csv (README: `generate ... --out jobs.csv`)
        subprocess.run([BIN, "generate", "--workload", "wang2020", "--seed", "3", "--out", os.path.join(work, "jobs.csv")],
                       check=True)
        for n, cmd in commands(doc):
            plain = cmd.replace("build/ringmaster", "ringmaster")
            cover = next((v for k, v in COVERED.items() if plain.startswith(k)), None)
            if cover:
                script, needle = cover
                body = open(os.path.join(SRC, script)).read() if os.path.exists(os.path.join(SRC, script)) else ""
                if needle not in body:
                    failures.append(f"{rel}:{n}: {cmd}\n    said to be covered by {script}, which lacks '{needle}'")
                covered += 1
                print(f"covered  {rel}:{n}: {cmd}  ->  {script}")
                continue
            alts = plain.split(" | ")
            if len(alts) > 1 and all(re.fullmatch(r"[a-z-]+", a) for a in alts[1:]):  # `ringmaster a | b | c`
                plain = "; ".join([alts[0]] + ["ringmaster " + a for a in alts[1:]])
            elif is_synopsis(plain):
                synopses += 1
                print(f"synopsis {rel}:{n}: {cmd}")
                continue
            line = plain.replace("../shared", SHARED)
            # the repository's example files (docs/python.md: py:file=examples/policies/...)
            line = re.sub(r'(?<=[\s=:"])examples/', os.path.join(SRC, "examples") + "/", line)
            if line.startswith("ringmaster "):
                line = re.sub(r"(^|; )ringmaster ", lambda m: m.group(1) + shlex.quote(BIN) + " ", line)
            else:  # an experiment's script: run by the experiment's own checks, not here
                print(f"script   {rel}:{n}: {cmd} (minutes; its README holds its numbers)")
                continue
            r = subprocess.run(["bash", "-c", line], cwd=work, capture_output=True, text=True, timeout=600)
            ran += 1
            print(f"exit {r.returncode}   {rel}:{n}: {cmd}", flush=True)
            if r.returncode != 0:
                failures.append(f"{rel}:{n}: {cmd}\n    exit {r.returncode}: {(r.stderr or r.stdout).strip()[-600:]}")
        # Cluster YAML examples load as clusters (`validate --cluster`); Python examples compile (the runnable ones
        # run in tests/python_test.cpp).
        for n, text in blocks(doc, "yaml"):
            if "servers:" not in text:
                continue
            f = os.path.join(work, f"example_{n}.yaml")
            with open(f, "w") as out:
                out.write(text)
            r = subprocess.run([BIN, "validate", "--cluster", f, "--trace", "builtin:demo"], capture_output=True, text=True)
            ran += 1
            print(f"exit {r.returncode}   {rel}:{n}: cluster YAML example", flush=True)
            if r.returncode != 0:
                failures.append(f"{rel}:{n}: cluster YAML example\n    exit {r.returncode}: {(r.stderr or r.stdout).strip()[-600:]}")
        for n, text in blocks(doc, "python"):
            try:
                compile(text, f"{rel}:{n}", "exec")
                ran += 1
                print(f"compiles {rel}:{n}: Python example")
            except SyntaxError as e:
                failures.append(f"{rel}:{n}: Python example does not compile: {e}")
    print(f"\n{ran} documented commands and examples run, {covered} covered by the Slurm tests, {synopses} synopses")
    if failures:
        print("\nFAILED:\n" + "\n".join(failures))
        sys.exit(1)


main()
