// --compat pollux (peers/pollux/pollux_sim.h). Sim::step() is one Cluster.step of Pollux's simulator
// (P:simulator.py:206-271); PJob::advance is Job.step (P:simulator.py:100-157); the comments name the file:line of
// the artifact (P: = simulator/ at c793c70) or the rule of shared/goldens/peers/pollux/README.md each piece follows.
#include "peers/pollux/pollux_sim.h"

#include <algorithm>
#include <fmt/format.h>
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <fstream>

#include "cluster/cluster_config.h"
#include "core/error.h"
#include "core/pandas_float.h"
#include <nlohmann/json.hpp>
#include "engine/engine.h"
#include "peers/named_policies.h"
#include "peers/pollux/pollux_policy.h"
#include "exec/execution_model.h"
#include "exec/goodput.h"
#include "exec/pollux_app.h"
#include "run/loaders.h"
#include "sched/job_feed.h"
#include "workload/table_reader.h"

namespace rm {
namespace {

enum class Pol { Tiresias, Optimus, Pollux, Replay };

const std::vector<NamedPolicy<Pol>>& policy_table() {
  static const std::vector<NamedPolicy<Pol>> t = {
      {"tiresias", Pol::Tiresias,
       "Tiresias as Pollux's simulator runs it: two queues split at 16 GPU-hours, whole gangs of the job's "
       "num_replicas, the node with the most free GPUs first (P:tiresias.py)"},
      {"pollux", Pol::Pollux,
       "Pollux: each job's batch re-chosen by its fitted goodput model; GPUs re-allocated every round by NSGA-II over "
       "the power mean (p = -1) of fair-share speedups with the restart penalty, and the cluster utility "
       "(P:pollux.py; seeded by --seed, not the authors' random stream)"},
      {"optimus", Pol::Optimus,
       "Optimus+Oracle+TunedJobs: one GPU each, then GPUs one at a time to the largest marginal gain in true step "
       "time x remaining iterations (P:optimus.py)"},
  };
  return t;
}

Pol policy_of(const std::string& name) { return named_policy(policy_table(), name, "Pollux", "pollux"); }

// Python's math.ceil(x) for the simulator's batch arithmetic.
int py_ceil(double x) { return static_cast<int>(std::ceil(x)); }
// Python's round(float): to the nearest integer, ties to even (the default rounding mode).
long py_round(double x) { return static_cast<long>(std::nearbyint(x)); }

struct PJob {
  const JobSpec* spec = nullptr;
  const PolluxApp* app = nullptr;
  long submit = 0;
  int target_replicas = 0, target_batch = 0;
  std::optional<long> completion;
  long current = 0, rescale = 0, first_start = -1;
  int gpus_min = 0, gpus_max = 0;  // the fewest and most GPUs it held
  std::vector<int> placement;  // GPUs per node, in allocation order
  int atomic = 0, accum = 0, epoch = 0, restarts = -1;
  double progress = 0, attained = 0;
  // A Pollux job (no fixed batch: target_batch 0) re-chooses its batch by the goodput model fitted to its profile.
  bool adaptive = false;
  bool profiles = false;  // keeps a profile and fits the throughput model (every job under Pollux; none of the baselines, whose decisions never read it)
  std::vector<pollux::StepSample> profile;  // one per (nodes, GPUs, atomic batch) seen, in the order seen
  std::optional<pollux::PerfParams> perf;
  pollux::GradParams grad;

  int gpus() const {
    int n = 0;
    for (int x : placement) n += x;
    return n;
  }

  // Job.update_local_bsz (P:simulator.py:64-83): a fixed target batch split over the GPUs, or for a Pollux job
  // the best configuration of the goodput model once fitted (before: the smallest batch the GPUs allow).
  void update_local_bsz() {
    const int r = gpus();
    if (adaptive && perf) {
      const pollux::GoodputFunction fn(*perf, grad, app->init_batch_size());
      const pollux::BatchChoice c =
          fn.optimize(static_cast<int>(placement.size()), r, app->max_batch_size(), app->min_local_bsz(), app->max_local_bsz(), true);
      atomic = c.atomic_bsz;
      accum = c.accum_steps;
    } else {
      const int b = adaptive ? std::max(app->init_batch_size(), app->min_local_bsz() * r) : target_batch;
      const int local = py_ceil(static_cast<double>(b) / r - 1e-8);
      accum = py_ceil(static_cast<double>(local) / app->max_local_bsz() - 1e-8) - 1;
      if (r == 1 && b > app->init_batch_size()) accum = std::max(1, accum);
      atomic = py_ceil(static_cast<double>(local) / (accum + 1) - 1e-8);
    }
    const int count = r * (accum + 1);
    atomic = std::min(atomic, static_cast<int>(static_cast<double>(app->max_batch_size()) / count));
  }

