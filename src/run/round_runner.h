// --exec round: builds the Synergy round simulator from a RunPlan and fills a SimResult (record, jobs,
// summary extras avg_jct_h / p99_jct_h / p999_jct_h computed exactly as the authors do).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "cluster/cluster.h"
#include "policy/plugin.h"
#include "policy/policy_spec.h"
#include "models/round/round_model.h"

namespace rm {

struct SimConfig;
struct SimResult;
struct RunPlan;

// The round model (models/round/round_model.h) over `source` under the one engine, on `servers` identical servers of
// capacity `per_server`.
synergy::RoundResult run_rounds(int servers, int gpus_per_server, const synergy::Vec& per_server,
                                const synergy::ProfileSet& profiles, synergy::JobSource& source,
                                const synergy::RoundOptions& opt);

// Runs the plan over r's cluster and gives r back with the workload, the record and the summary. Throws
// InputError (file:line:field) for inputs the round model cannot run.
std::unique_ptr<SimResult> run_round_model(const RunPlan& plan, std::unique_ptr<SimResult> r);
bool is_synergy_workload(const std::string& name);
// The Synergy profile set for a cluster: `given` (--cpu-ratio) or its CPUs per GPU rounded, 3..6.

int cpu_ratio_of(const ClusterSpec& c, int given);
// The first `jobs` jobs of a synergy-* generator as a Synergy replay CSV (id,model,arrival_s,iterations,gpus).
std::string synergy_workload_csv(const SimConfig& cfg, int jobs);
// A composed policy, order[+placement][+allocation] (allocation default: fair), for the round model: placement
// first-fit or consolidated, no preempt/backfill flags (exec_refusal). Throws InputError.
struct RoundPolicy {
  std::shared_ptr<QueueOrder> order;
  std::shared_ptr<Allocation> allocation;  // fair when the policy names none
  bool consolidated = false;
  bool placement_named = false;  // false: the default, which --compat synergy reads as the authors' FIRST_FIT
  bool full_sort = false;        // +full-sort: every pass keys and sorts every runnable job (the keyed passes' reference)
};
RoundPolicy round_policy(const PolicySpec& spec, std::uint64_t seed);

}  // namespace rm
