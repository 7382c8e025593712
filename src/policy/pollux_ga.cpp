#include "policy/pollux_ga.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <unordered_set>

namespace rm::pollux {
namespace {

constexpr int kPop = 100, kGenerations = 100, kMaxNodesPerJob = 16, kMaxInfills = 100;
constexpr double kCrossoverProb = 0.9;  // pymoo's default

struct Ind {
  std::vector<int> x;  // jobs x nodes
  double f[2] = {0, 0};
  int rank = 0;
  double crowd = 0;
};

class Problem {
 public:
  Problem(std::vector<PolicyJob>& jobs, const std::vector<int>& caps, std::mt19937_64& rng)
      : jobs_(jobs), J_(static_cast<int>(jobs.size())), N_(static_cast<int>(caps.size())), caps_(caps), rng_(rng) {
    long gpus = 0;
    for (int c : caps_) gpus += c;
    share_ = 1.0 / static_cast<double>(gpus);  // one GPU of the cluster's
    fair_replicas_ = std::ceil(1.0 / share_ / J_);
    const double fair_nodes = std::ceil(N_ * share_);
    for (auto& j : jobs_) {
      if (j.speedup) j.speedup->rebase(static_cast<int>(fair_nodes), static_cast<int>(fair_replicas_));
      if (j.goodput) {
        const int r = std::clamp(static_cast<int>(fair_replicas_), std::max(1, j.min_replicas), std::max(1, j.max_replicas));
        const int most = *std::max_element(caps_.begin(), caps_.end());
        j.goodput_base = j.goodput(std::max(static_cast<int>(fair_nodes), (r + most - 1) / most), r);
        if (!(j.goodput_base > 0)) j.goodput_base = 1;
      }
    }
    base_.assign(static_cast<std::size_t>(J_ * N_), 0);
    for (int j = 0; j < J_; ++j)
      for (int n = 0; n < N_; ++n) base_[static_cast<std::size_t>(j * N_ + n)] = jobs_[static_cast<std::size_t>(j)].base[static_cast<std::size_t>(n)];
    memo_.resize(static_cast<std::size_t>(J_));
  }
  const std::vector<int>& base() const { return base_; }
  int jobs() const { return J_; }
  int nodes() const { return N_; }

  double speedup(int j, int n, int r) {
    if (r == 0) return 0.0;
    const auto key = static_cast<std::int64_t>(n) * 100000 + r;
    auto& m = memo_[static_cast<std::size_t>(j)];
    if (const auto it = m.find(key); it != m.end()) return it->second;
    const PolicyJob& job = jobs_[static_cast<std::size_t>(j)];
    const double v = job.goodput ? job.goodput(n, r) / job.goodput_base
                     : job.speedup ? (*job.speedup)(n, r)
                                   : r / fair_replicas_;
    m.emplace(key, v);
    return v;
  }

  void evaluate(Ind& ind) {
    double inv = 0, util = 0;
    long active_gpus = 0;  // the GPUs of the nodes in use
    for (int n = 0; n < N_; ++n) {
      bool any = false;
      for (int j = 0; j < J_ && !any; ++j) any = ind.x[static_cast<std::size_t>(j * N_ + n)] > 0;
      if (any) active_gpus += caps_[static_cast<std::size_t>(n)];
    }
    const double total = static_cast<double>(active_gpus);
    for (int j = 0; j < J_; ++j) {
      int r = 0, nn = 0;
      bool restart = false;
      for (int n = 0; n < N_; ++n) {
        const int v = ind.x[static_cast<std::size_t>(j * N_ + n)];
        r += v;
        nn += v > 0;
        restart = restart || v != base_[static_cast<std::size_t>(j * N_ + n)];
      }
      const double sp = speedup(j, nn, r);
      double scaled = sp * share_ * N_;
      const PolicyJob& job = jobs_[static_cast<std::size_t>(j)];
      if (restart) scaled *= std::max(job.age - job.restarts * 30.0, 0.0) / (job.age + 30.0);
      inv += 1.0 / (scaled + 1e-3);
      if (r > 0) util += (sp / r) * (r / total);
    }
    const double mean = 1.0 / (inv / J_);
    ind.f[0] = -mean;
    ind.f[1] = -util;
  }

