// Optimus+Oracle on the engine (Peng et al., EuroSys'18, as Pollux's simulator runs it: the adaptdl artifact's
// simulator/optimus.py, and our compat copy in peers/pollux/baselines.h): every round, each job in arrival order
// gets its least GPUs while any are free, then one GPU at a time goes to the elastic job whose remaining time drops
// most by it (remaining iterations x the drop of its time per iteration, the true one from the run's performance
// model: the oracle), until no job gains. Jobs whose count changed are placed again, packed onto the servers with the
// most free GPUs (one GPU type); a running elastic job that changes count is reallocated (it pays the restart
// delay), one given none is preempted. Rigid jobs take part at their own count or not at all. Decisions only at
// round boundaries (round=60 s, Pollux's), as the authors' simulator; docs/elastic.md.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <queue>
#include <unordered_map>

#include "core/error.h"
#include "policy/elastic_policies.h"

namespace rm {
namespace {

class Optimus final : public Scheduler {
 public:
  explicit Optimus(PluginParams& p) : clock_(from_seconds(p.get_double("round", 60, 1, 1e6))) {
    if (clock_.round() <= 0) throw InputError("--policy", 0, "round", "must be > 0 seconds");
  }
  std::string name() const override { return "optimus"; }

  Decisions schedule(const SchedContext& ctx) override {
    Decisions d;
    for (const JobState* j : ctx.finished) forget(j->id());
    std::vector<const JobState*> jobs(ctx.active.begin(), ctx.active.end());
    if (!clock_.due(ctx.now, jobs.empty(), d)) return d;
    const auto counts = allocate(ctx, jobs);
    place(ctx, jobs, counts, d);
    return d;
  }

 private:
  // Seconds per iteration (of the job as it asked) at width n on its best placement, GPU type `type`.
  double tau(const SchedContext& ctx, const JobState& j, int n) {
    auto& t = taus_[j.id()];
    if (t.size() <= static_cast<std::size_t>(n)) t.resize(static_cast<std::size_t>(n) + 1, -1);
    double& v = t[static_cast<std::size_t>(n)];
    if (v < 0) {
      const int type = j.ideal_type;
      v = (*ctx.type_iteration_s)(spec_at_width(*j.spec, n), type) / work_per_iteration(*j.spec, n);
    }
    return v;
  }
  void forget(JobId id) { taus_.erase(id); }

  std::vector<int> allocate(const SchedContext& ctx, const std::vector<const JobState*>& jobs) {
    const std::size_t n = jobs.size();
    std::vector<int> count(n, 0);
    long free = ctx.cluster.total_gpus();
    for (std::size_t a = 0; a < n; ++a) {  // every job its least, in arrival order
      const int least = jobs[a]->spec->min_gpus();
      if (least <= free) count[a] = least, free -= least;
    }
    // Then GPU by GPU to the largest gain in remaining time (ties: the earlier job).
    using Gain = std::pair<double, long>;  // (gain, -index)
    std::priority_queue<Gain> heap;
    const auto gain = [&](std::size_t a) {
      const JobState& j = *jobs[a];
      if (!ctx.type_iteration_s || !j.spec->elastic() || count[a] == 0 || count[a] >= j.spec->gpus_max) return 0.0;
      return j.remaining_at(ctx.now) * (tau(ctx, j, count[a]) - tau(ctx, j, count[a] + 1));
    };
    for (std::size_t a = 0; a < n; ++a)
      if (const double g = gain(a); g > 0) heap.push({g, -static_cast<long>(a)});
    while (free > 0 && !heap.empty()) {
      const auto a = static_cast<std::size_t>(-heap.top().second);
      heap.pop();
      ++count[a];
      --free;
      if (const double g = gain(a); g > 0) heap.push({g, -static_cast<long>(a)});
    }
    return count;
  }

  // Keeps the running jobs whose count stayed; places the others, most GPUs first, packed on the fullest servers.
  void place(const SchedContext& ctx, const std::vector<const JobState*>& jobs, const std::vector<int>& count,
             Decisions& d) {
    FreeMap free(ctx.cluster);
    std::vector<std::size_t> todo;
    for (std::size_t a = 0; a < jobs.size(); ++a) {
      const JobState& j = *jobs[a];
      if (j.running() && count[a] == j.width()) continue;
      if (j.running()) free.give(j.gpus);
      if (count[a] > 0) todo.push_back(a);
      else if (j.running()) d.preempt.push_back(j.id());
    }
    std::stable_sort(todo.begin(), todo.end(), [&](std::size_t x, std::size_t y) { return count[x] > count[y]; });
    for (std::size_t a : todo) {
      const JobState& j = *jobs[a];
      auto gpus = packed(free, *j.spec, count[a]);
      if (!gpus) {  // fragmented or short of memory: it waits this round
        if (j.running()) d.preempt.push_back(j.id());
        continue;
      }
      free.take(*gpus);
      if (j.running()) d.reallocate.push_back({j.id(), std::move(*gpus), {}});
      else d.start.push_back({j.id(), std::move(*gpus), {}});
    }
  }

  // n GPUs of one type on the fewest servers: the servers with the most free GPUs first.
  static std::optional<std::vector<GpuRef>> packed(const FreeMap& free, const JobSpec& j, int n) {
    std::map<int, std::vector<int>> by_type;  // type -> servers, fullest first
    std::vector<int> types;
    free.by_free_descending(j, [&](int s) {
      const int t = free.types().of_server[static_cast<std::size_t>(s)];
      if (!by_type.count(t)) types.push_back(t);
      by_type[t].push_back(s);
      return true;
    });
    for (int t : types) {
      std::vector<GpuRef> out;
      for (int s : by_type[t]) {
        const int take = std::min(n - static_cast<int>(out.size()), free.free_on(s));
        const auto g = free.take_from(s, take);
        out.insert(out.end(), g.begin(), g.end());
        if (static_cast<int>(out.size()) == n) return out;
      }
    }
    return std::nullopt;
  }

  RoundClock clock_;
  std::unordered_map<JobId, std::vector<double>> taus_;
};

}  // namespace

std::unique_ptr<Scheduler> make_optimus(PluginParams& p) { return std::make_unique<Optimus>(p); }

}  // namespace rm
