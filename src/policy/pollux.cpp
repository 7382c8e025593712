// Pollux's scheduling policy on the engine (Qiao et al., OSDI'21; docs/elastic.md): every round (round=60 s) the
// jobs x servers matrix of GPU counts that maximises the power mean (p = -1) of the jobs' speedups over their fair
// share, with the restart penalty, searched by the NSGA-II of policy/pollux_ga.h, the one --compat pollux runs.
// What differs from the authors' simulator is the job model under it: a job's speedup at (servers, GPUs) is its
// progress rate from the run's performance model (analytic, or measured:pollux with its interpolation) at that
// width, spread evenly over that many servers, over the rate at its fair share: an oracle, like Optimus+Oracle,
// where Pollux fits its throughput model to the job's observed steps, and at the job's own batch (the engine does
// not re-choose batches by goodput yet). Rigid jobs take part at their own count or wait; an elastic job given less
// than its gpus_min waits; a rigid job the search moves is preempted and started on its new GPUs in one pass. The GA's
// random numbers come from --seed. One GPU type (Sia handles several: policy/sia.cpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "core/error.h"
#include "core/order_stats.h"
#include "exec/job_model_view.h"
#include "policy/elastic_policies.h"
#include "policy/pollux_ga.h"

namespace rm {
namespace {

class PolluxEngine final : public Scheduler {
 public:
  explicit PolluxEngine(PluginParams& p) : clock_(from_seconds(p.get_double("round", 60, 1, 1e6))), ga_(p.seed()) {
    if (clock_.round() <= 0) throw InputError("--policy", 0, "round", "must be > 0 seconds");
  }
  std::string name() const override { return "pollux"; }

  Decisions schedule(const SchedContext& ctx) override {
    Decisions d;
    for (const JobState* j : ctx.finished) rates_.erase(j->id());
    std::vector<const JobState*> jobs(ctx.active.begin(), ctx.active.end());
    if (!clock_.due(ctx.now, jobs.empty(), d)) return d;
    if (!ctx.span_iteration_s)
      throw InputError("--policy", 0, "pollux", "needs the simulator's performance model (it runs under simulate only)");
    const ClusterSpec& c = ctx.cluster.spec();
    if (ctx.cluster.types().count() > 1)
      throw InputError("--policy", 0, "pollux",
                       "Pollux's policy places jobs on one GPU type; this cluster has several (Sia's policy handles "
                       "them: --policy sia, docs/sia.md)");
    const int nodes = static_cast<int>(c.servers.size());
    std::vector<int> caps(static_cast<std::size_t>(nodes));
    for (int s = 0; s < nodes; ++s) caps[static_cast<std::size_t>(s)] = c.servers[static_cast<std::size_t>(s)].gpus;

    std::vector<pollux::PolicyJob> in;
    in.reserve(jobs.size());
    for (const JobState* j : jobs) {
      pollux::PolicyJob p;
      p.name = j->spec->name + "#" + std::to_string(j->id());  // unique across the run (the GA's next seed rows)
      if (ctx.job_model) {  // Pollux's jobs: their own fitted models, as Pollux's scheduler reads them
        p.speedup = ctx.job_model->speedup(*j);  // none before a fit: GPUs over the fair share
        p.max_replicas = ctx.job_model->max_gpus(*j);
      } else {
        p.goodput = [this, &ctx, j](int n, int r) { return rate(ctx, *j, n, r); };
        p.max_replicas = j->spec->max_gpus();
      }
      p.min_replicas = j->spec->min_gpus();
      p.attained_service = j->attained_gpu_s(ctx.now);
      p.submitted = to_seconds(j->spec->submit);
      p.restarts = j->reallocations + j->preemptions;
      p.age = to_seconds(ctx.now - j->spec->submit);
      p.base.assign(static_cast<std::size_t>(nodes), 0);
      for (const GpuRef& g : j->gpus) ++p.base[static_cast<std::size_t>(g.server)];
      in.push_back(std::move(p));
    }
    const auto seed = greedy(jobs, caps);
    const auto counts = ga_.optimize(std::move(in), caps, &seed);
    round_ms_.push_back(ga_.last_round_seconds() * 1e3);
    place(ctx, jobs, counts, d);
    return d;
  }

  void report(std::vector<std::pair<std::string, double>>& stable,
              std::vector<std::pair<std::string, double>>& timing) const override {
    report_rounds("pollux", round_ms_, stable, timing);
  }

