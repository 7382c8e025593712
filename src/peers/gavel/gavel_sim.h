// --compat gavel: the round-based simulator of Gavel (stanford-futuredata/gavel @c4fa400, scheduler/scheduler.py
// simulate() and the fifo, fifo_perf, isolated and gandiva policies), whose semantics
// shared/goldens/peers/gavel/README.md lists (G1-G11): rounds of 360 s in which each scheduled job runs
// min(int(steps/s x 360), remaining) steps and the round ends when its last micro-task does; arrivals admitted at
// round boundaries; the allocation recomputed only at a reset (a job arrived or ended, and 1,920 s since the last
// one); priorities allocation / (time received / time given), with deficits; Python's seeded RNG where the peer draws
// (gandiva's random pairing, fifo's worker type, the worker types' shuffle). Time is float seconds, as in the peer,
// and jobs.csv prints it at full precision. It runs under the engine as a deciding model (exec/execution_model.h),
// as the round and Tiresias models do; its quirks live here only.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "run/run_plan.h"
#include "run/sim_result.h"

namespace rm {

// The policy text under --compat gavel: fifo, fifo_perf, isolated or gandiva (Gavel's names).
PolicySpec parse_gavel_policy(const std::string& text);
// Gavel's policies under --compat gavel with what each does (list-policies --compat gavel).
std::vector<std::pair<std::string, std::string>> gavel_policies();

// The throughput table the run reads: --throughputs, else Gavel's simulation_throughputs.json under --data-dir.
std::string gavel_throughputs_path(const RunPlan& plan);

// Runs the plan (--compat gavel): the cluster (gavel:V:P:K[:G], or any cluster of v100/p100/k80 servers),
// the trace (Gavel's 10- or 7-column TSV), records with exact times (RunRecord::exact_s).
SimResult run_gavel(const RunPlan& plan);

}  // namespace rm
