// --compat sia (peers/sia/sia_sim.h). Sim::step() is one Cluster.step of Sia's simulator (S:cluster.py:117-225),
// over the jobs of sia_job.h and the policy of sia_policy.h; S: = sia-simulator/ at siasosp23/artifacts aaf7a0d.
#include "peers/sia/sia_sim.h"

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <optional>

#include "cluster/cluster_config.h"
#include "cluster/gpu_types.h"
#include "core/error.h"
#include "core/order_stats.h"
#include "core/pandas_float.h"
#include "engine/engine.h"
#include "exec/execution_model.h"
#include "exec/pollux_app.h"
#include "peers/named_policies.h"
#include "peers/common/artifact_workload.h"
#include "peers/common/round_stepping.h"
#include "peers/sia/sia_gavel.h"
#include "peers/sia/sia_job.h"
#include "peers/sia/sia_policy.h"
#include "peers/sia/sia_pollux.h"
#include "run/loaders.h"
#include "sched/job_feed.h"
#include "workload/table_reader.h"

namespace rm {
namespace {

using sia::Assignment;
using sia::SiaCluster;
using sia::SiaGavel;
using sia::SiaPolluxUnaware;
using sia::SiaParams;
using sia::SiaPolicy;
using sia::SJob;

enum class Pol { Sia, Gavel, Pollux };

const std::vector<NamedPolicy<Pol>>& policy_table() {
  static const std::vector<NamedPolicy<Pol>> t = {
      {"sia", Pol::Sia,
       "Sia: every round, each job's goodput on every (GPU type, count) from its fitted model on that type (projected "
       "by one-GPU throughput ratios where it has none), normalised, discounted by its restart cost, raised to p = "
       "-0.5, rounded; a 0/1 program solved by Cbc picks one configuration per job "
       "(sia:p=P;lambda_n=L;lambda_a=A; S:sia.py)"},
      {"gavel", Pol::Gavel,
       "Gavel as Sia's simulator runs it (max_sum_throughput_perf, 360-s rounds by default): the trace's GPUs and batch "
       "on one type, time shares from a linear program over measured throughputs, jobs in order of share over time "
       "received (S:gavel.py)"},
      {"pollux", Pol::Pollux,
       "Pollux as Sia's simulator runs it, heterogeneity-unaware (60-s rounds, p = -1): one fitted model per job over "
       "all types, Pollux's genetic search over virtual nodes of 4 GPUs, then each job keeps the GPUs of the type it "
       "got most of (S:cluster_unaware.py, pollux_unaware.py; the search seeded by --seed)"},
  };
  return t;
}

struct ParsedSia {
  Pol pol = Pol::Sia;
  SiaParams params;
};

ParsedSia parse(const std::string& text) {
  ParsedSia out;
  const auto colon = text.find(':');
  const std::string name = text.substr(0, colon);
  out.pol = named_policy(policy_table(), name, "Sia", "sia");
  if (colon == std::string::npos) return out;
  if (out.pol != Pol::Sia) throw InputError("--policy", 0, text, "'" + name + "' takes no parameters under --compat sia");
  std::string rest = text.substr(colon + 1);
  std::size_t start = 0;
  while (start <= rest.size()) {
    const std::size_t end = std::min(rest.find(';', start), rest.size());
    const std::string kv = rest.substr(start, end - start);
    const auto eq = kv.find('=');
    if (eq == std::string::npos) throw InputError("--policy", 0, kv, "expected key=value (sia:p=-0.5;lambda_n=1.1;lambda_a=0.01)");
    const std::string key = kv.substr(0, eq), val = kv.substr(eq + 1);
    const auto x = pandas_float(val);
    if (!x || !std::isfinite(*x)) throw InputError("--policy", 0, key, "not a number: '" + val + "'");
    if (key == "p") {
      if (*x == 0) throw InputError("--policy", 0, key, "Sia's p must not be 0");
      out.params.p = *x;
    } else if (key == "lambda_n") {
      out.params.lambda_n = *x;
    } else if (key == "lambda_a") {
      out.params.lambda_a = *x;
    } else {
      throw InputError("--policy", 0, key, "unknown Sia parameter (p, lambda_n, lambda_a)");
    }
    start = end + 1;
  }
  return out;
}

// The cluster as Sia's simulator sees it: GPU types in order of first appearance, each all of one node size (4 or 8
// GPUs, sia.py's two configuration tables), named by Sia's tables.
SiaCluster cluster_of(const ClusterSpec& c, const std::string& arg, std::vector<std::string>& our_names) {
  SiaCluster out;
  for (const auto& s : c.servers) {
    const KnownGpuType* k = find_gpu_type(s.gpu_type);
    if (!k || k->sia.empty())
      throw InputError("--cluster", 0, arg,
                       "--compat sia needs GPU types Sia measured (t4, a100, rtx2080ti, v100, quadro-rtx6000), not '" +
                           s.gpu_type + "'");
    const auto it = std::find(out.types.begin(), out.types.end(), k->sia);
    if (it == out.types.end()) {
      if (s.gpus != 4 && s.gpus != 8)
        throw InputError("--cluster", 0, arg, "--compat sia needs nodes of 4 or 8 GPUs (sia.py's configurations)");
      out.types.push_back(k->sia);
      our_names.push_back(k->name);
      out.nodes.push_back(1);
      out.per_node.push_back(s.gpus);
      out.max_physical.push_back(sia::max_physical_nodes(k->sia));
    } else {
      const auto t = static_cast<std::size_t>(it - out.types.begin());
      if (out.per_node[t] != s.gpus)
        throw InputError("--cluster", 0, arg, "--compat sia needs all nodes of one GPU type to have the same GPUs");
      ++out.nodes[t];
    }
  }
  if (out.types.empty()) throw InputError("--cluster", 0, arg, "no servers");
  return out;
}

void read_workload(const InputSpec& in, const std::string& traces, const SiaCluster& cl, Pol pol,
                   std::vector<JobSpec>& specs, std::vector<SJob>& jobs) {
  const auto rows = read_artifact_workload(in, "sia", false, specs);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const ArtifactRow& a = rows[k];
    if (!a.category.empty())
      throw InputError(a.file, a.line, "category",
                       "job categories (rigid, scale-gpus) are not implemented under --compat sia yet; leave it empty");
    SJob j;
    j.submit = a.time;
    j.target_replicas = a.replicas;
    j.target_batch = a.batch;
    j.app_name = a.app;
    j.name = specs[specs.size() - rows.size() + k].name;
    try {
      std::vector<const PolluxApp*> apps;
      for (const auto& type : cl.types) apps.push_back(&sia_app(traces, type, j.app_name));
      j.apps = std::move(apps);
    } catch (const InputError& e) {
      throw InputError(a.file, a.line, "application", e.what());
    }
    if (pol == Pol::Pollux) {  // no target batch but ncf's (S:cluster_unaware.py:55-62)
      j.target_batch = j.app_name == "ncf" ? 32768 : 0;
      j.merged = true;
      j.aws = &sia_app(traces, "aws", j.app_name);
    }
    if (pol == Pol::Sia && j.app_name == "ncf") j.target_batch = 32768;  // S:cluster.py:67-70
    j.tune_bsz = pol != Pol::Gavel;  // Gavel's jobs keep the trace's batch (S:multi_simulator.py:62-63)
    if (j.target_batch > 0 && j.target_batch < j.apps.front()->init_batch_size())
      throw InputError(a.file, a.line, "batch_size",
                       std::to_string(j.target_batch) + " is below " + j.app_name + "'s least measured batch (" +
                           std::to_string(j.apps.front()->init_batch_size()) + "; Sia's goodput model asserts)");
    j.init(j.apps);
    jobs.push_back(std::move(j));
  }
}

class Sim {
 public:
  Sim(std::vector<SJob>& jobs, SiaCluster cl, Pol pol, SiaParams params, long interval, std::uint64_t seed)
      : jobs_(jobs), cl_(cl), pol_(pol), policy_(cl, params), gavel_(cl, interval), pollux_(cl, seed), interval_(interval),
        alloc_(jobs.size()) {}

