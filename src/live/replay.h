// `ringmaster replay --backend slurm`: a trace's jobs submitted to a real Slurm at their submit times divided
// by the time scale K, each a `ringmaster payload` batch job that works for its ideal duration / K and resumes
// from a checkpoint after a preemption, scheduled by the serve backend in the same process with the policy;
// waits for every job and writes the simulator's outputs from what Slurm reported, plus the scaled trace and
// the cluster (trace_scaled.csv, cluster.yaml) for `simulate` to compare with (`ringmaster compare`).
#pragma once
#include <string>

#include "run/simulation.h"
#include "live/serve.h"

namespace rm::live {

struct ReplayArgs {
  ServeArgs serve;         // backend options; serve.out = the output directory
  SimConfig trace;         // trace, format, max_jobs, models, seed
  double time_scale = 1;   // K: submit times and durations divided by K
  double overhead_s = 0;   // the payload's restore cost after a requeue (seconds, already scaled)
  std::string binary;      // the ringmaster to run as payload (default: this one)
  double timeout_s = 3600; // give up (exit 1) if the replay has not ended by then
};

int run_replay(const ReplayArgs& a);

}  // namespace rm::live