  // Pollux's repair (P:pollux.py:375-420).
  void repair(std::vector<int>& x) {
    // At most one distributed job per node: the first (in job order) keeps its replicas there.
    auto& distributed = distributed_;
    distributed.assign(static_cast<std::size_t>(J_), 0);
    for (int j = 0; j < J_; ++j) {
      int nn = 0;
      for (int n = 0; n < N_; ++n) nn += x[static_cast<std::size_t>(j * N_ + n)] > 0;
      distributed[static_cast<std::size_t>(j)] = nn > 1;
    }
    for (int n = 0; n < N_; ++n) {
      int seen = 0;
      for (int j = 0; j < J_; ++j) {
        int& v = x[static_cast<std::size_t>(j * N_ + n)];
        if (distributed[static_cast<std::size_t>(j)] && v > 0 && ++seen > 1) v = 0;
      }
    }
    // At most max_replicas GPUs and 16 nodes per job, over its nodes in a random order.
    auto& order = order_;
    order.resize(static_cast<std::size_t>(N_));
    for (int j = 0; j < J_; ++j) {
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng_);
      int sum = 0, used_nodes = 0;
      for (int n : order) {
        int& v = x[static_cast<std::size_t>(j * N_ + n)];
        const int capped = std::min(sum + v, jobs_[static_cast<std::size_t>(j)].max_replicas) - sum;
        sum += capped;
        v = capped;
        if (v > 0 && ++used_nodes > kMaxNodesPerJob) v = 0;
      }
    }
    // Node capacities, jobs in order.
    for (int n = 0; n < N_; ++n) {
      int sum = 0;
      for (int j = 0; j < J_; ++j) {
        int& v = x[static_cast<std::size_t>(j * N_ + n)];
        const int capped = std::min(sum + v, caps_[static_cast<std::size_t>(n)]) - sum;
        sum += capped;
        v = capped;
      }
    }
  }

  // Pollux's mutation (P:pollux.py:345-373).
  void mutate(std::vector<int>& x) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int j = 0; j < J_; ++j)
      if (u(rng_) < 0.1)
        for (int n = 0; n < N_; ++n) x[static_cast<std::size_t>(j * N_ + n)] = base_[static_cast<std::size_t>(j * N_ + n)];
    for (int j = 0; j < J_; ++j) {
      const double prob = u(rng_) < 0.1 ? 0.1 : 0.0;
      for (int n = 0; n < N_; ++n)
        if (u(rng_) < prob) x[static_cast<std::size_t>(j * N_ + n)] = 0;
    }
    // Some counts raised where the node has a GPU free: with probability 1/jobs for any job, and 1/(jobs there) for
    // one already there (numpy's sums over the jobs axis).
    auto &used = used_, &there = there_;
    used.assign(static_cast<std::size_t>(N_), 0);
    there.assign(static_cast<std::size_t>(N_), 0);
    for (int j = 0; j < J_; ++j)
      for (int n = 0; n < N_; ++n) {
        used[static_cast<std::size_t>(n)] += x[static_cast<std::size_t>(j * N_ + n)];
        there[static_cast<std::size_t>(n)] += x[static_cast<std::size_t>(j * N_ + n)] > 0;
      }
    for (int j = 0; j < J_; ++j)
      for (int n = 0; n < N_; ++n) {
        const int cap = caps_[static_cast<std::size_t>(n)];
        const bool fits = cap - used[static_cast<std::size_t>(n)] >= 1;
        int& v = x[static_cast<std::size_t>(j * N_ + n)];
        const double p1 = fits ? 1.0 / J_ : 0.0;
        const double p2 = fits && v > 0 ? 1.0 / std::max(there[static_cast<std::size_t>(n)], 1) : 0.0;
        if (u(rng_) < p1 + p2 - p1 * p2) v = std::uniform_int_distribution<int>(v, cap)(rng_);
      }
  }

  // Single-point crossover over jobs (P:pollux.py:331-343).
  void crossover(std::vector<int>& a, std::vector<int>& b) {
    const int point = std::uniform_int_distribution<int>(0, J_ - 1)(rng_);
    for (int j = 0; j < point; ++j)
      for (int n = 0; n < N_; ++n) std::swap(a[static_cast<std::size_t>(j * N_ + n)], b[static_cast<std::size_t>(j * N_ + n)]);
  }

 private:
  std::vector<PolicyJob>& jobs_;
  int J_, N_;
  std::vector<int> caps_;  // GPUs per node
  std::mt19937_64& rng_;
  double share_ = 0, fair_replicas_ = 1;
  std::vector<int> base_;
  std::vector<std::map<std::int64_t, double>> memo_;
  std::vector<char> distributed_;         // repair's and mutate's scratch, kept between calls
  std::vector<int> order_, used_, there_;
};

// Individuals already in the population or among the offspring (pymoo's duplicate elimination).
struct XHash {
  std::size_t operator()(const std::vector<int>& x) const noexcept {
    std::size_t h = 1469598103934665603ULL;
    for (int v : x) h = (h ^ static_cast<std::size_t>(v)) * 1099511628211ULL;
    return h;
  }
};
using XSet = std::unordered_set<std::vector<int>, XHash>;