  bool done() const {
    for (const auto& j : jobs_)
      if (!j.completion) return false;
    return true;
  }
  long now() const { return now_; }
  long rounds() const { return rounds_; }
  double busy_gpu_s() const { return busy_gpu_s_; }
  const std::vector<sia::SiaRoundStats>& stats() const {
    return pol_ == Pol::Sia ? policy_.stats() : pol_ == Pol::Gavel ? gavel_.stats() : pollux_.stats();
  }
  long wasted_gpu_rounds() const { return pollux_.wasted_gpu_rounds(); }

  void step() {
    ++rounds_;
    for (auto& j : jobs_) {
      if (!j.completion && !j.placement.empty()) busy_gpu_s_ += static_cast<double>(j.gpus() * interval_);
      j.advance(interval_);
    }
    now_ += interval_;
    std::vector<const SJob*> active;
    std::vector<std::size_t> index;
    for (std::size_t k = 0; k < jobs_.size(); ++k)
      if (static_cast<double>(now_) >= jobs_[k].submit && !jobs_[k].completion) active.push_back(&jobs_[k]), index.push_back(k);
    if (active.empty()) return;  // S:cluster.py:165-166: no decision, the allocations kept
    std::vector<char> in(jobs_.size(), 0);
    for (std::size_t k : index) in[k] = 1;
    for (std::size_t k = 0; k < jobs_.size(); ++k)
      if (!in[k]) alloc_[k].reset();
    std::vector<std::optional<Assignment>> next;
    if (pol_ == Pol::Sia) {
      for (auto& a : policy_.optimize(active, now_)) next.emplace_back(std::move(a));
    } else if (pol_ == Pol::Gavel) {
      next = gavel_.optimize(active, now_);
    } else {
      for (auto& a : pollux_.optimize(active, now_)) next.emplace_back(std::move(a));
    }
    check(next, index);
    // S:cluster.py:180-228: a job whose GPUs changed migrates (another type, or none) or re-allocates on its type
    // (a restart only if its GPUs per node changed).
    for (std::size_t a = 0; a < index.size(); ++a) {
      const std::size_t k = index[a];
      SJob& j = jobs_[k];
      const std::optional<Assignment>& n = next[a];
      // Pollux's raw search result never equals the previous mapped allocation (S:cluster_unaware.py:181): every job
      // is looked at, and re-allocated where its nodes changed.
      if (pol_ != Pol::Pollux && alloc_[k] == n) continue;
      if (pol_ == Pol::Pollux && alloc_[k] && n && j.cluster == n->type && alloc_[k]->nodes == n->nodes) {
        alloc_[k] = n;
        continue;
      }
      const int type = n ? n->type : -1;
      const std::vector<int> none;
      const std::vector<int>& nodes = n ? n->nodes : none;
      if (pol_ == Pol::Gavel && !nodes.empty() && static_cast<int>(nodes.size()) != j.target_replicas)
        throw InvariantError("sia gavel: " + j.spec->name + " given " + std::to_string(nodes.size()) + " GPUs, not its " +
                             std::to_string(j.target_replicas));
      std::vector<int> placement;
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (i == 0 || nodes[i] != nodes[i - 1]) placement.push_back(1);
        else ++placement.back();
      }
      if (type >= 0 && static_cast<int>(placement.size()) > cl_.max_physical[static_cast<std::size_t>(type)]) {
        int reps = static_cast<int>(nodes.size());
        const int per = static_cast<int>(std::ceil(static_cast<double>(reps) / cl_.max_physical[static_cast<std::size_t>(type)]));
        placement.clear();
        while (reps > 0) placement.push_back(std::min(per, reps)), reps -= std::min(per, reps);
      }
      if (j.cluster != type) j.migrate(type, placement, now_);
      else j.reallocate(placement, now_);
      alloc_[k] = n;
    }
  }