 private:
  // Requested iterations per second of j on r GPUs spread evenly over n servers of its type (the first n of them:
  // the perf models read a placement's shape and its servers' type and links), remembered for the run.
  double rate(const SchedContext& ctx, const JobState& j, int n, int r) {
    if (r <= 0 || n <= 0 || r < j.spec->min_gpus() || r > j.spec->max_gpus()) return 0;  // a count it cannot run on
    auto& memo = rates_[j.id()];
    const auto key = static_cast<std::int64_t>(n) * 100000 + r;
    if (const auto it = memo.find(key); it != memo.end()) return it->second;
    const GpuTypes& types = ctx.cluster.types();
    const int type = types.of_server.at(0);
    std::vector<int> servers;
    for (int s = 0; s < ctx.cluster.num_servers() && static_cast<int>(servers.size()) < n; ++s)
      if (types.of_server[static_cast<std::size_t>(s)] == type) servers.push_back(s);
    const double v = static_cast<int>(servers.size()) == n ? spread_rate(ctx, *j.spec, servers, r) : 0;
    memo.emplace(key, v);
    return v;
  }

  // The current allocation with the waiting jobs started in arrival order at the count they ask for (an elastic one:
  // its least) where they fit: on the fullest node that holds it, else on whole free nodes (one distributed job per
  // node, as the search's repair wants).
  static std::vector<std::vector<int>> greedy(const std::vector<const JobState*>& jobs, const std::vector<int>& caps) {
    const std::size_t nodes = caps.size();
    std::vector<std::vector<int>> x(jobs.size(), std::vector<int>(nodes, 0));
    std::vector<int> used(nodes, 0);
    for (std::size_t a = 0; a < jobs.size(); ++a) {
      if (!jobs[a]->running()) continue;
      for (const GpuRef& g : jobs[a]->gpus) ++x[a][static_cast<std::size_t>(g.server)], ++used[static_cast<std::size_t>(g.server)];
    }
    for (std::size_t a = 0; a < jobs.size(); ++a) {
      if (jobs[a]->running()) continue;
      const int want = jobs[a]->spec->min_gpus();
      std::size_t best = nodes;
      for (std::size_t n = 0; n < nodes; ++n)
        if (caps[n] - used[n] >= want && (best == nodes || caps[n] - used[n] < caps[best] - used[best])) best = n;
      if (best < nodes) {
        x[a][best] = want, used[best] += want;
        continue;
      }
      std::vector<std::size_t> take;
      int got = 0;
      for (std::size_t n = 0; n < nodes && got < want; ++n)
        if (used[n] == 0) take.push_back(n), got += caps[n];
      if (got < want) continue;
      int left = want;
      for (std::size_t n : take) {
        const int k = std::min(caps[n], left);
        x[a][n] = k, used[n] += k, left -= k;
      }
    }
    return x;
  }

  // The GA's counts made legal (a rigid job its own count or none; an elastic one within its range or none), then
  // applied: unchanged jobs keep their GPUs; the others are released, then take their counts on their servers.
  void place(const SchedContext& ctx, const std::vector<const JobState*>& jobs,
             const std::vector<std::vector<int>>& counts, Decisions& d) {
    FreeMap free(ctx.cluster);
    std::vector<std::size_t> todo;
    std::vector<std::vector<int>> want(counts);
    for (std::size_t a = 0; a < jobs.size(); ++a) {
      const JobState& j = *jobs[a];
      int total = 0;
      for (int v : want[a]) total += v;
      if (total < j.spec->min_gpus() || total > j.spec->max_gpus()) std::fill(want[a].begin(), want[a].end(), 0), total = 0;
      std::vector<int> now(want[a].size(), 0);
      for (const GpuRef& g : j.gpus) ++now[static_cast<std::size_t>(g.server)];
      if (j.running() && now == want[a]) continue;
      if (j.running()) free.give(j.gpus);
      if (total > 0) todo.push_back(a);
      else if (j.running()) d.preempt.push_back(j.id());
    }
    for (std::size_t a : todo) {
      const JobState& j = *jobs[a];
      std::vector<GpuRef> gpus;
      bool ok = true;
      for (std::size_t s = 0; s < want[a].size() && ok; ++s) {
        if (want[a][s] == 0) continue;
        if (free.free_on(static_cast<int>(s)) < want[a][s]) ok = false;
        else {
          const auto g = free.take_from(static_cast<int>(s), want[a][s]);
          gpus.insert(gpus.end(), g.begin(), g.end());
        }
      }
      if (!ok) {  // cannot happen after the GA's repair (node capacities); kept safe: it waits this round
        if (j.running()) d.preempt.push_back(j.id());
        continue;
      }
      free.take(gpus);
      if (j.running() && j.spec->elastic()) {
        d.reallocate.push_back({j.id(), std::move(gpus), {}});
        continue;
      }
      if (j.running()) d.preempt.push_back(j.id());  // a rigid job moves by a preemption and a start
      d.start.push_back({j.id(), std::move(gpus), {}});
    }
  }

  RoundClock clock_;
  pollux::PolluxPolicy ga_;
  std::unordered_map<JobId, std::map<std::int64_t, double>> rates_;
  std::vector<double> round_ms_;
};

}  // namespace

std::unique_ptr<Scheduler> make_pollux(PluginParams& p) { return std::make_unique<PolluxEngine>(p); }

}  // namespace rm