  // Job.step (P:simulator.py:100-157).
  void advance(long seconds, double interference) {
    if (placement.empty()) {
      current += seconds;
      return;
    }
    const long delay = std::min(rescale, seconds);
    current += delay;
    attained += static_cast<double>(delay * gpus());
    rescale -= delay;
    seconds -= delay;
    while (seconds > 0 && !completion) {
      if (epoch >= app->max_epochs()) throw InvariantError("pollux: job " + spec->name + " ran past its last epoch");
      const int r = gpus();
      const int batch = r * atomic * (accum + 1);
      const double scale = static_cast<double>(batch) / app->init_batch_size();
      const auto [step, sync] = app->throughput(placement, atomic);
      const double accum_time = step - sync;
      const auto [sqr, var] = app->grad_stats(batch, epoch);
      const double gain = (var + sqr) / (var / scale + sqr);
      if (profiles) update_params(static_cast<int>(placement.size()), r, step, sync, sqr, var);
      const double total = step + accum_time * accum;
      const double goodput = gain / total * (1.0 - interference);
      const double next = app->progress(epoch + 1);
      if (progress + goodput * static_cast<double>(seconds) < next) {
        progress += goodput * static_cast<double>(seconds);
        current += seconds;
        attained += static_cast<double>(seconds * r);
        seconds = 0;
      } else {
        ++epoch;
        const long delta = py_round((next - progress) / goodput);
        if (delta > seconds) throw InvariantError("pollux: an epoch of " + spec->name + " overran its round");
        if (epoch > app->completion_epoch()) completion = current + delta;
        progress = next;
        current += delta;
        attained += static_cast<double>(delta * r);
        seconds -= delta;
      }
      update_local_bsz();
    }
    current += seconds;
  }

  // Job.update_params (P:simulator.py:85-98): the true gradient statistics; a new (nodes, GPUs, atomic batch) point
  // joins the profile and the throughput model is fitted again over all of them.
  void update_params(int nodes, int r, double step, double sync, double sqr, double var) {
    grad = {sqr, var};
    for (const auto& p : profile)
      if (p.nodes == nodes && p.replicas == r && p.atomic_bsz == atomic) return;
    profile.push_back({nodes, r, atomic, step - sync, step});
    perf = pollux::fit_perf_params(profile);
  }

  // Job.reallocate (P:simulator.py:159-170).
  void reallocate(const std::vector<int>& p, long now) {
    if (!p.empty()) {
      placement = p;
      update_local_bsz();
      rescale = 30;
      restarts = restarts < 0 ? 0 : restarts + 1;
      if (first_start < 0) first_start = now;
      const int r = gpus();
      gpus_min = gpus_min == 0 ? r : std::min(gpus_min, r);
      gpus_max = std::max(gpus_max, r);
    } else {
      placement.clear();
      atomic = 0;
    }
  }
};

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

class Sim {
 public:
  Sim(std::vector<PJob>& jobs, Pol pol, int nodes, int per_node, long interval, double interference,
      std::uint64_t seed = 1)
      : jobs_(jobs), pol_(pol), nodes_(nodes), per_node_(per_node), interval_(interval), interference_(interference),
        alloc_(jobs.size()), tiresias_(jobs.size()), pollux_(seed) {}
  const std::vector<double>& decision_seconds() const { return decide_s_; }

  bool done() const {
    for (const auto& j : jobs_)
      if (!j.completion) return false;
    return true;
  }
  long now() const { return now_; }
  long rounds() const { return rounds_; }
  // Pol::Replay: the allocations decided at each round's end (by job; none: no GPU), as a log recorded them.
  void replay(const std::map<long, Alloc>* log) { log_ = log; }
  // Called after each round's decision (the state a log record shows).
  std::function<void(long now)> on_round;
  double busy_gpu_s() const { return busy_gpu_s_; }