bool dominates(const Ind& a, const Ind& b) {
  return a.f[0] <= b.f[0] && a.f[1] <= b.f[1] && (a.f[0] < b.f[0] || a.f[1] < b.f[1]);
}

// Non-dominated fronts, then crowding distance within each (NSGA-II's survival).
std::vector<std::vector<int>> fronts(const std::vector<Ind>& pop) {
  const int n = static_cast<int>(pop.size());
  std::vector<std::vector<int>> dominated(static_cast<std::size_t>(n));
  std::vector<int> count(static_cast<std::size_t>(n), 0);
  std::vector<std::vector<int>> out(1);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      if (i == k) continue;
      if (dominates(pop[static_cast<std::size_t>(i)], pop[static_cast<std::size_t>(k)])) dominated[static_cast<std::size_t>(i)].push_back(k);
      else if (dominates(pop[static_cast<std::size_t>(k)], pop[static_cast<std::size_t>(i)])) ++count[static_cast<std::size_t>(i)];
    }
  for (int i = 0; i < n; ++i)
    if (count[static_cast<std::size_t>(i)] == 0) out[0].push_back(i);
  while (!out.back().empty()) {
    std::vector<int> next;
    for (int i : out.back())
      for (int k : dominated[static_cast<std::size_t>(i)])
        if (--count[static_cast<std::size_t>(k)] == 0) next.push_back(k);
    out.push_back(next);
  }
  out.pop_back();
  return out;
}

void crowding(std::vector<Ind>& pop, const std::vector<int>& front) {
  for (int i : front) pop[static_cast<std::size_t>(i)].crowd = 0;
  if (front.size() <= 2) {
    for (int i : front) pop[static_cast<std::size_t>(i)].crowd = std::numeric_limits<double>::infinity();
    return;
  }
  for (int m = 0; m < 2; ++m) {
    std::vector<int> s = front;
    std::stable_sort(s.begin(), s.end(), [&](int a, int b) { return pop[static_cast<std::size_t>(a)].f[m] < pop[static_cast<std::size_t>(b)].f[m]; });
    const double lo = pop[static_cast<std::size_t>(s.front())].f[m], hi = pop[static_cast<std::size_t>(s.back())].f[m];
    pop[static_cast<std::size_t>(s.front())].crowd = pop[static_cast<std::size_t>(s.back())].crowd = std::numeric_limits<double>::infinity();
    if (hi == lo) continue;
    for (std::size_t k = 1; k + 1 < s.size(); ++k)
      pop[static_cast<std::size_t>(s[k])].crowd +=
          (pop[static_cast<std::size_t>(s[k + 1])].f[m] - pop[static_cast<std::size_t>(s[k - 1])].f[m]) / (hi - lo);
  }
}

std::vector<Ind> survive(std::vector<Ind> pop, std::size_t n, std::mt19937_64& rng) {
  std::vector<Ind> out;
  int rank = 0;
  for (auto& f : fronts(pop)) {
    crowding(pop, f);
    for (int i : f) pop[static_cast<std::size_t>(i)].rank = rank;
    if (out.size() + f.size() <= n) {
      for (int i : f) out.push_back(pop[static_cast<std::size_t>(i)]);
    } else {
      std::shuffle(f.begin(), f.end(), rng);  // random among equal crowding, then the most crowded out
      std::stable_sort(f.begin(), f.end(), [&](int a, int b) { return pop[static_cast<std::size_t>(a)].crowd > pop[static_cast<std::size_t>(b)].crowd; });
      for (std::size_t k = 0; out.size() < n; ++k) out.push_back(pop[static_cast<std::size_t>(f[k])]);
    }
    if (out.size() >= n) break;
    ++rank;
  }
  return out;
}

}  // namespace

std::vector<std::vector<int>> PolluxPolicy::optimize(std::vector<PolicyJob> jobs, int nodes, int gpus_per_node) {
  return optimize(std::move(jobs), std::vector<int>(static_cast<std::size_t>(nodes), gpus_per_node));
}