 private:
  // A decision gives no type more GPUs than it has and no node more than its own: a policy's bug (exit 3).
  void check(const std::vector<std::optional<Assignment>>& next, const std::vector<std::size_t>& index) const {
    std::vector<std::vector<int>> used(cl_.types.size());
    for (std::size_t t = 0; t < cl_.types.size(); ++t) used[t].assign(static_cast<std::size_t>(cl_.nodes[t]), 0);
    for (std::size_t a = 0; a < next.size(); ++a) {
      if (!next[a] || next[a]->type < 0) continue;
      const auto t = static_cast<std::size_t>(next[a]->type);
      for (int node : next[a]->nodes)
        if (node < 0 || node >= cl_.nodes[t] || ++used[t][static_cast<std::size_t>(node)] > cl_.per_node[t])
          throw InvariantError("sia: t = " + std::to_string(now_) + " s, job " + jobs_[index[a]].spec->name + ": node " +
                               std::to_string(node) + " of " + cl_.types[t] + " given more GPUs than it has");
    }
  }

  std::vector<SJob>& jobs_;
  SiaCluster cl_;
  Pol pol_;
  SiaPolicy policy_;
  SiaGavel gavel_;
  SiaPolluxUnaware pollux_;
  long interval_;
  std::vector<std::optional<Assignment>> alloc_;
  long now_ = 0, rounds_ = 0;
  double busy_gpu_s_ = 0;
};


}  // namespace

std::vector<std::pair<std::string, std::string>> sia_policies() { return policy_list(policy_table()); }