  // Cluster.step (P:simulator.py:206-271).
  void step() {
    ++rounds_;
    std::vector<int> interfering(static_cast<std::size_t>(nodes_), 0);
    for (const auto& a : alloc_) {
      if (!a || distinct(*a) < 2) continue;
      std::vector<int> seen(static_cast<std::size_t>(nodes_), 0);
      for (int x : *a)
        if (!seen[static_cast<std::size_t>(x)]++) ++interfering[static_cast<std::size_t>(x)];
    }
    for (std::size_t k = 0; k < jobs_.size(); ++k) {
      double f = 0.0;
      if (alloc_[k] && distinct(*alloc_[k]) > 1)
        for (int x : *alloc_[k])
          if (interfering[static_cast<std::size_t>(x)] > 1) f = interference_;
      if (alloc_[k]) busy_gpu_s_ += static_cast<double>(alloc_[k]->size() * static_cast<std::size_t>(interval_));
      jobs_[k].advance(interval_, f);
    }
    now_ += interval_;
    std::vector<int> active;
    for (std::size_t k = 0; k < jobs_.size(); ++k)
      if (now_ >= jobs_[k].submit && !jobs_[k].completion) active.push_back(static_cast<int>(k));
    if (active.empty()) {  // nothing to decide; the round is still recorded (P:simulator.py:252)
      if (on_round) on_round(now_);
      return;
    }
    std::vector<char> in(jobs_.size(), 0);
    for (int k : active) in[static_cast<std::size_t>(k)] = 1;
    for (std::size_t k = 0; k < jobs_.size(); ++k)
      if (!in[k]) alloc_[k].reset();
    Alloc next = alloc_;
    if (pol_ == Pol::Tiresias) tiresias_.optimize(active, jobs_, now_, nodes_, per_node_, next);
    else if (pol_ == Pol::Optimus) optimus_.optimize(active, jobs_, nodes_, per_node_, next);
    else if (pol_ == Pol::Pollux) next = pollux_round(active);
    else next = logged(in);
    for (std::size_t k = 0; k < jobs_.size(); ++k) {
      if (next[k] == alloc_[k]) continue;
      std::vector<int> placement;  // runs of equal node ids
      if (next[k])
        for (std::size_t i = 0; i < next[k]->size(); ++i) {
          if (i == 0 || (*next[k])[i] != (*next[k])[i - 1]) placement.push_back(1);
          else ++placement.back();
        }
      jobs_[k].reallocate(placement, now_);
    }
    alloc_ = std::move(next);
    if (on_round) on_round(now_);
  }

 private:
  // PolluxPolicy.optimize with the simulator's job infos (P:simulator.py:321-336).
  Alloc pollux_round(const std::vector<int>& active) {
    std::vector<pollux::PolicyJob> in;
    for (int k : active) {
      const PJob& j = jobs_[static_cast<std::size_t>(k)];
      pollux::PolicyJob p;
      p.name = j.spec->name;
      if (j.perf)
        p.speedup.emplace(pollux::GoodputFunction(*j.perf, j.grad, j.app->init_batch_size()), j.app->max_batch_size(),
                          j.app->min_local_bsz(), j.app->max_local_bsz(), true);
      p.attained_service = j.attained;
      p.submitted = static_cast<double>(j.submit);
      int profiled = 0;
      for (const auto& x : j.profile) profiled = std::max(profiled, x.replicas);
      p.max_replicas = j.app->name() == "ncf" ? 1
                                                : std::min({std::max(2 * profiled, 1), 64,
                                                            j.app->max_batch_size() / j.app->min_local_bsz()});
      p.restarts = std::max(0, j.restarts);
      p.age = static_cast<double>(now_ - j.submit);
      p.base.assign(static_cast<std::size_t>(nodes_), 0);
      if (alloc_[static_cast<std::size_t>(k)])
        for (int n : *alloc_[static_cast<std::size_t>(k)]) ++p.base[static_cast<std::size_t>(n)];
      in.push_back(std::move(p));
    }
    const auto counts = pollux_.optimize(std::move(in), nodes_, per_node_);
    decide_s_.push_back(pollux_.last_round_seconds());
    Alloc out(jobs_.size());
    for (std::size_t a = 0; a < active.size(); ++a) {
      std::vector<int> nodes_of;
      for (int n = 0; n < nodes_; ++n) nodes_of.insert(nodes_of.end(), static_cast<std::size_t>(counts[a][static_cast<std::size_t>(n)]), n);
      if (!nodes_of.empty()) out[static_cast<std::size_t>(active[a])] = std::move(nodes_of);
    }
    return out;
  }

