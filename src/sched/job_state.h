// A job as a policy sees it (the job view of the policy seam): spec, phase, placement, progress, attained
// service, and the backend's estimates. The job-level engine owns these and updates them in place; the
// round model keeps one per job as a mirror of its own state (models/round/round_model.cpp). Policies read them.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/time.h"
#include "cluster/cluster.h"
#include "workload/cpu_profiles.h"
#include "workload/job.h"

namespace rm {

enum class JobStatus { Pending, Queued, Running, Finished };

struct JobState {
  const JobSpec* spec = nullptr;
  JobStatus status = JobStatus::Pending;
  std::vector<GpuRef> gpus;     // current placement (empty unless running)
  std::vector<int> servers;     // distinct servers of the placement, ascending
  // The fields a queue key reads (remaining time, attained service) share one cache line.
  double remaining = 0;         // iterations left as of progress_time
  Time progress_time = 0;       // when `remaining` was last brought up to date
  double iter_time = 0;         // seconds per iteration now (running)
  double ideal_iter_time = 0;   // on the ideal placement, no contention, on GPU type ideal_type
  int ideal_type = 0;
  // The speed the backend expects relative to ideal_iter_time (Synergy's best-case speedup sigma on the
  // round model; 1 on the job-level engine).
  double speedup = 1;
  Time stall_until = 0;         // restart overhead: no progress before this
  Time last_start = kNever;
  Time queued_since = 0;        // when it last became queued (its arrival, or its last preemption)
  Time run_us = 0;              // time holding GPUs, as of the last stop
  Time first_start = kNever;
  Time finish = kNever;
  int preemptions = 0;
  Time overhead_us = 0;         // preemption cost paid so far (time held without progress after resumes)
  Time last_overhead = 0;       // of the last resume
  std::uint64_t epoch = 0;      // bumped whenever a scheduled completion becomes stale
  double arrival_s = 0;         // submit time in seconds as the backend knows it (exact, not rounded to us)
  // The job's best-case CPUs and DRAM GB for resource-sensitive orders (DRF, Tetris): from its profile where
  // the backend has one, else its GPU-proportional share.
  double cpu_demand = 0, mem_demand = 0;
  // Resource-sensitive allocation (a policy with greedy/tune; docs/policies.md): the job's CPU/memory
  // profile and its best-case speedup (cpu_demand / mem_demand above are its best case), what it holds
  // now per server, and the speed factor the law gives that allocation.
  const synergy::Profile* cpu_profile = nullptr;
  double best_speedup = 1;
  std::vector<ServerShare> shares;
  double alloc_speed = 1;
  // What jobs.csv reports beside its times: the most servers it spanned at once, the server of its last start's
  // first GPU (its GPU type).
  int max_servers = 0;
  int type_server = -1;
  // A job that ran on several GPU types: the ideal seconds of the iterations it did before its current type,
  // and how many they were (its ideal time adds up each type's share of the work: ideal_s()).
  double ideal_before_s = 0, iters_before = 0;
  // Elastic jobs (issue 43; docs/elastic.md): GPU-microseconds held up to the last start or stop (the engine's; a
  // rigid job's is run_us x num_gpus), how often its allocation changed while it ran, the fewest and most GPUs held.
  Time gpu_us = 0;
  int reallocations = 0;
  int held_min = 0, held_max = 0;

  JobId id() const { return spec->id; }
  bool running() const { return status == JobStatus::Running; }
  bool split() const { return servers.size() > 1; }
  // Iterations left at `now`, projecting progress since progress_time.
  double remaining_at(Time now) const {
    if (!running() || iter_time <= 0) return remaining;
    const Time from = std::max(progress_time, stall_until);
    return now > from ? std::max(0.0, remaining - to_seconds(now - from) / iter_time) : remaining;
  }
  // GPU-seconds of service received up to `now` (2D-LAS's attained service).
  double attained_gpu_s(Time now) const {
    if (spec->elastic() && held_max > 0) {  // each stretch at its own width (the engine's book)
      Time g = gpu_us;
      if (running() && now > last_start) g += (now - last_start) * static_cast<Time>(gpus.size());
      return to_seconds(g);
    }
    Time t = run_us;
    if (running() && now > last_start) t += now - last_start;
    return to_seconds(t) * spec->num_gpus;
  }
  // The GPUs it holds now (running), else the GPUs it asks for: what a policy frees by preempting it, or must find.
  int width() const { return running() && !gpus.empty() ? static_cast<int>(gpus.size()) : spec->num_gpus; }
  // Remaining time on the ideal placement at the expected speed (SRTF), and total time (shortest, FTF).
  double remaining_time_s(Time now) const { return remaining_at(now) * ideal_iter_time / speedup; }
  double total_time_s() const { return spec->iterations * ideal_iter_time; }
  // Alone at its best placement on an idle cluster, each iteration on the GPU type it ran on (jobs.csv ideal_s).
  double ideal_s() const { return (ideal_before_s + (spec->iterations - iters_before) * ideal_iter_time) / best_speedup; }
  // Starts on GPU type `type` (GpuTypes index) whose ideal iteration is `iter_s`: the work done so far stays on
  // the type it was done on.
  void move_to_type(int type, double iter_s) {
    const double done = spec->iterations - remaining;
    ideal_before_s += (done - iters_before) * ideal_iter_time;
    iters_before = done;
    ideal_type = type;
    ideal_iter_time = iter_s;
  }
};

}  // namespace rm
