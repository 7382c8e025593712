// Extension points of the task model (Wang et al. 2020, spec contention-and-sjf-bco.md Part A):
// GPUs are shared by memory, jobs are DAGs of forward / backward tasks and one all-reduce flow per
// iteration. Plugins read the task engine's state (TaskView) and return choices; the engine applies them.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sched/task_view.h"

namespace rm::task {

// Key names on the command line (keys.cpp).
Key parse_key(const std::string& name, const std::string& field);
const char* key_name(Key k);

// Choose n_J GPUs with enough free memory, or return false (the job stays queued).
class TaskPlacement {
 public:
  virtual ~TaskPlacement() = default;
  virtual std::string name() const = 0;
  virtual bool place(const TJob& j, const TaskView& v, std::vector<int>& out) = 0;
  // ms per MB at which the engine's GPU-workload bookkeeping (A.6.2) charges communication;
  // 0 = the engine's default (7.8125 under --compat wang2020, the network's beta otherwise).
  virtual double workload_beta() const { return 0; }
  // True if an attempt changes no state of the plugin and fails only for want of GPUs with enough free
  // memory: a refused job stays refused until memory is released, whatever the GPU workloads. Lets the
  // event-driven engine fast-forward the steady state while jobs wait (src/models/task/fast_forward.cpp).
  virtual bool pure(bool /*compat*/) const { return false; }
};

// May job j's all-reduce start now, given the flows already on its servers' NICs?
class CommAdmission {
 public:
  virtual ~CommAdmission() = default;
  virtual std::string name() const = 0;
  virtual bool admit(const TJob& j, double t, TaskView& v) = 0;
  // True if a refused job stays refused until the set of flows changes (lets the event-driven engine
  // skip re-testing waiting jobs between flow starts and ends).
  virtual bool stable() const { return true; }
};

struct TaskPolicy {
  std::string name;  // canonical description
  Key queue = Key::SSF, comm = Key::SRSF, compute = Key::SRSF;
  std::unique_ptr<TaskPlacement> placement;
  std::unique_ptr<CommAdmission> admission;
};

// Largest number of flows on any of the job's servers' NICs (spec A.6.4's c).
inline int busiest_link(const TJob& j, const TaskView& v) {
  std::size_t c = 0;
  for (int s : j.servers) c = std::max(c, v.server_flows(s).size());
  return static_cast<int>(c);
}

}  // namespace rm::task
