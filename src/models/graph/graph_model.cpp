// Execution model `graph` (--exec graph; spec synergy-and-a-srpt.md A.2): a running job progresses at
// 1 / alpha(x) iterations per second, alpha(x) from its job graph and the mapping x (worker v of the
// graph on gpus[v]; comm_model.h graph_iteration_time_s). No contention between jobs, so a job's rate is
// fixed from start to stop. Also counts the inter-server bytes every job moved.
#include "models/graph/graph_model.h"

#include <unordered_map>

#include "core/error.h"
#include "exec/comm_model.h"
#include "exec/completion_heap.h"
#include "exec/perf_model.h"

namespace rm {
namespace {

class GraphLawModel final : public RateModel {
 public:
  GraphLawModel(const ClusterSpec& c, bool trace_law, PerfModel* perf)
      : cluster_(c), trace_law_(trace_law), perf_(perf && perf->name() != "analytic" ? perf : nullptr) {}
  std::string name() const override { return trace_law_ ? "graph+trace" : "graph"; }

  void start(JobState& j, Time now) override {
    j.servers = span_of(j.gpus).servers;
    j.progress_time = now;
    auto it = graphs_.find(j.id());
    if (it == graphs_.end()) it = graphs_.emplace(j.id(), job_graph_of(*j.spec)).first;
    const JobGraph& g = it->second;
    if (j.spec->elastic() && static_cast<int>(j.gpus.size()) != j.spec->num_gpus)
      throw InputError(j.spec->file, j.spec->line, "gpus_min",
                       "elastic job " + j.spec->name + " given " + std::to_string(j.gpus.size()) + " GPUs of its " +
                           std::to_string(j.spec->num_gpus) + ": the graph model runs a job at the width it asks for "
                           "(use --exec rate for elastic policies)");
    if (g.size() != static_cast<int>(j.gpus.size()))
      throw InvariantError("job " + j.spec->name + ": graph of " + std::to_string(g.size()) + " workers on " +
                           std::to_string(j.gpus.size()) + " GPUs");
    j.iter_time = (trace_law_                            ? j.ideal_iter_time
                   : perf_ && !is_mixed_parallel(*j.spec) ? perf_->iteration_s(*j.spec, span_of(j.gpus), [](int) { return 1; })
                                                          : graph_iteration_time_s(*j.spec, g, cluster_, j.gpus)) /
                  j.alloc_speed;
    if (!(j.iter_time > 0)) throw InvariantError("job " + j.spec->name + " has a non-positive iteration time");
    cut_[j.id()] = graph_cut_bytes(g, j.gpus);
    started_remaining_[j.id()] = j.remaining;
    ++j.epoch;
    const Time from = std::max(now, j.stall_until);
    heap_.push(from + from_seconds_ceil(j.remaining * j.iter_time), j);
  }

  void stop(JobState& j, Time now) override {
    j.remaining = j.remaining_at(now);
    j.progress_time = now;
    ++j.epoch;
    bytes_ += (started_remaining_[j.id()] - j.remaining) * cut_[j.id()];
    if (j.remaining <= 1e-9 * std::max(1.0, j.spec->iterations)) graphs_.erase(j.id());
  }

  Time next_completion() override { return heap_.next(); }

  void complete_at(Time t, std::vector<JobState*>& completed) override { heap_.pop_at(t, completed); }

  void report(std::vector<std::pair<std::string, double>>& extra) const override {
    extra.emplace_back("inter_server_tb", bytes_ / 1e12);
  }

 private:
  const ClusterSpec& cluster_;
  bool trace_law_ = false;
  PerfModel* perf_ = nullptr;  // a measured model (the analytic one is the graph law here)
  std::unordered_map<JobId, JobGraph> graphs_;
  std::unordered_map<JobId, double> cut_, started_remaining_;
  double bytes_ = 0;
  CompletionHeap heap_;
};

}  // namespace

std::unique_ptr<RateModel> make_graph_model(const ClusterSpec& cluster, bool trace_law, PerfModel* perf) {
  return std::make_unique<GraphLawModel>(cluster, trace_law, perf);
}

}  // namespace rm
