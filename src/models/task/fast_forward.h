// Steady-state fast-forward of the task model's event-driven mode (issue 16, goal 3; the scheme in
// fast_forward.cpp and docs/design.md "Task model fast-forward"): between placements and releases a group of jobs
// sharing GPUs or NICs settles into a cycle; this unit finds the cycle and jumps over whole periods of it. The step
// (task_step.*) tells it what happened (a task ran, a job synced, was placed or released) and asks it after each
// instant; the groups are in ff_groups.*, their records in cycle_records.*.
#pragma once
#include <cstdint>
#include <vector>

#include "models/task/ff_groups.h"
#include "models/task/flow_network.h"
#include "models/task/gpu_tasks.h"
#include "models/task/task_job.h"
#include "models/task/task_time.h"
#include "policy/task/task_plugin.h"

namespace rm {

class FastForward {
 public:
  using Ns = std::int64_t;
  static constexpr Ns kNever = task_time::kNever;
  struct Stats {
    std::int64_t jumps = 0, periods = 0, iterations = 0;  // jumps made, periods and job iterations skipped
    double skipped_ms = 0;                                // sum over jumps of the simulated time skipped
  };
  struct Around {                  // what the step has that bounds a jump
    const std::vector<int>& queue;    // jobs waiting for a placement
    const std::vector<int>& running;  // jobs placed
    Ns next_arrival;                  // the next job to join the queue (task_time::kNever: none)
  };
  struct Credit {                  // what one instant's jumps skipped
    std::int64_t events = 0, jumps = 0;
  };

  FastForward(std::vector<TaskJob>& jobs, GpuTasks& gpu, const FlowNetwork& net, const task::TaskPolicy& policy);

  // Jumped ahead: the step's global admission and re-rating passes skip its flows until then.
  bool frozen(int id, Ns t) const {
    const int ci = groups_.member(id).group;
    return ci >= 0 && groups_[ci].frozen_until > t;
  }
  // A task of job `id` starts on GPU g at t (per task: inline).
  void ran(int id, int g, Ns t) {
    FfMember& m = groups_.member(id);
    m.ran = true;
    m.last_run = t;
    if (!m.woke && (m.detached || (m.group >= 0 && groups_.gpu_group(g) != m.group))) {
      m.woke = true;
      woken_.push_back(id);
    }
  }
  void synced(int id);  // its all-reduce ended (its group's anchor may record)
  void placed(int id) { placed_.push_back(id); }
  void released(int id);
  // After each instant of the step: groups updated, records taken, cycles found and jumped.
  Credit after_step(Ns t, const Around& around);
  const Stats& stats() const { return stats_; }

 private:
  void record(const FfGroup& c, Ns t, CycleRecord& s) const;
  bool try_jump(FfGroup& c, const CycleRecord& now, const Around& around, Credit& credit);
  Ns outside_guard(const FfGroup& c, const std::vector<std::int64_t>& m, Ns ref_t, Ns t, Ns guard,
                   const Around& around);
  void set_earliest_change(FfGroup& c, const std::vector<std::int64_t>& m, Ns t, Ns period, Ns guard) const;
  void apply_jump(FfGroup& c, const CycleRecord& ref, Ns t, Ns period, std::int64_t k,
                  const std::vector<std::int64_t>& m);
  std::int64_t key_periods(const FfGroup& c, const std::vector<std::int64_t>& m) const;
  Ns sync_bound(const TaskJob& p, Ns t) const;
  std::size_t index_in(const FfGroup& c, int id) const;
  double key_slack(const TaskJob& p, const FfGroup& c) const;
  bool harmless(const TaskJob& p, const FfGroup& c, const std::vector<std::int64_t>& m, Ns since) const;
  Ns horizon(const FfGroup& c, Ns t, const Around& around) const;
  int group_of(const FfGroup& c) const { return groups_.member(c.jobs.front()).group; }

  std::vector<TaskJob>& jobs_;
  GpuTasks& gpu_;
  const FlowNetwork& net_;
  const task::TaskPolicy& policy_;
  FfGroups groups_;
  std::vector<int> synced_groups_, woken_;  // this instant: groups whose anchor synced, jobs that woke
  std::vector<int> placed_, lost_;          // this instant: jobs placed, groups that lost a job
  std::vector<int> seen_;
  Stats stats_;
};

}  // namespace rm
