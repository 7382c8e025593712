#!/usr/bin/env python3
# Flattens a run of the Sia artifact's simulator (its --output log: one JSON record per round, sia-simulator/cluster.py
# step_log) into the golden CSV of docs/sia.md: one row per job, in workload order:
#   workload,job,submit_s,jct_s,restarts,gpu_types
# jct_s = completion_time - submission_time of the last record (Cluster.get_jcts); restarts = num_restarts (None: 0);
# gpu_types = the GPU types (the simulator's cluster names) the job held GPUs of, in order of first use, '+'-joined.
#   extract.py WORKLOAD_NAME RUN.log.gz > golden.csv
# With --rounds, the shim's solve log (SIA_SHIM_LOG) instead, one row per program solved, in order:
#   workload,solve,rows,cols,objective          (objective to 12 significant digits)
#   extract.py --rounds WORKLOAD_NAME RUN.solves.jsonl.gz > rounds.csv
import gzip, json, sys

if sys.argv[1] == "--rounds":
    name, path = sys.argv[2], sys.argv[3]
    print("workload,solve,rows,cols,objective")
    with gzip.open(path, "rt") as f:
        for i, line in enumerate(f):
            rec = json.loads(line)
            if rec["status"] != "optimal":
                sys.exit(f"{path}: solve {i} is {rec['status']}")
            print(f"{name},{i},{rec['rows']},{rec['cols']},{float(rec['objective']):.12g}")
    sys.exit(0)
name, path = sys.argv[1], sys.argv[2]
order, types, last = [], {}, None
with gzip.open(path, "rt") as f:
    for line in f:
        if not line.strip():
            continue
        rec = json.loads(line)
        last = rec
        for j in rec["submitted_jobs"]:
            if j["name"] not in types:
                order.append(j["name"])
                types[j["name"]] = []
            if j["allocation"] and len(j["allocation"]) == 2 and j["allocation"][1] and j["cluster"] is not None:
                if j["cluster"] not in types[j["name"]]:
                    types[j["name"]].append(j["cluster"])
final = {j["name"]: j for j in last["submitted_jobs"]}
print("workload,job,submit_s,jct_s,restarts,gpu_types")
for n in order:
    j = final[n]
    if j["completion_time"] is None:
        sys.exit(f"{path}: job {n} did not complete")
    print(f"{name},{n},{j['submission_time']},{j['completion_time'] - j['submission_time']},{j['num_restarts'] or 0},"
          f"{'+'.join(types[n])}")