  Alloc logged(const std::vector<char>& active) const {
    Alloc out(jobs_.size());
    const auto it = log_ ? log_->find(now_) : decltype(log_->end()){};
    if (!log_ || it == log_->end())
      throw InputError("pollux log", 0, "timestamp", "no record at t = " + std::to_string(now_) + " s to replay");
    for (std::size_t k = 0; k < jobs_.size(); ++k)
      if (active[k] && it->second[k] && !it->second[k]->empty()) out[k] = it->second[k];
    return out;
  }

  static int distinct(const std::vector<int>& a) {
    std::vector<int> s = a;
    std::sort(s.begin(), s.end());
    return static_cast<int>(std::unique(s.begin(), s.end()) - s.begin());
  }

  std::vector<PJob>& jobs_;
  Pol pol_;
  int nodes_, per_node_;
  long interval_;
  double interference_;
  Alloc alloc_;
  const std::map<long, Alloc>* log_ = nullptr;
  Tiresias tiresias_;
  pollux::PolluxPolicy pollux_;
  std::vector<double> decide_s_;
  Optimus optimus_;
  long now_ = 0, rounds_ = 0;
  double busy_gpu_s_ = 0;
};

class PolluxModel final : public SteppingModel {
 public:
  explicit PolluxModel(Sim& sim, long interval) : sim_(sim), interval_(interval) {}
  std::string name() const override { return "pollux"; }
  bool searches_book() const override { return false; }
  Time next_event_time() override { return sim_.done() ? kNever : from_seconds(static_cast<double>(sim_.now() + interval_)); }
  void advance_to(Time t) override {
    while (!sim_.done() && from_seconds(static_cast<double>(sim_.now() + interval_)) <= t) sim_.step();
  }

