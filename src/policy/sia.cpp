// Sia's policy on the engine (Jayaram Subramanya et al., SOSP'23; docs/sia.md "On the engine"): every round
// (round=60 s) each job's goodput on every configuration (GPU type x count: Sia's tables of counts, 1-8 GPUs on one
// node, then whole nodes; a rigid job's own count): under --job-model sia from the job's own fitted model on each type
// as Sia's scheduler reads it (policy/sia_goodput.h, the --compat sia arithmetic), otherwise from the run's performance
// model as an oracle (its progress rate on that many GPUs of that type, spread over the fewest servers, at the job's
// own batch); normalised to the job's least, discounted by Sia's
// re-allocation factor on every configuration but its current one, raised to p, rounded to 2 decimals; then the 0/1
// program of --compat sia (policy/sia_mip.h, Cbc) picks at most one configuration per job within each type's GPUs, and
// the chosen counts are placed on that type's servers (a job that keeps its configuration keeps its GPUs; whole free
// servers first for a multi-server count, then the fullest servers that hold it).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <unordered_map>

#include "core/error.h"
#include "core/order_stats.h"
#include "policy/elastic_policies.h"
#include "cluster/gpu_types.h"
#include "exec/job_model_view.h"
#include "exec/sia_trainer.h"
#include "policy/sia_goodput.h"
#include "policy/sia_mip.h"

namespace rm {
namespace {


class SiaEngine final : public Scheduler {
 public:
  explicit SiaEngine(PluginParams& p)
      : clock_(from_seconds(p.get_double("round", 60, 1, 1e6))), p_(p.get_double("p", -0.5, -100, 100)), lambda_n_(p.get_double("lambda_n", 1.1, -1e6, 1e6)) {
    p.get_double("lambda_a", 0.01, 0, 1e6);  // accepted as Sia's scripts pass it; sia.py never reads it
    if (clock_.round() <= 0) throw InputError("--policy", 0, "round", "must be > 0 seconds");
    if (p_ == 0 || !std::isfinite(p_)) throw InputError("--policy", 0, "p", "Sia's p must be a number other than 0");
    if (!std::isfinite(lambda_n_)) throw InputError("--policy", 0, "lambda_n", "must be a number");
  }
  std::string name() const override { return "sia"; }

