// The deterministic baselines of Pollux's simulator (adaptdl osdi21-artifact c793c70): Tiresias as it runs it
// (simulator/tiresias.py) and Optimus+Oracle (simulator/optimus.py), each deciding the GPUs (node ids, one per GPU)
// of every active job at a round's end, and the most-free-node placement both use.
#pragma once
#include <algorithm>
#include <optional>
#include <vector>

#include "core/error.h"
#include "peers/pollux/pollux_job.h"

namespace rm::pollux_peer {

using Alloc = std::vector<std::optional<std::vector<int>>>;  // per job: its GPUs' node ids, or none

// collections.Counter(total) - Counter(used), then most_common(1) taken repeatedly: the node with the most free
// GPUs, the first in the counter's order on ties (nodes in id order, those with none free left out).
class FreeGpus {
 public:
  FreeGpus(int nodes, int per_node, const Alloc& alloc) {
    std::vector<int> used(static_cast<std::size_t>(nodes), 0);
    for (const auto& a : alloc)
      if (a)
        for (int n : *a) ++used[static_cast<std::size_t>(n)];
    for (int n = 0; n < nodes; ++n)
      if (per_node - used[static_cast<std::size_t>(n)] > 0) free_.push_back({n, per_node - used[static_cast<std::size_t>(n)]});
  }
  // Fills `out` with `want` GPUs, the node with the most free first each time.
  void take(int want, std::vector<int>& out) {
    while (static_cast<int>(out.size()) < want) {
      if (free_.empty()) throw InvariantError("pollux: no free GPU left for an admitted job");
      std::size_t best = 0;
      for (std::size_t i = 1; i < free_.size(); ++i)
        if (free_[i].second > free_[best].second) best = i;
      const int num = std::min(free_[best].second, want - static_cast<int>(out.size()));
      if (num <= 0) throw InvariantError("pollux: no free GPU left for an admitted job");
      out.insert(out.end(), static_cast<std::size_t>(num), free_[best].first);
      free_[best].second -= num;
    }
  }

 private:
  std::vector<std::pair<int, int>> free_;
};

// TiresiasPolicy.optimize (P:tiresias.py:5-83), starvation handling off.
class Tiresias {
 public:
  explicit Tiresias(std::size_t n) : status_(n, 0), last_check_(n, 0), executed_(n, 0) {}
  void optimize(const std::vector<int>& active, std::vector<PJob>& jobs, long now, int nodes, int per_node,
                Alloc& alloc) {
    std::vector<char> in(jobs.size(), 0);
    for (int k : active) in[static_cast<std::size_t>(k)] = 1;
    auto keep = [&](std::vector<int>& q) { q.erase(std::remove_if(q.begin(), q.end(), [&](int k) { return !in[k]; }), q.end()); };
    keep(q0_);
    keep(q1_);
    for (std::size_t k = 0; k < jobs.size(); ++k)
      if (!in[k]) status_[k] = 0;
    for (int k : active)
      if (status_[static_cast<std::size_t>(k)] == 0) {
        status_[static_cast<std::size_t>(k)] = kPending;
        q0_.push_back(k);
      }
    for (int k : active) {
      const auto i = static_cast<std::size_t>(k);
      const long tmp = now - last_check_[i];
      last_check_[i] = now;
      if (status_[i] == kRunning) {
        executed_[i] += tmp;
        const long gputime = executed_[i] * jobs[i].target_replicas;
        auto it = std::find(q0_.begin(), q0_.end(), k);
        if (it != q0_.end() && gputime >= kThreshold) {
          q0_.erase(it);
          q1_.push_back(k);
        }
      }
    }
    int free = nodes * per_node;
    for (auto* q : {&q0_, &q1_})
      for (int k : *q) {
        const auto i = static_cast<std::size_t>(k);
        if (jobs[i].target_replicas <= free) {
          status_[i] = kRunning;
          free -= jobs[i].target_replicas;
        } else {
          status_[i] = kPending;
          alloc[i].reset();
        }
      }
    FreeGpus gpus(nodes, per_node, alloc);
    for (auto* q : {&q0_, &q1_})
      for (int k : *q) {
        const auto i = static_cast<std::size_t>(k);
        if (status_[i] != kRunning || (alloc[i] && !alloc[i]->empty())) continue;
        alloc[i] = std::vector<int>{};
        gpus.take(jobs[i].target_replicas, *alloc[i]);
      }
  }