 private:
  Sim& sim_;
  long interval_;
};

// The simulator's cluster (--min-nodes N, --num-gpus G): N identical nodes of G <= 4 GPUs (P:simulator.py:177),
// given as pollux:N:G (cluster/cluster_config.cpp) or a cluster file of one kind of node.
std::pair<int, int> cluster_shape(const ClusterSpec& c, const std::string& arg) {
  int nodes = 0, per = -1;
  for (const auto& s : c.servers) {
    if (per >= 0 && s.gpus != per)
      throw InputError("--cluster", 0, arg, "--compat pollux needs nodes of one size (pollux:N:G)");
    per = s.gpus;
    ++nodes;
  }
  if (nodes == 0 || per < 1 || per > 4)
    throw InputError("--cluster", 0, arg, "--compat pollux needs nodes of 1 <= G <= 4 GPUs (P:simulator.py:177 asserts it)");
  return {nodes, per};
}

void read_workload(const InputSpec& in, const std::string& traces, std::vector<JobSpec>& specs, std::vector<PJob>& jobs) {
  if (in.format != "auto" && in.format != "pollux")
    throw InputError("--format", 0, in.format, "--compat pollux reads the artifact's workloads: --format pollux (or auto)");
  const std::string text = TableReader::load(in.trace);
  TableReader t(in.trace, ',', &text);
  std::vector<std::string> row;
  if (!t.next(row)) throw InputError(in.trace, 0, "", "empty workload");
  t.set_header(row);
  for (const char* c : {"name", "time", "application", "num_replicas", "batch_size"})
    if (!t.column(c)) throw InputError(in.trace, t.line(), c, "required column missing (Pollux's workload CSV)");
  auto whole = [&](const std::string& field, long lo) {
    const auto x = pandas_float(t.require(row, field));
    if (!x || *x != std::floor(*x) || *x < static_cast<double>(lo) || *x > 1e9)
      throw InputError(t.file(), t.line(), field, "must be a whole number >= " + std::to_string(lo));
    return static_cast<long>(*x);
  };
  while (t.next(row)) {
    if (in.max_jobs > 0 && static_cast<long>(specs.size()) >= in.max_jobs) break;
    t.check_width(row);
    PJob j;
    j.submit = whole("time", 0);
    j.target_replicas = static_cast<int>(whole("num_replicas", 1));
    j.target_batch = static_cast<int>(whole("batch_size", 1));
    const std::string app = t.require(row, "application");
    try {
      j.app = &pollux_app(traces, app);
    } catch (const InputError& e) {
      throw InputError(t.file(), t.line(), "application", e.what());
    }
    if (j.target_batch > j.app->max_batch_size() || j.target_batch < j.app->init_batch_size())
      throw InputError(t.file(), t.line(), "batch_size",
                       std::to_string(j.target_batch) + " is outside " + app + "'s measured batch sizes (" +
                           std::to_string(j.app->init_batch_size()) + ".." + std::to_string(j.app->max_batch_size()) + ")");
    JobSpec s;
    s.id = static_cast<JobId>(specs.size());
    s.name = t.require(row, "name");
    s.submit = from_seconds(static_cast<double>(j.submit));
    s.num_gpus = j.target_replicas;
    s.model = app;
    s.file = t.file();
    s.line = t.line();
    if (!specs.empty() && s.submit < specs.back().submit)
      throw InputError(t.file(), t.line(), "time", "submit times go back: the workload must be in time order");
    specs.push_back(std::move(s));
    jobs.push_back(std::move(j));
  }
  if (specs.empty()) throw InputError(in.trace, 0, "", "no jobs in the workload");
}

}  // namespace

std::vector<std::pair<std::string, std::string>> pollux_policies() { return policy_list(policy_table()); }

PolicySpec parse_pollux_policy(const std::string& text) {
  policy_of(text);  // checked here
  return named_policy_spec(text);
}

SimResult run_pollux(const RunPlan& plan) {
  SimResult r;
  const Pol pol = policy_of(plan.policy.parts.front().name);
  r.cluster = load_config_cluster(plan.inputs);
  const auto [nodes, per_node] = cluster_shape(r.cluster, plan.inputs.cluster);
  const long interval = plan.run.round_s > 0 ? static_cast<long>(plan.run.round_s) : 60;  // --interval
  if (plan.run.round_s > 0 && plan.run.round_s != std::floor(plan.run.round_s))
    throw InputError("--round", 0, std::to_string(plan.run.round_s), "Pollux's --interval is whole seconds");
  std::vector<PJob> jobs;
  read_workload(plan.inputs, plan.inputs.data_dir + "/pollux/traces", r.workload.jobs, jobs);
  r.workload.source = plan.inputs.trace;
  r.workload.format = "pollux";
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].spec = &r.workload.jobs[i];
    if (pol == Pol::Pollux) {  // the workload's batch sizes are the baselines'; Pollux's jobs choose (ncf: 32,768)
      jobs[i].adaptive = jobs[i].app->name() != "ncf";
      jobs[i].target_batch = jobs[i].adaptive ? 0 : 32768;
      jobs[i].profiles = true;
    }
    if (pol == Pol::Tiresias && jobs[i].target_replicas > nodes * per_node)
      throw InputError(jobs[i].spec->file, jobs[i].spec->line, "num_replicas",
                       std::to_string(jobs[i].target_replicas) + " GPUs, more than the cluster's " +
                           std::to_string(nodes * per_node) + ": Tiresias would never start it");
  }
  if (plan.run.dry_run) return r;
  std::fesetround(FE_TONEAREST);
  Sim sim(jobs, pol, nodes, per_node, interval, plan.run.interference, plan.inputs.seed);
  // pollux_rounds.csv: each round's state of every submitted, unfinished job after the decision (the authors' log
  // fields, docs/formats.md): its GPUs per node, batch size, accumulation steps, epoch and restarts.
  std::string rounds = "time_s,job_id,placement,batch_size,accum_steps,epoch,restarts\n";
  sim.on_round = [&](long now) {
    for (const auto& j : jobs) {
      if (j.submit > now || j.completion) continue;
      std::string p;
      for (int x : j.placement) p += (p.empty() ? "" : "-") + std::to_string(x);
      rounds += fmt::format("{},{},{},{},{},{},{}\n", now, j.spec->name, p, j.atomic * (j.accum + 1) * j.gpus(), j.accum,
                            j.epoch, std::max(0, j.restarts));
    }
  };
  VectorFeed feed(r.workload.jobs);
  Engine engine(r.cluster, feed, nullptr, std::make_unique<PolluxModel>(sim, interval));
  engine.run();
  r.record = RunRecord{};
  r.record.total_gpus = r.cluster.total_gpus();
  r.record.busy_gpu_us = static_cast<Time>(std::llround(sim.busy_gpu_s() * 1e6));
  r.record.events = sim.rounds();
  long restarts = 0;
  double jct = 0;
  for (const auto& j : jobs) {
    JobRecord jr;
    jr.spec = j.spec;
    const double submit = static_cast<double>(j.submit), start = static_cast<double>(j.first_start),
                 end = static_cast<double>(*j.completion);
    jr.first_start = from_seconds(start);
    jr.finish = from_seconds(end);
    jr.run_us = from_seconds(end - start);
    jr.preemptions = std::max(0, j.restarts);  // re-allocations after its first start (num_restarts)
    jr.reallocations = std::max(0, j.restarts);
    jr.gpus_min = j.gpus_min;
    jr.gpus_max = j.gpus_max;
    jr.gpu_seconds = j.attained;  // restart delays included, as Pollux counts attained service
    r.record.jobs.push_back(jr);
    r.record.exact_s.push_back({submit, start, end, end - start});
    restarts += std::max(0, j.restarts);
    jct += end - submit;
  }
  r.record.files.push_back({"pollux_rounds.csv", std::move(rounds)});
  auto& ex = r.record.extra;
  ex.push_back({"pollux_rounds", static_cast<double>(sim.rounds())});
  ex.push_back({"pollux_restarts", static_cast<double>(restarts)});
  ex.push_back({"pollux_avg_jct_s", jobs.empty() ? 0.0 : jct / static_cast<double>(jobs.size())});
  if (!sim.decision_seconds().empty()) {  // the policy's time per round (the authors' GA: about 2 s in Python)
    std::vector<double> d = sim.decision_seconds();
    std::sort(d.begin(), d.end());
    ex.push_back({"pollux_round_ms_p50", 1e3 * d[d.size() / 2]});
    ex.push_back({"pollux_round_ms_p99", 1e3 * d[std::min(d.size() - 1, d.size() * 99 / 100)]});
  }
  return r;
}

