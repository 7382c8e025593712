// --exec round: builds the Synergy round simulator from a SimConfig and fills a SimResult (record, jobs,
// summary extras avg_jct_h / p99_jct_h / p999_jct_h computed exactly as the authors do).
#pragma once
#include <string>

namespace rm {

struct SimConfig;
struct SimResult;

void run_round_model(const SimConfig& cfg, SimResult& r);
bool is_synergy_workload(const std::string& name);
// The first `jobs` jobs of a synergy-* generator as a Synergy replay CSV (id,model,arrival_s,iterations,gpus).
std::string synergy_workload_csv(const SimConfig& cfg, int jobs);
// "order+mechanism[+consolidated]" -> (order, mechanism, consolidated); throws InputError.
struct RoundPolicy {
  std::string order, mech;
  bool consolidated = false;
};
RoundPolicy parse_round_policy(const std::string& policy);

}  // namespace rm
