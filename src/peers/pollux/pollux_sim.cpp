// --compat pollux (peers/pollux/pollux_sim.h). Sim::step() is one Cluster.step of Pollux's simulator
// (P:simulator.py:206-271), over the jobs of pollux_job.h and the policies of baselines.h and policy/pollux_ga.h; the comments name the file:line of
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
#include <tuple>
#include <fstream>

#include "cluster/cluster_config.h"
#include "core/error.h"
#include "core/order_stats.h"
#include "core/pandas_float.h"
#include <nlohmann/json.hpp>
#include "engine/engine.h"
#include "peers/named_policies.h"
#include "peers/common/artifact_workload.h"
#include "peers/common/round_stepping.h"
#include "peers/pollux/baselines.h"
#include "peers/pollux/pollux_job.h"
#include "policy/pollux_ga.h"
#include "exec/execution_model.h"
#include "exec/goodput.h"
#include "exec/pollux_app.h"
#include "run/loaders.h"
#include "sched/job_feed.h"
#include "workload/table_reader.h"

namespace rm {
namespace {

using pollux_peer::Alloc;
using pollux_peer::Optimus;
using pollux_peer::PJob;
using pollux_peer::Tiresias;

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
    check(next, in);
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
  // A decision gives no node more GPUs than it has, no GPU on a node that does not exist and none to a job not
  // active (the simulator asserts the first, P:simulator.py:240): a policy's bug (exit 3), or a replayed log's
  // error, naming the job and the time.
  void check(const Alloc& next, const std::vector<char>& active) const {
    std::vector<int> used(static_cast<std::size_t>(nodes_), 0);
    for (std::size_t k = 0; k < next.size(); ++k) {
      if (!next[k]) continue;
      const std::string who = "pollux: t = " + std::to_string(now_) + " s, job " + jobs_[k].spec->name + ": ";
      if (!active[k]) throw InvariantError(who + "GPUs for a job not submitted or already complete");
      for (int n : *next[k]) {
        if (n < 0 || n >= nodes_) throw InvariantError(who + "node " + std::to_string(n) + " does not exist");
        if (++used[static_cast<std::size_t>(n)] > per_node_)
          throw InvariantError(who + "node " + std::to_string(n) + " given more than its " + std::to_string(per_node_) + " GPUs");
      }
    }
  }

