// The speed factor a CPU/DRAM allocation gives a job (resource-sensitive allocation on the job-level engine):
// the job's iteration time is divided by it. Synergy's two laws (spec S.2.3, S.6): `binary` (the authors')
// gives the best-case speedup when the job holds its best-case CPUs and DRAM on every server, 1 otherwise;
// `matrix` gives the profile's throughput at the allocation per GPU over its throughput at the
// GPU-proportional share. A job without a CPU profile, or without shares, runs at 1.
#pragma once
#include "cluster/cluster.h"
#include "sched/job_state.h"

namespace rm {

double cpu_speed(const JobState& j, const std::vector<ServerShare>& shares, const ClusterSpec& c, bool matrix);

}  // namespace rm
