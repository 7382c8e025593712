// The policy seam (DESIGN.md sections 5-6): what a scheduler sees at a decision point (read-only views of
// the cluster and of the active jobs) and what it returns. Every backend produces the views and applies
// the decisions: the job-level engine, and later a live cluster manager. Policies never see a backend.
#pragma once
#include <functional>
#include <iterator>
#include <span>
#include <vector>

#include "cluster/cluster.h"
#include "sched/job_state.h"

namespace rm {

class JobModelView;  // exec/job_model_view.h

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

// The queued and running jobs, in arrival order: a view of a backend's list that may still hold finished jobs
// (the job-level engine compacts its list only when they are many, so a finish costs O(1) amortised, not
// O(active)); iteration skips them.
class ActiveJobs {
 public:
  using List = std::vector<const JobState*>;
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = const JobState*;
    using difference_type = std::ptrdiff_t;
    using pointer = const JobState* const*;
    using reference = const JobState* const&;
    iterator() = default;
    iterator(List::const_iterator it, List::const_iterator end) : it_(it), end_(end) { skip(); }
    reference operator*() const { return *it_; }
    iterator& operator++() {
      ++it_;
      skip();
      return *this;
    }
    iterator operator++(int) {
      iterator t = *this;
      ++*this;
      return t;
    }
    bool operator==(const iterator& o) const { return it_ == o.it_; }

   private:
    void skip() {
      while (it_ != end_ && (*it_)->status == JobStatus::Finished) ++it_;
    }
    List::const_iterator it_, end_;
  };
  // `list` must outlive the view. Finished jobs in it are skipped (so begin() walks over those before the first
  // job that is not).
  explicit ActiveJobs(const List& list) : list_(&list) {}
  iterator begin() const { return {list_->begin(), list_->end()}; }
  iterator end() const { return {list_->end(), list_->end()}; }
  bool empty() const { return begin() == end(); }

 private:
  const List* list_;
};

// What the scheduler sees at a decision point.
struct SchedContext {
  Time now = 0;
  const Cluster& cluster;
  ActiveJobs active;  // queued and running jobs, in arrival order
  long queued = -1;  // how many of them wait (-1: not counted; the engine counts them)
  // The simulator's promise: ids are dense in arrival order, new arrivals are appended to `active`, and only
  // the scheduler's own decisions start or stop a job. A scheduler may then keep state across passes.
  bool arrivals_appended = false;
  // With that promise: the jobs that arrived (in arrival order) and finished since the previous pass.
  std::span<const JobState* const> finished = {};
  std::span<const JobState* const> arrived = {};
  // The performance model's seconds per iteration of a job alone at its best placement on GPU type t (GpuTypes
  // index): the per-type throughput estimates a heterogeneity-aware policy reads (Gavel's _perf policies), as a
  // real scheduler reads its profiler's. Null where the backend has none (serve).
  const std::function<double(const JobSpec&, int)>* type_iteration_s = nullptr;
  // The same model's seconds per iteration of a job alone on a given placement (servers of one type, GPUs on each):
  // what an elastic policy weighs a width and a spread by (optimus, pollux). Null where the backend has none.
  const std::function<double(const JobSpec&, const std::vector<int>& servers, const std::vector<int>& gpus_on)>*
      span_iteration_s = nullptr;
  // The job model's view of each job's own fitted model (exec/job_model_view.h): Pollux's jobs under
  // --job-model pollux. Null under a model whose jobs keep none.
  const JobModelView* job_model = nullptr;
};

struct StartDecision {
  JobId job = kNoJob;
  std::vector<GpuRef> gpus;
  std::vector<ServerShare> shares{};  // CPUs and DRAM per server; empty = none booked (GPU-only policies)
};

// A running job's new CPU/DRAM holding (TUNE shrinking a peer to make room).
struct ResizeDecision {
  JobId job = kNoJob;
  std::vector<ServerShare> shares;
};

struct Decisions {
  std::vector<JobId> preempt;        // applied first
  // Then running elastic jobs given another set of GPUs (grow, shrink, move; docs/elastic.md): every old set is
  // released before any new one is taken, and each job pays the restart delay. `shares` as a start's.
  std::vector<StartDecision> reallocate;
  std::vector<ResizeDecision> resize;  // then these
  std::vector<StartDecision> start;  // then these, in order
  Time wake_at = kNever;             // call the scheduler again at this time even if nothing happens
};

}  // namespace rm