std::vector<std::vector<int>> PolluxPolicy::optimize(std::vector<PolicyJob> jobs, const std::vector<int>& caps,
                                                     const std::vector<std::vector<int>>* seed) {
  const auto start = std::chrono::steady_clock::now();
  // Jobs by attained service, then submission (P:pollux.py:147-150); the answer comes back in the caller's order.
  std::vector<std::size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (jobs[a].attained_service != jobs[b].attained_service) return jobs[a].attained_service < jobs[b].attained_service;
    return jobs[a].submitted < jobs[b].submitted;
  });
  std::vector<PolicyJob> sorted;
  for (std::size_t i : order) sorted.push_back(std::move(jobs[i]));
  Problem prob(sorted, caps, rng_);
  const int J = prob.jobs(), N = prob.nodes();

  // The initial population: the current allocation, or last round's final population adapted to today's jobs.
  std::vector<Ind> pop;
  if (prev_states_.empty()) {
    pop.push_back({prob.base()});
  } else {
    std::map<std::string, int> prev_index;
    for (std::size_t k = 0; k < prev_jobs_.size(); ++k) prev_index[prev_jobs_[k]] = static_cast<int>(k);
    for (const auto& ps : prev_states_) {
      Ind ind;
      ind.x.assign(static_cast<std::size_t>(J * N), 0);
      for (int j = 0; j < J; ++j) {
        const auto it = prev_index.find(sorted[static_cast<std::size_t>(j)].name);
        if (it == prev_index.end()) continue;
        for (int n = 0; n < std::min(N, prev_nodes_); ++n)
          ind.x[static_cast<std::size_t>(j * N + n)] = ps[static_cast<std::size_t>(it->second * prev_nodes_ + n)];
      }
      pop.push_back(std::move(ind));
    }
  }
  if (seed) {
    Ind ind;
    ind.x.assign(static_cast<std::size_t>(J * N), 0);
    for (int j = 0; j < J; ++j)
      for (int n = 0; n < N; ++n)
        ind.x[static_cast<std::size_t>(j * N + n)] = (*seed)[order[static_cast<std::size_t>(j)]][static_cast<std::size_t>(n)];
    pop.push_back(std::move(ind));
  }
  XSet seen;
  std::vector<Ind> init;
  for (auto& ind : pop) {
    prob.repair(ind.x);
    if (!seen.insert(ind.x).second) continue;
    prob.evaluate(ind);
    init.push_back(std::move(ind));
  }
  pop = survive(std::move(init), kPop, rng_);

  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto tournament = [&]() -> const Ind& {
    const auto n = pop.size();
    const Ind& a = pop[std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_)];
    const Ind& b = pop[std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_)];
    if (dominates(a, b)) return a;
    if (dominates(b, a)) return b;
    if (a.crowd != b.crowd) return a.crowd > b.crowd ? a : b;
    return u(rng_) < 0.5 ? a : b;
  };
  for (int gen = 1; gen < kGenerations; ++gen) {
    XSet have;
    have.reserve(4 * kPop);
    for (const auto& ind : pop) have.insert(ind.x);
    // pymoo's mating (M:pymoo/model/infill.py:36-56): up to 101 rounds of matings until kPop offspring are new.
    std::vector<Ind> off;
    for (int infills = 0; infills <= kMaxInfills && static_cast<int>(off.size()) < kPop; ++infills) {
      const int want = kPop - static_cast<int>(off.size());
      for (int m = 0; m < (want + 1) / 2 && static_cast<int>(off.size()) < kPop; ++m) {
        Ind a{tournament().x}, b{tournament().x};
        if (u(rng_) < kCrossoverProb) prob.crossover(a.x, b.x);
        for (Ind* c : {&a, &b}) {
          prob.mutate(c->x);
          prob.repair(c->x);
          if (static_cast<int>(off.size()) >= kPop || !have.insert(c->x).second) continue;
          prob.evaluate(*c);
          off.push_back(std::move(*c));
        }
      }
    }
    // No new offspring at all: the search space is spent and pymoo stops the run here
    // (M:pymoo/algorithms/genetic_algorithm.py:96-99).
    if (off.empty()) break;
    for (auto& o : off) pop.push_back(std::move(o));
    pop = survive(std::move(pop), kPop, rng_);
  }
  // The non-dominated individuals seed the next round; the one with the best first objective is the answer.
  std::vector<Ind> front;
  for (const auto& ind : pop)
    if (ind.rank == 0) front.push_back(ind);
  std::size_t best = 0;
  for (std::size_t k = 1; k < front.size(); ++k)
    if (front[k].f[0] < front[best].f[0]) best = k;
  prev_states_.clear();
  for (const auto& ind : front) prev_states_.push_back(ind.x);
  prev_jobs_.clear();
  for (const auto& j : sorted) prev_jobs_.push_back(j.name);
  prev_nodes_ = N;
  std::vector<std::vector<int>> out(jobs.size(), std::vector<int>(static_cast<std::size_t>(N), 0));
  for (int j = 0; j < J; ++j)
    for (int n = 0; n < N; ++n)
      out[order[static_cast<std::size_t>(j)]][static_cast<std::size_t>(n)] = front[best].x[static_cast<std::size_t>(j * N + n)];
  last_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace rm::pollux