  Decisions schedule(const SchedContext& ctx) override {
    Decisions d;
    for (const JobState* j : ctx.finished) rates_.erase(j->id());
    std::vector<const JobState*> jobs(ctx.active.begin(), ctx.active.end());
    if (!clock_.due(ctx.now, jobs.empty(), d)) return d;
    if (!ctx.span_iteration_s)
      throw InputError("--policy", 0, "sia", "needs the simulator's performance model (it runs under simulate only)");
    const auto t0 = std::chrono::steady_clock::now();
    const GpuTypes& types = ctx.cluster.types();
    const ClusterSpec& c = ctx.cluster.spec();
    const int T = types.count();
    // Each type's servers, GPUs per server (the most among them) and GPUs.
    std::vector<std::vector<int>> servers(static_cast<std::size_t>(T));
    std::vector<int> per(static_cast<std::size_t>(T), 0), cap(static_cast<std::size_t>(T), 0);
    for (int s = 0; s < static_cast<int>(c.servers.size()); ++s) {
      const int t = types.of_server[static_cast<std::size_t>(s)];
      servers[static_cast<std::size_t>(t)].push_back(s);
      per[static_cast<std::size_t>(t)] = std::max(per[static_cast<std::size_t>(t)], c.servers[static_cast<std::size_t>(s)].gpus);
      cap[static_cast<std::size_t>(t)] += c.servers[static_cast<std::size_t>(s)].gpus;
    }
    // The configurations: Sia's counts per type that fit its servers, and every rigid job's own count on each type.
    std::vector<sia::Config> configs;
    // At most the nodes Sia's tables measured for a type it knows (S:simulator_config.py:15), else all its servers.
    std::vector<int> max_nodes(static_cast<std::size_t>(T));
    for (int t = 0; t < T; ++t) {
      const KnownGpuType* k = find_gpu_type(types.names[static_cast<std::size_t>(t)]);
      const int n = static_cast<int>(servers[static_cast<std::size_t>(t)].size());
      max_nodes[static_cast<std::size_t>(t)] = k && !k->sia.empty() ? std::min(n, sia::max_physical_nodes(k->sia)) : n;
    }
    auto add = [&](int t, int g) {
      const int nodes = (g + per[static_cast<std::size_t>(t)] - 1) / per[static_cast<std::size_t>(t)];
      if (g > cap[static_cast<std::size_t>(t)] || nodes > max_nodes[static_cast<std::size_t>(t)]) return;
      for (const auto& x : configs)
        if (x.type == t && x.gpus == g) return;
      configs.push_back({t, nodes, g});
    };
    for (int t = 0; t < T; ++t)
      for (const auto& [n, g] : sia::configs_for(per[static_cast<std::size_t>(t)] <= 4 ? 4 : 8)) add(t, g);
    for (const JobState* j : jobs)
      if (!j->spec->elastic())
        for (int t = 0; t < T; ++t) add(t, j->spec->num_gpus);
    std::stable_sort(configs.begin(), configs.end(), [](const sia::Config& a, const sia::Config& b) {
      return a.type != b.type ? a.type < b.type : a.gpus < b.gpus;
    });
    sia::SiaProgram prog;
    prog.jobs = static_cast<int>(jobs.size());
    prog.configs = static_cast<int>(configs.size());
    prog.lambda_n = lambda_n_;
    prog.minimize = p_ < 0;
    for (const auto& k : configs) prog.config_gpus.push_back(k.gpus), prog.config_type.push_back(k.type);
    prog.capacity = cap;
    const double zero = std::pow(1e-4, p_);  // ZERO_ALLOC_GAIN ** p: a configuration the job cannot take
    for (const JobState* j : jobs) {
      const double factor = sia::realloc_factor(to_seconds(ctx.now - j->spec->submit), j->reallocations + j->preemptions,
                                                sia::restart_penalty(j->spec->model));
      const int current = j->running() ? current_config(*j, configs, types) : -1;
      const sia::SiaTrainer* tr = ctx.job_model ? ctx.job_model->sia_trainer(*j) : nullptr;
      if (tr) {  // Sia's jobs (--job-model sia): their own fitted models per type, as Sia's scheduler reads them
        std::vector<float> row = sia::goodput_row(*tr, configs, per, true);
        for (std::size_t k = 0; k < configs.size(); ++k)
          if (configs[k].gpus < j->spec->min_gpus() || configs[k].gpus > j->spec->max_gpus()) row[k] = 0.0001f;
        sia::append_costs(std::move(row), current, factor, p_, prog.A);
        continue;
      }
      std::vector<double> g(configs.size(), 0.0);
      double least = 0;
      for (std::size_t k = 0; k < configs.size(); ++k) {
        const int n = configs[k].gpus;
        if (n < j->spec->min_gpus() || n > j->spec->max_gpus()) continue;
        g[k] = rate(ctx, *j, configs[k].type, configs[k].nodes, n, servers[static_cast<std::size_t>(configs[k].type)]);
        if (g[k] > 0 && (least == 0 || g[k] < least)) least = g[k];
      }
      for (std::size_t k = 0; k < configs.size(); ++k) {
        if (g[k] <= 0) {
          prog.A.push_back(std::min(zero, 3000.0));
          continue;
        }
        double s = g[k] / least;
        if (static_cast<int>(k) != current) s *= factor;
        double a = std::round(std::pow(s, p_) * 100.0) / 100.0;
        prog.A.push_back(std::min(a, 3000.0));
      }
    }
    const sia::SiaSolution sol = sia::solve_sia_program(prog);
    place(ctx, jobs, configs, sol.choice, servers, d);
    round_ms_.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    return d;
  }

  void report(std::vector<std::pair<std::string, double>>& stable,
              std::vector<std::pair<std::string, double>>& timing) const override {
    report_rounds("sia", round_ms_, stable, timing);
  }

 private:
  // The configuration a running job holds now (its type and count), or -1.
  static int current_config(const JobState& j, const std::vector<sia::Config>& configs, const GpuTypes& types) {
    if (j.gpus.empty()) return -1;
    const int t = types.of_server.at(static_cast<std::size_t>(j.gpus.front().server));
    for (std::size_t k = 0; k < configs.size(); ++k)
      if (configs[k].type == t && configs[k].gpus == static_cast<int>(j.gpus.size())) return static_cast<int>(k);
    return -1;
  }