  // PolluxPolicy.optimize with the simulator's job infos (P:simulator.py:321-336).
  Alloc pollux_round(const std::vector<int>& active) {
    std::vector<pollux::PolicyJob> in;
    for (int k : active) {
      const PJob& j = jobs_[static_cast<std::size_t>(k)];
      pollux::PolicyJob p;
      p.name = j.spec->name;
      p.speedup = j.speedup();
      p.attained_service = j.attained;
      p.submitted = static_cast<double>(j.submit);
      p.max_replicas = j.max_replicas();
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
    std::vector<int> used(static_cast<std::size_t>(nodes_), 0);
    for (std::size_t k = 0; k < jobs_.size(); ++k) {
      if (!active[k] || !it->second[k] || it->second[k]->empty()) continue;
      for (int n : *it->second[k])
        if (n < 0 || n >= nodes_ || ++used[static_cast<std::size_t>(n)] > per_node_)
          throw InputError("pollux log", 0, "allocation",
                           "t = " + std::to_string(now_) + " s, job " + jobs_[k].spec->name + ": node " +
                               std::to_string(n) + " is not a node of this cluster or has no GPU left");
      out[k] = it->second[k];
    }
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
  for (const ArtifactRow& a : read_artifact_workload(in, "pollux", true, specs)) {
    PJob j;
    j.submit = static_cast<long>(a.time);
    j.target_replicas = a.replicas;
    j.target_batch = a.batch;
    try {
      j.app = &pollux_app(traces, a.app);
    } catch (const InputError& e) {
      throw InputError(a.file, a.line, "application", e.what());
    }
    if (j.target_batch > j.app->max_batch_size() || j.target_batch < j.app->init_batch_size())
      throw InputError(a.file, a.line, "batch_size",
                       std::to_string(j.target_batch) + " is outside " + a.app + "'s measured batch sizes (" +
                           std::to_string(j.app->init_batch_size()) + ".." + std::to_string(j.app->max_batch_size()) + ")");
    jobs.push_back(std::move(j));
  }
}

// What both entry points read: the cluster (N nodes of G GPUs), the round, the workload and its jobs (Pollux's own
// when `pollux_jobs`), and the rounding mode Python's round needs.
struct Setup {
  SimResult r;
  int nodes = 0, per_node = 0;
  long interval = 60;
  std::vector<PJob> jobs;  // their specs point into r.workload.jobs
};

std::unique_ptr<Setup> load_setup(const RunPlan& plan, bool pollux_jobs) {
  auto s = std::make_unique<Setup>();
  s->r.cluster = load_config_cluster(plan.inputs);
  std::tie(s->nodes, s->per_node) = cluster_shape(s->r.cluster, plan.inputs.cluster);
  if (plan.run.round_s > 0 && plan.run.round_s != std::floor(plan.run.round_s))
    throw InputError("--round", 0, std::to_string(plan.run.round_s), "Pollux's --interval is whole seconds");
  if (plan.run.round_s > 0) s->interval = static_cast<long>(plan.run.round_s);  // --interval
  read_workload(plan.inputs, plan.inputs.data_dir + "/pollux/traces", s->r.workload.jobs, s->jobs);
  s->r.workload.source = plan.inputs.trace;
  s->r.workload.format = "pollux";
  for (std::size_t i = 0; i < s->jobs.size(); ++i) {
    s->jobs[i].spec = &s->r.workload.jobs[i];
    if (pollux_jobs) s->jobs[i].make_pollux_job();
  }
  std::fesetround(FE_TONEAREST);
  return s;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> pollux_policies() { return policy_list(policy_table()); }

PolicySpec parse_pollux_policy(const std::string& text) {
  policy_of(text);  // checked here
  return named_policy_spec(text);
}

SimResult run_pollux(const RunPlan& plan) {
  const Pol pol = policy_of(plan.policy.parts.front().name);
  const auto setup = load_setup(plan, pol == Pol::Pollux);  // the baselines keep the workload's batch sizes
  SimResult& r = setup->r;
  std::vector<PJob>& jobs = setup->jobs;
  const int nodes = setup->nodes, per_node = setup->per_node;
  const long interval = setup->interval;
  for (const auto& j : jobs)
    if (pol == Pol::Tiresias && j.target_replicas > nodes * per_node)
      throw InputError(j.spec->file, j.spec->line, "num_replicas",
                       std::to_string(j.target_replicas) + " GPUs, more than the cluster's " +
                           std::to_string(nodes * per_node) + ": Tiresias would never start it");
  if (plan.run.dry_run) return std::move(r);
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
  Engine engine(r.cluster, feed, nullptr, std::make_unique<RoundStepping<Sim>>(sim, interval, "pollux"));
  engine.run();
  r.record = RunRecord{};
  r.record.total_gpus = r.cluster.total_gpus();
  r.record.busy_gpu_us = static_cast<Time>(std::llround(sim.busy_gpu_s() * 1e6));
  r.record.events = sim.rounds();
  long restarts = 0;
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
  }
  r.record.files.push_back({"pollux_rounds.csv", std::move(rounds)});
  auto& ex = r.record.extra;
  ex.push_back({"pollux_rounds", static_cast<double>(sim.rounds())});
  ex.push_back({"pollux_restarts", static_cast<double>(restarts)});
  if (!sim.decision_seconds().empty()) {  // the policy's time per round (the authors' GA: about 2 s in Python)
    const auto [p50, p99] = p50_p99(sim.decision_seconds());
    ex.push_back({"pollux_round_ms_p50", 1e3 * p50});
    ex.push_back({"pollux_round_ms_p99", 1e3 * p99});
  }
  return std::move(r);
}

std::vector<PolluxRound> replay_pollux_log(const RunPlan& plan, const std::string& log_path) {
  const auto setup = load_setup(plan, true);
  std::vector<PJob>& jobs = setup->jobs;
  const int nodes = setup->nodes, per_node = setup->per_node;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < jobs.size(); ++i) index[jobs[i].spec->name] = i;
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
  Sim sim(jobs, Pol::Replay, nodes, per_node, setup->interval, plan.run.interference);
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
