#!/usr/bin/env bash
# Issue 47's table, measured in one run: the peers' own simulators on their largest work beside ours on identical
# work, CPU (user + system of the whole process, from wait4: the peer's interpreter start, imports, reading and
# logging; ours: reading, the loop and writing jobs.csv, summary.json and timeseries.csv), median of RUNS, peer and
# ours alternated; each row also says whether the outputs agree (Tiresias: every job's JCT, first start and
# preemptions against the peer's job.csv; Gavel: the average JCT the driver prints, to its 3 decimals).
# The peers are fetched by the user and run outside the repository (docs/performance.md "The peers on their own
# work"): TIRESIAS is a clone of SymbioticLab/Tiresias, GAVEL of stanford-futuredata/gavel (or bare git directories);
# bench/peers/tiresias_port.sh and gavel_setup.sh prepare them in a temporary directory.
# Muri's traces are in milliseconds; ours reads them so (docs/formats.md), the Tiresias simulator in seconds: it is
# given the same trace divided by 1,000 (every time in them is a whole second). Gavel reads its 10-column format:
# the 7-column msr trace rewritten as the goldens' README says.
# Usage: bench/peers.sh --large TIRESIAS GAVEL [build-dir] [runs] [case-regex]  (default build, 5, every case but
# Gavel's gandiva: the peer had simulated 2.5 M of its 9 M seconds after 12 CPU minutes; ask for it by name)
set -euo pipefail
TIRESIAS=$(realpath "$1")
GAVEL=$(realpath "$2")
cd "$(dirname "$0")/../.."
BUILD=${3:-build}
RUNS=${4:-5}
ONLY=${5:-'^(?!.*gandiva)'}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash bench/peers/tiresias_port.sh "$TIRESIAS" "$work/tiresias" >/dev/null
bash bench/peers/gavel_setup.sh "$GAVEL" "$work/gavel" >/dev/null
/usr/bin/python3 - "$work" "$(realpath "$BUILD/ringmaster")" "$RUNS" "$ONLY" <<'PY'
import csv, os, re, statistics, subprocess, sys
work, ours_bin, runs, only = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
S = os.path.realpath("../shared/traces")
G = os.path.realpath("../shared/goldens/peers")
muri = S + "/muri-philly"
tsim, gsched = work + "/tiresias/simulator", work + "/gavel/scheduler"
env_t = dict(os.environ, PYTHONPATH=work + "/tiresias/stubs")
env_g = dict(os.environ, PYTHONPATH=work + "/gavel/stubs")

