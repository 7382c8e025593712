// What the task model's plugins see (sched/task_view.h: task::TaskView), apart from the model: the GPUs and their
// workloads, the GPU memory free in the engine's book, the NICs' flows and the law, each job's view and flow. The
// model (task_step.h) owns the state; this view reads it through references and keeps only its own cache of
// eligible-GPU counts. A template over the model's job record, which stays private to the model.
#pragma once
#include <cstdint>
#include <tuple>
#include <vector>

#include "cluster/cluster.h"
#include "models/task/flow_network.h"
#include "models/task/gpu_tasks.h"
#include "sched/task_view.h"

namespace rm {

template <class Job>
class PolicyView final : public task::TaskView {
 public:
  struct Of {  // the model's state the plugins read (references: the view follows it)
    const GpuTasks& gpus;
    FlowNetwork& net;
    Cluster* const& book;  // the engine's book, bound after the model is built
    std::vector<Job>& jobs;
    const std::uint64_t& mem_version;  // moves when GPU memory is taken or given
    const std::uint64_t& wl_version;   // moves when a GPU's workload changes
    const std::int64_t& now;           // the instant being simulated (ns)
    bool compat;
  };
  explicit PolicyView(Of of) : of_(of) {}

  const std::vector<task::TGpu>& gpus() const override { return of_.gpus.views(); }
  const std::vector<double>& free_mem() const override { return of_.book->free_gpu_mem_mb(); }
  int num_servers() const override { return of_.gpus.servers(); }
  const std::vector<int>& server_gpus(int s) const override { return of_.gpus.on_server(s); }
  const std::vector<int>& server_flows(int s) const override { return of_.net.flows_on(s); }
  const task::TFlow& flow_of(int job) const override { return of_.jobs[static_cast<std::size_t>(job)].flow; }
  const task::TJob& job(int id) const override { return of_.jobs[static_cast<std::size_t>(id)].v; }
  int server_split_jobs(int s) const override { return of_.net.split_jobs(s); }
  std::uint64_t workload_version() const override { return of_.wl_version; }
  double beta() const override { return of_.net.beta(); }
  double eta() const override { return of_.net.eta(); }
  bool compat() const override { return of_.compat; }
  // GPUs with at least `mem` MB free, cached per size until the memory moves.
  int eligible_count(double mem) const override {
    for (auto& [m, ver, count] : cache_)
      if (m == mem) {
        if (ver != of_.mem_version) {
          count = count_free(mem);
          ver = of_.mem_version;
        }
        return count;
      }
    const int count = count_free(mem);
    cache_.emplace_back(mem, of_.mem_version, count);
    return count;
  }
  double probe_rest(int job, double /*t: the model's now*/, bool mutating) override {
    return of_.net.rest(of_.jobs[static_cast<std::size_t>(job)].flow, of_.now, mutating);
  }

 private:
  int count_free(double mem) const {
    int count = 0;
    for (double f : of_.book->free_gpu_mem_mb()) count += f >= mem;
    return count;
  }
  Of of_;
  mutable std::vector<std::tuple<double, std::uint64_t, int>> cache_;
};

}  // namespace rm