PolicySpec parse_sia_policy(const std::string& text) {
  parse(text);  // checked here
  return named_policy_spec(text);
}

SimResult run_sia(const RunPlan& plan) {
  const ParsedSia pol = parse(plan.policy.text);
  SimResult r;
  r.cluster = load_config_cluster(plan.inputs);
  std::vector<std::string> our_names;
  const SiaCluster cl = cluster_of(r.cluster, plan.inputs.cluster, our_names);
  if (plan.run.round_s > 0 && plan.run.round_s != std::floor(plan.run.round_s))
    throw InputError("--round", 0, std::to_string(plan.run.round_s), "Sia's --interval is whole seconds");
  // --interval: the artifact's run_experiment.sh gives Sia 60 s and Gavel 360 s.
  const long interval = plan.run.round_s > 0 ? static_cast<long>(plan.run.round_s) : pol.pol == Pol::Gavel ? 360 : 60;
  std::vector<SJob> jobs;
  read_workload(plan.inputs, plan.inputs.data_dir + "/sia/traces", cl, pol.pol, r.workload.jobs, jobs);
  r.workload.source = plan.inputs.trace;
  r.workload.format = "pollux";
  for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].spec = &r.workload.jobs[i];
  if (plan.run.dry_run) return r;
  std::fesetround(FE_TONEAREST);
  Sim sim(jobs, cl, pol.pol, pol.params, interval, plan.inputs.seed);
  VectorFeed feed(r.workload.jobs);
  Engine engine(r.cluster, feed, nullptr, std::make_unique<RoundStepping<Sim>>(sim, interval, "sia"));
  engine.run();
  r.record = RunRecord{};
  r.record.total_gpus = r.cluster.total_gpus();
  r.record.busy_gpu_us = static_cast<Time>(std::llround(sim.busy_gpu_s() * 1e6));
  r.record.events = sim.rounds();
  long restarts = 0, migrations = 0;
  for (const auto& j : jobs) {
    JobRecord jr;
    jr.spec = j.spec;
    const double submit = j.submit, start = static_cast<double>(j.first_start),
                 end = static_cast<double>(*j.completion);
    jr.first_start = from_seconds(start);
    jr.finish = from_seconds(end);
    jr.run_us = from_seconds(end - start);
    jr.preemptions = std::max(0, j.restarts);
    jr.reallocations = std::max(0, j.restarts);
    jr.gpus_min = j.gpus_min;
    jr.gpus_max = j.gpus_max;
    jr.gpu_seconds = j.attained;
    std::string types;
    for (int t : j.types_used) types += (types.empty() ? "" : "+") + our_names[static_cast<std::size_t>(t)];
    if (!types.empty()) jr.gpu_type = gpu_type_index(r.record, types);
    migrations += std::max<long>(0, static_cast<long>(j.types_used.size()) - 1);
    r.record.jobs.push_back(jr);
    r.record.exact_s.push_back({submit, start, end, end - start});
    restarts += std::max(0, j.restarts);
  }
  // sia_rounds.csv: each round's program (docs/formats.md): jobs, rows, columns, objective value, solve time.
  std::string rounds = "time_s,jobs,rows,cols,objective,solve_ms,round_ms,ones\n";
  std::vector<double> solve;
  for (const auto& s : sim.stats()) {
    std::string ones;
    for (int x : s.ones) ones += (ones.empty() ? "" : " ") + std::to_string(x);
    rounds += fmt::format("{},{},{},{},{:.17g},{:.3f},{:.3f},{}\n", s.t, s.jobs, s.rows, s.cols, s.objective,
                          s.solve_ms, s.round_ms, ones);
    solve.push_back(s.solve_ms);
  }
  r.record.files.push_back({"sia_rounds.csv", std::move(rounds)});
  auto& ex = r.record.extra;
  ex.push_back({"sia_rounds", static_cast<double>(sim.rounds())});
  ex.push_back({"sia_restarts", static_cast<double>(restarts)});
  ex.push_back({"sia_type_changes", static_cast<double>(migrations)});
  if (pol.pol == Pol::Pollux) ex.push_back({"sia_pollux_idle_gpu_rounds", static_cast<double>(sim.wasted_gpu_rounds())});
  if (!solve.empty()) {
    const auto [p50, p99] = p50_p99(solve);
    ex.push_back({"sia_solve_ms_p50", p50});
    ex.push_back({"sia_solve_ms_p99", p99});
  }
  return r;
}

}  // namespace rm