std::vector<PolluxRound> replay_pollux_log(const RunPlan& plan, const std::string& log_path) {
  SimResult r;
  r.cluster = load_config_cluster(plan.inputs);
  const auto [nodes, per_node] = cluster_shape(r.cluster, plan.inputs.cluster);
  const long interval = plan.run.round_s > 0 ? static_cast<long>(plan.run.round_s) : 60;
  std::vector<PJob> jobs;
  read_workload(plan.inputs, plan.inputs.data_dir + "/pollux/traces", r.workload.jobs, jobs);
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].spec = &r.workload.jobs[i];
    index[r.workload.jobs[i].name] = i;
    // Pollux's jobs choose their batch, but ncf's is fixed at 32,768 (P:simulator.py:189-192).
    jobs[i].adaptive = jobs[i].app->name() != "ncf";
    jobs[i].profiles = true;
    jobs[i].target_batch = jobs[i].adaptive ? 0 : 32768;
  }
  std::ifstream in(log_path);
  if (!in) throw InputError(log_path, 0, "", "cannot read the Pollux log");
  std::map<long, Alloc> log;
  std::string line;
  long n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    nlohmann::json rec;
    try {
      rec = nlohmann::json::parse(line);
    } catch (const std::exception& e) {
      throw InputError(log_path, n, "", std::string("not a JSON record: ") + e.what());
    }
    Alloc a(jobs.size());
    for (const auto& j : rec.at("submitted_jobs")) {
      const auto it = index.find(j.at("name").get<std::string>());
      if (it == index.end()) throw InputError(log_path, n, "name", "a job the workload does not have");
      const auto nodes_of = j.at("allocation").get<std::vector<int>>();
      if (!nodes_of.empty()) a[it->second] = nodes_of;
    }
    log[rec.at("timestamp").get<long>()] = std::move(a);
  }
  std::fesetround(FE_TONEAREST);
  Sim sim(jobs, Pol::Replay, nodes, per_node, interval, plan.run.interference);
  sim.replay(&log);
  std::vector<PolluxRound> out;
  sim.on_round = [&](long now) {
    PolluxRound round;
    round.t = now;
    for (const auto& j : jobs) {
      if (j.submit > now) continue;
      PolluxRoundJob x{j.spec->name, j.epoch, j.progress, j.restarts, j.atomic * (j.accum + 1) * j.gpus(), j.accum,
                       j.completion ? *j.completion : -1};
      x.profiled = static_cast<int>(j.profile.size());
      x.fitted = j.perf.has_value();
      if (j.perf) x.perf = j.perf->as_array();
      round.jobs.push_back(std::move(x));
    }
    out.push_back(std::move(round));
  };
  const long last = log.empty() ? 0 : log.rbegin()->first;
  while (!sim.done() && sim.now() < last) sim.step();
  return out;
}

}  // namespace rm
