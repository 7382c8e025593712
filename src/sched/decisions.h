// The policy seam (DESIGN.md sections 5-6): what a scheduler sees at a decision point (read-only views of
// the cluster and of the active jobs) and what it returns. Every backend produces the views and applies
// the decisions: the job-level engine, and later a live cluster manager. Policies never see a backend.
#pragma once
#include <vector>

#include "cluster/cluster.h"
#include "sched/job_state.h"

namespace rm {

// Whole-cluster capacities, for orders that weigh a job's demand against the cluster (DRF, Tetris).
struct ClusterTotals {
  double gpus = 0, cpus = 0, mem_gb = 0;
};
inline ClusterTotals totals_of(const ClusterSpec& c) {
  ClusterTotals t;
  for (const auto& s : c.servers) {
    t.gpus += s.gpus;
    t.cpus += s.cpus;
    t.mem_gb += s.dram_gb;
  }
  return t;
}

// What the scheduler sees at a decision point.
struct SchedContext {
  Time now = 0;
  const Cluster& cluster;
  const std::vector<const JobState*>& active;  // queued and running jobs, in arrival order
  long queued = -1;  // how many of them wait (-1: not counted; the engine counts them)
  // The simulator's promise: ids are dense in arrival order, new arrivals are appended to `active`, and only
  // the scheduler's own decisions start or stop a job. A scheduler may then keep state across passes.
  bool arrivals_appended = false;
};

struct StartDecision {
  JobId job = kNoJob;
  std::vector<GpuRef> gpus;
  std::vector<ServerShare> shares;  // CPUs and DRAM per server; empty = none booked (GPU-only policies)
};

// A running job's new CPU/DRAM holding (TUNE shrinking a peer to make room).
struct ResizeDecision {
  JobId job = kNoJob;
  std::vector<ServerShare> shares;
};

struct Decisions {
  std::vector<JobId> preempt;        // applied first
  std::vector<ResizeDecision> resize;  // then these
  std::vector<StartDecision> start;  // then these, in order
  Time wake_at = kNever;             // call the scheduler again at this time even if nothing happens
};

}  // namespace rm