def seconds(trace):  # Muri's ms trace in seconds, Tiresias' columns
    out = f"{work}/{os.path.basename(trace)}"
    with open(trace) as f, open(out, "w", newline="") as g:
        w = csv.writer(g)
        w.writerow(["job_id", "num_gpu", "submit_time", "iterations", "model_name", "duration", "interval"])
        for r in csv.DictReader(f):
            ms = [int(r[k] or 0) for k in ("submit_time", "duration", "interval")]
            assert all(v % 1000 == 0 for v in ms), "a time that is not a whole second"
            w.writerow([r["job_id"], r["num_gpu"], ms[0] // 1000, r["iterations"], r["model_name"], ms[1] // 1000,
                        ms[2] // 1000])
    return out

def gavel10(trace):  # the msr traces' 7 columns in c4fa400's 10 (shared/goldens/peers/gavel/README.md)
    out = f"{work}/{os.path.basename(trace)}"
    with open(trace) as f, open(out, "w") as g:
        for line in f:
            c = line.rstrip("\n").split("\t")
            g.write("\t".join([c[0], c[1], ".", c[2], c[3], c[4], c[6], "1", "-1", c[5]]) + "\n")
    return out

def cpu(cmd, cwd=None, env=None, log=os.devnull):
    with open(log, "w") as out:
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit(f"failed ({status}): {' '.join(cmd)}" + (f"\n{open(log).read()[-2000:]}" if log != os.devnull else ""))
    return ru.ru_utime + ru.ru_stime

def tiresias(name, spec, trace, peer_trace, sched):
    def peer(k):
        d = f"{work}/tlog{k}"
        os.makedirs(d, exist_ok=True)
        return cpu([sys.executable, "run_sim.py", f"--cluster_spec={spec}", "--scheme=count", f"--trace_file={peer_trace}",
                    f"--schedule={sched}", f"--log_path={d}"], cwd=tsim, env=env_t)
    def ours(k):
        return cpu([ours_bin, "simulate", "--compat", "tiresias", "--cluster", spec, "--trace", trace, "--format",
                    "tiresias", "--policy", sched + "+count", "--data-dir", S, "-q", "--out", f"{work}/o{k}"])
    def agree(k):
        p = {r["job_id"]: r for r in csv.DictReader(open(f"{work}/tlog{k}/job.csv"))}
        o = list(csv.DictReader(open(f"{work}/o{k}/jobs.csv")))
        same = sum(1 for r in o if r["job_id"] in p and float(r["jct_s"]) == float(p[r["job_id"]]["JCT"])
                   and int(r["preemptions"]) == int(p[r["job_id"]]["preempt"])
                   and float(r["first_start_s"]) - float(r["submit_s"]) ==
                   float(p[r["job_id"]]["start_time"]) - float(p[r["job_id"]]["submit_time"]))
        return f"{same} of {len(o)} jobs equal" + ("" if len(p) == len(o) else f" (peer: {len(p)} jobs)")
    return name, peer, ours, agree

def gavel(name, trace, policy, cluster="6:6:6"):
    t10 = gavel10(trace)
    def peer(k):
        return cpu([sys.executable, "scripts/drivers/simulate_scheduler_with_trace.py", "-t", t10, "-p", policy, "-c", cluster,
                    "--seed", "0"], cwd=gsched, env=env_g, log=f"{work}/g{k}.log")
    def ours(k):
        return cpu([ours_bin, "simulate", "--compat", "gavel", "--cluster", "gavel:" + cluster, "--trace", trace,
                    "--format", "gavel", "--policy", policy, "--seed", "0", "--data-dir", S, "-q", "--out", f"{work}/o{k}"])
    def agree(k):
        m = re.findall(r"Average job completion time: *([0-9.]+)", open(f"{work}/g{k}.log").read())
        ours_avg = float(re.search(r'"avg_jct_s": ([0-9.e+]+)', open(f"{work}/o{k}/summary.json").read()).group(1))
        if not m:
            return "peer printed no average"
        return ("average JCT equal" if f"{ours_avg:.3f}" == m[-1] else "average JCT differs") + f" ({m[-1]} s)"
    return name, peer, ours, agree

n4g4 = G + "/tiresias/specs/n4g4.csv"
t60 = S + "/tiresias/60_job.csv"
n8g8 = muri + "/cluster_spec_n8g8.csv"
cases = [tiresias(f"Tiresias, 60-job trace, 16 GPUs, {s}", n4g4, t60, t60, s)
         for s in ("fifo", "dlas-gpu", "gittins", "dlas-gpu-gittins")]
t1, t2 = seconds(muri + "/trace1.csv"), seconds(muri + "/trace2.csv")
cases += [tiresias("Tiresias, Muri trace1 (1,494 jobs), dlas-gpu", n8g8, muri + "/trace1.csv", t1, "dlas-gpu"),
          tiresias("Tiresias, Muri trace2 (5,755 jobs), dlas-gpu", n8g8, muri + "/trace2.csv", t2, "dlas-gpu"),
          tiresias("Tiresias, Muri trace2 (5,755 jobs), gittins", n8g8, muri + "/trace2.csv", t2, "gittins")]
ed = S + "/philly-gavel-vc/seed=0/ed69ec.trace"
cases += [gavel("Gavel, Philly VC ed69ec (951 jobs), 6:6:6, fifo", ed, "fifo"),
          gavel("Gavel, Philly VC ed69ec (951 jobs), 6:6:6, gandiva", ed, "gandiva")]
cases = [c for c in cases if re.search(only, c[0])]
print(f"CPU (user + system, whole process), median of {runs} runs (min-max), peer and ours alternated")
print("| work | peer CPU | ours | peer / ours | outputs |")
print("|---|---|---|---|---|")
for name, peer, ours, agree in cases:
    p, o = [], []
    for k in range(runs):
        p.append(peer(k))
        o.append(ours(k))
    verdict = agree(runs - 1)
    mp, mo = statistics.median(p), statistics.median(o)
    print(f"| {name} | {mp:.2f} s ({min(p):.2f}-{max(p):.2f}) | {mo * 1000:.1f} ms ({min(o) * 1000:.1f}-{max(o) * 1000:.1f}) | "
          f"{mp / mo:,.0f}x | {verdict} |", flush=True)
PY
