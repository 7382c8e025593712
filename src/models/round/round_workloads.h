// Job sources for the round simulator (spec S.5): replay CSVs, the Philly-derived generator of S.5.1 with
// CPython's random stream reproduced (S.10 items 4-7), and the synthetic generator of S.5.3 (item 8).
#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/py_random.h"
#include "models/round/round_model.h"

namespace rm::synergy {

// Replay: job_id,model,arrival_s,total_iterations,gpu_demand (no header), in file order.
// With `errors`, every bad row is recorded there (and nothing returned) instead of the first thrown.
std::vector<JobInit> read_replay(const std::string& path, std::vector<std::string>* errors = nullptr);
std::unique_ptr<JobSource> replay_source(std::vector<JobInit> jobs);

struct GenParams {
  double jobs_per_hour = 9.0;
  std::array<int, 3> split = {20, 70, 10};  // image, language, speech (%)
  std::uint64_t seed = 42;
  // The job list the generator walks (GPU demand of kept job k; job id n takes entry n mod K). Empty = an
  // unbounded single-GPU list (what the authors' single-GPU mode amounts to, S.5.6).
  std::vector<int> job_list_gpus;
};

// The authors' default "exponential" mode (S.5.1, S.10 item 5): durations D_k drawn once per kept job
// from a fresh seeded stream, Poisson arrivals and class choice from a second stream seeded the same way.
std::unique_ptr<JobSource> philly_derived_source(const GenParams& p, const ProfileSet& profiles);
// S.5.3: GPU demand 1/2/4/8 with probability 0.70/0.10/0.15/0.05, one stream.
std::unique_ptr<JobSource> synthetic_source(const GenParams& p, const ProfileSet& profiles);

// Kept-job GPU demands of a Philly-style job list (S.5.1 items 1-2): durations strictly between
// 10^1.5 and 10^4 minutes; multigpu: demands > 16 dropped, others not in {1,2,4,8,16} -> 1; else all 1.
std::vector<int> job_list_from(const std::vector<std::pair<double, int>>& duration_gpus, bool multigpu);

}  // namespace rm::synergy
