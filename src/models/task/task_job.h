// What the task model keeps of a job (models/task/task_step.h): what its plugins see (task::TJob, task::TFlow), its
// workers' phases and its progress, the default mode's exact times in whole nanoseconds. The step (task_step.*)
// changes it; the fast-forward (fast_forward.*) reads it and credits skipped periods to it; the plugins' view
// (policy_view.h) shows its `v` and `flow`. What only the fast-forward needs of a job is in its own table.
#pragma once
#include <cstdint>
#include <vector>

#include "sched/task_view.h"
#include "workload/job.h"

namespace rm {

struct TaskJob {
  using Ns = std::int64_t;  // the task model's time: whole nanoseconds
  enum Phase : std::uint8_t { FF, BP, WAIT };  // a worker's next task: forward, backward; or waiting for the all-reduce

  task::TJob v;
  const JobSpec* spec = nullptr;
  std::vector<Phase> phase;  // per worker
  int waiting = 0;           // workers in WAIT
  std::int64_t iter = 1;
  bool in_comm = false, finished = false, released = false, ready = false;
  double comm_once = 0;
  // Default mode: task times, remaining service and time in whole nanoseconds, so that a jump's bulk
  // credit equals the sum of step-by-step ones exactly (v.rem_service and v.rem_time mirror them).
  std::int64_t fw_ns = 0, bw_ns = 0, comm_ns = 0, service_ns = 0, time_ns = 0;
  Ns arrival = 0, placed_at = -1, finish = -1;
  std::int64_t seq = -1;  // placement order
  task::TFlow flow;

  std::int64_t iter_ns() const { return fw_ns + bw_ns; }
};

}  // namespace rm