  // Iterations (of its requested work) per second of j on g GPUs of type t, over the fewest of that type's servers.
  double rate(const SchedContext& ctx, const JobState& j, int t, int nodes, int g, const std::vector<int>& of_type) {
    auto& memo = rates_[j.id()];
    const auto key = static_cast<std::int64_t>(t) * 1000000 + g;
    if (const auto it = memo.find(key); it != memo.end()) return it->second;
    const double v = spread_rate(ctx, *j.spec, std::vector<int>(of_type.begin(), of_type.begin() + nodes), g);
    memo.emplace(key, v);
    return v;
  }

  // Jobs that keep their configuration keep their GPUs; the others release theirs, then take their counts on their
  // type, largest first (stable): whole free servers for the whole-server part, then the fullest servers that hold
  // the rest, on no more servers than the configuration's. A job that does not fit (the program counts GPUs, not
  // servers) waits this round.
  void place(const SchedContext& ctx, const std::vector<const JobState*>& jobs, const std::vector<sia::Config>& configs,
             const std::vector<int>& choice, const std::vector<std::vector<int>>& servers, Decisions& d) {
    FreeMap free(ctx.cluster);
    const GpuTypes& types = ctx.cluster.types();
    std::vector<std::size_t> todo;
    for (std::size_t a = 0; a < jobs.size(); ++a) {
      const JobState& j = *jobs[a];
      const int k = choice[a];
      const bool keeps = j.running() && k >= 0 && current_config(j, configs, types) == k;
      if (keeps) continue;
      if (j.running()) free.give(j.gpus);
      if (k >= 0) todo.push_back(a);
      else if (j.running()) d.preempt.push_back(j.id());
    }
    std::stable_sort(todo.begin(), todo.end(), [&](std::size_t x, std::size_t y) {
      return configs[static_cast<std::size_t>(choice[x])].gpus > configs[static_cast<std::size_t>(choice[y])].gpus;
    });
    for (std::size_t a : todo) {
      const JobState& j = *jobs[a];
      const sia::Config& cf = configs[static_cast<std::size_t>(choice[a])];
      const auto& of_type = servers[static_cast<std::size_t>(cf.type)];
      std::vector<GpuRef> gpus;
      int left = cf.gpus;
      std::vector<char> used(of_type.size(), 0);
      for (std::size_t i = 0; i < of_type.size() && left > 0; ++i) {  // whole free servers
        const int s = of_type[i];
        const int size = ctx.cluster.spec().servers[static_cast<std::size_t>(s)].gpus;
        if (left >= size && free.free_on(s) == size) {
          const auto g = free.take_from(s, size);
          gpus.insert(gpus.end(), g.begin(), g.end());
          free.take(g);
          used[i] = 1;
          left -= size;
        }
      }
      int spanned = 0;
      for (char u : used) spanned += u;
      while (left > 0 && spanned < cf.nodes) {  // the fullest server that holds the rest, else the one with most free
        int best = -1;
        for (std::size_t i = 0; i < of_type.size(); ++i) {
          const int f = free.free_on(of_type[i]);
          if (used[i] || f == 0) continue;
          if (best < 0) best = static_cast<int>(i);
          const int fb = free.free_on(of_type[static_cast<std::size_t>(best)]);
          const bool holds = f >= left, best_holds = fb >= left;
          if ((holds && (!best_holds || f < fb)) || (!holds && !best_holds && f > fb)) best = static_cast<int>(i);
        }
        if (best < 0) break;
        const int s = of_type[static_cast<std::size_t>(best)];
        const auto g = free.take_from(s, std::min(left, free.free_on(s)));
        gpus.insert(gpus.end(), g.begin(), g.end());
        free.take(g);
        used[static_cast<std::size_t>(best)] = 1;
        ++spanned;
        left -= static_cast<int>(g.size());
      }
      if (left > 0) {  // not on the configuration's servers now: waits this round
        free.give(gpus);
        if (j.running()) d.preempt.push_back(j.id());
        continue;
      }
      if (j.running() && j.spec->elastic()) {
        d.reallocate.push_back({j.id(), std::move(gpus), {}});
        continue;
      }
      if (j.running()) d.preempt.push_back(j.id());  // a rigid job moves by a preemption and a start
      d.start.push_back({j.id(), std::move(gpus), {}});
    }
  }

  RoundClock clock_;
  double p_, lambda_n_;
  std::unordered_map<JobId, std::map<std::int64_t, double>> rates_;
  std::vector<double> round_ms_;
};

}  // namespace

std::unique_ptr<Scheduler> make_sia(PluginParams& p) { return std::make_unique<SiaEngine>(p); }

}  // namespace rm