 private:
  static constexpr int kPending = 1, kRunning = 2;
  static constexpr long kThreshold = 3600 * 16;
  std::vector<int> q0_, q1_;
  std::vector<int> status_;
  std::vector<long> last_check_, executed_;
};

// OptimusPolicy.optimize (P:optimus.py:6-79).
class Optimus {
 public:
  void optimize(const std::vector<int>& active, std::vector<PJob>& jobs, int nodes, int per_node, Alloc& alloc) {
    const std::size_t n = active.size();
    std::vector<double> remaining(n), gain(n);
    std::vector<int> replicas(n, 0), cap(n);
    for (std::size_t a = 0; a < n; ++a) {
      const PJob& j = jobs[static_cast<std::size_t>(active[a])];
      const int done = j.app->completion_epoch();
      remaining[a] = done <= j.epoch ? 1.0 : j.app->iteration(j.target_batch, done) - j.app->iteration(j.target_batch, j.epoch);
      cap[a] = j.app->name() == "ncf" ? 1 : j.target_batch / j.app->min_local_bsz();  // P:simulator.py:347-352
    }
    auto marginal = [&](std::size_t a, int free) {
      const PJob& j = jobs[static_cast<std::size_t>(active[a])];
      if (replicas[a] + 1 > cap[a] || free < 1) return 0.0;
      return (predict(j, replicas[a]) - predict(j, replicas[a] + 1)) * remaining[a];
    };
    int free = nodes * per_node;
    for (std::size_t a = 0; a < n; ++a) {  // every job one GPU first, in order (min_replicas = 1)
      if (1 > free) {
        replicas[a] = 0;
        gain[a] = 0;
        continue;
      }
      replicas[a] = 1;
      free -= 1;
      gain[a] = marginal(a, free);
    }
    while (free > 0) {
      std::size_t best = 0;
      for (std::size_t a = 1; a < n; ++a)
        if (gain[a] > gain[best]) best = a;
      if (n == 0 || !(gain[best] > 0)) break;
      replicas[best] += 1;
      gain[best] = marginal(best, free);  // before the GPU is counted, as the peer does
      free -= 1;
    }
    for (std::size_t a = 0; a < n; ++a) {
      auto& al = alloc[static_cast<std::size_t>(active[a])];
      if (al && static_cast<int>(al->size()) != replicas[a]) al.reset();
    }
    std::vector<std::size_t> order(n);
    for (std::size_t a = 0; a < n; ++a) order[a] = a;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return replicas[x] < replicas[y]; });
    FreeGpus gpus(nodes, per_node, alloc);
    for (std::size_t a : order) {
      auto& al = alloc[static_cast<std::size_t>(active[a])];
      if (replicas[a] > 0 && !(al && !al->empty())) {
        al = std::vector<int>{};
        gpus.take(replicas[a], *al);
      }
    }
  }

 private:
  // OptimusPolicy.predict_step_time: 4 GPUs per node whatever the cluster has (P:optimus.py:65-79).
  static double predict(const PJob& j, int r) {
    std::vector<int> placement;
    int sum = 0;
    while (sum < r) {
      placement.push_back(std::min(r - sum, 4));
      sum += placement.back();
    }
    const PolluxApp& app = *j.app;
    const int local = py_ceil(static_cast<double>(j.target_batch) / r - 1e-8);
    int accum = py_ceil(static_cast<double>(local) / app.max_local_bsz() - 1e-8) - 1;
    if (r == 1) accum = std::max(1, accum);
    int atomic = py_ceil(static_cast<double>(local) / (accum + 1) - 1e-8);
    const int count = r * (accum + 1);
    atomic = std::min(atomic, static_cast<int>(static_cast<double>(app.max_batch_size()) / count));
    const auto [step, sync] = app.throughput(placement, atomic);
    return step + (step - sync) * accum;
  }
};

}  // namespace rm::pollux_peer
