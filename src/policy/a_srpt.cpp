#include "policy/a_srpt.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include "core/error.h"
#include "exec/comm_model.h"
#include "cluster/first_fit_walk.h"
#include "workload/job_graph_map.h"

namespace rm {

// ---------------------------------------------------------------------------------------------------
// The virtual machine.

void VirtualSrpt::add(JobId id, double release_s, double size) {
  if (static_cast<std::size_t>(id) >= of_.size()) of_.resize(id + 1, {-1.0, 0.0});
  if (of_[id].first >= 0) throw InvariantError("virtual SRPT: job added twice");
  size = std::max(size, 0.0);
  of_[id] = {size, release_s};
  q_.insert({size, release_s, id});
}

bool VirtualSrpt::contains(JobId id) const {
  return static_cast<std::size_t>(id) < of_.size() && of_[id].first >= 0;
}

void VirtualSrpt::resize(JobId id, double delta, double eps) {
  if (!contains(id)) return;
  auto& [rem, rel] = of_[id];
  q_.erase({rem, rel, id});
  rem = std::max(eps, rem + delta);
  q_.insert({rem, rel, id});
}

void VirtualSrpt::advance(double t, std::vector<std::pair<JobId, double>>& done) {
  while (!q_.empty() && vt_ < t) {
    auto [rem, rel, id] = *q_.begin();
    q_.erase(q_.begin());
    const double dt = t - vt_;
    if (rem <= dt * (1 + 1e-12) + 1e-12) {  // finishes by t (slack for the microsecond wake-ups)
      vt_ = std::min(t, vt_ + rem);
      of_[id].first = -1;
      done.emplace_back(id, vt_);
    } else {
      rem -= dt;
      vt_ = t;
      of_[id].first = rem;
      q_.insert({rem, rel, id});
    }
  }
  // Zero-size jobs finish the moment they are served.
  while (!q_.empty() && std::get<0>(*q_.begin()) <= 0) {
    const JobId id = std::get<2>(*q_.begin());
    q_.erase(q_.begin());
    of_[id].first = -1;
    done.emplace_back(id, vt_);
  }
  vt_ = std::max(vt_, t);
}

void VirtualSrpt::remove(JobId id) {
  if (!contains(id)) return;
  q_.erase({of_[id].first, of_[id].second, id});
  of_[id].first = -1;
}

void VirtualSrpt::order(std::vector<JobId>& out) const {
  for (const auto& e : q_) out.push_back(std::get<2>(e));
}

double VirtualSrpt::next_completion() const {
  return q_.empty() ? std::numeric_limits<double>::infinity() : vt_ + std::get<0>(*q_.begin());
}

// ---------------------------------------------------------------------------------------------------
// The scheduler.

namespace {

enum class Where { None, Virtual, List, Running, Done };

struct AJob {
  const JobState* st = nullptr;
  Where where = Where::None;
  double nhat = 0;    // predicted total iterations now (retraining, doubling)
  double nhat0 = 0;   // the prediction at arrival (accuracy statistics)
  double amin = 0, amax = 0;
  const JobGraph* graph = nullptr;
};

// Free GPUs per server as MAP wants them, kept in step with a FreeMap.
struct FreeLists {
  std::vector<std::vector<int>> gpus;
  int total = 0;
  explicit FreeLists(const FreeMap& f) : gpus(f.num_servers()), total(f.total_free()) {
    for (int s = 0; s < f.num_servers(); ++s)
      for (int g = 0; g < f.spec().servers[s].gpus; ++g)
        if (f.is_free({s, g})) gpus[s].push_back(g);
  }
  void take(const std::vector<GpuRef>& x) {
    for (const auto& r : x) {
      auto& v = gpus[r.server];
      v.erase(std::find(v.begin(), v.end(), r.gpu));
    }
    total -= static_cast<int>(x.size());
  }
};

class ASrpt final : public Scheduler {
 public:
  ASrpt(std::unique_ptr<Predictor> pred, const ASrptOptions& opt) : pred_(std::move(pred)), opt_(opt) {}

  std::string name() const override {
    std::string n = opt_.preemptive ? "a-srpt-p" : opt_.sjf ? "sjf-predicted" : "a-srpt";
    n += "(predictor=" + pred_->name() + ",placement=" + (opt_.map ? "map" : "first-fit");
    if (!opt_.preemptive) n += std::string(",backfill=") + (opt_.backfill ? "easy" : "off");
    if (!opt_.preemptive && opt_.eager) n += ",eager";
    if (!opt_.preemptive && opt_.size_min) n += ",size=min";
    return n + ")";
  }

  Decisions schedule(const SchedContext& ctx) override {
    const double now = to_seconds(ctx.now);
    const ClusterSpec& cs = ctx.cluster.spec();
    M_ = cs.total_gpus();
    Decisions d;
    // 1. The virtual machine runs up to now with the sizes it had.
    run_virtual(now);
    // 2. Real completions teach the predictor (only finished jobs, at their finish time).
    std::erase_if(running_, [&](JobId id) {
      AJob& a = jobs_[id];
      if (a.st->status != JobStatus::Finished) return false;
      a.where = Where::Done;
      pred_->observe(*a.st->spec, a.st->spec->iterations, ctx.now);
      pred_made_.push_back(a.nhat0);
      pred_true_.push_back(a.st->spec->iterations);
      return true;
    });
    // A start that did not happen (a live backend could not apply it): the job is waiting again.
    std::erase_if(running_, [&](JobId id) {
      AJob& a = jobs_[id];
      if (a.st->status != JobStatus::Queued) return false;
      if (opt_.preemptive) {
        a.where = Where::Virtual;
      } else {
        a.where = Where::List;
        list_.insert(list_.begin(), id);
      }
      return true;
    });
    // 3. A retrained model updates the predictions of jobs not yet finished.
    if (pred_->take_retrained()) repredict(ctx.now);
    // 4. Arrivals.
    for (const JobState* j : ctx.active) {
      const JobId id = j->id();
      if (static_cast<std::size_t>(id) >= jobs_.size()) jobs_.resize(id + 1);
      AJob& a = jobs_[id];
      if (a.where != Where::None) continue;
      a.st = j;
      bounds(a, cs);
      a.nhat = a.nhat0 = std::max(1.0, pred_->predict(*j->spec, ctx.now));
      if (j->running()) {  // running before this scheduler saw it (a live daemon restarted): learnt from at its end
        a.where = Where::Running;
        running_.push_back(id);
        if (opt_.preemptive) pool_.push_back(id);
        continue;
      }
      a.where = Where::Virtual;  // A-SRPT-P: "waiting or running", ordered afresh at every decision
      if (opt_.preemptive) pool_.push_back(id);
      else vm_.add(id, now, q_of(a, a.nhat));
    }
    if (opt_.preemptive) {
      schedule_preemptive(ctx, d);
    } else {
      run_virtual(now);  // arrivals of size zero complete at once
      dispatch(ctx, d);
      const double next = opt_.sjf ? std::numeric_limits<double>::infinity() : vm_.next_completion();
      if (std::isfinite(next)) d.wake_at = std::max(ctx.now + 1, from_seconds_ceil(next));
    }
    return d;
  }

  void learn(const JobState& j) override { pred_->observe(*j.spec, j.spec->iterations, j.finish); }

  void report(std::vector<std::pair<std::string, double>>& stable,
              std::vector<std::pair<std::string, double>>& timing) const override {
    const PredictionStats s = prediction_stats(pred_made_, pred_true_);
    std::vector<double> lp, lt;
    for (std::size_t i = 0; i < pred_made_.size(); ++i) {
      lp.push_back(std::log(std::max(pred_made_[i], 1e-9)));
      lt.push_back(std::log(std::max(pred_true_[i], 1e-9)));
    }
    stable.emplace_back("pred_mae", s.mae);
    stable.emplace_back("pred_mape", s.mape);
    stable.emplace_back("pred_r2", s.r2);
    stable.emplace_back("pred_r2_log", prediction_stats(lp, lt).r2);
    stable.emplace_back("pred_trainings", static_cast<double>(pred_->trainings));
    stable.emplace_back("rho", rho_);
    stable.emplace_back("n_max", static_cast<double>(n_max_));
    // The proven bound (spec A.6) with this run's rho and n_max: (2 + M / (M - n_max + 1)) rho.
    stable.emplace_back("ratio_bound", (2.0 + static_cast<double>(M_) / (M_ - n_max_ + 1)) * rho_);
    timing.emplace_back("train_s", pred_->train_s);
    timing.emplace_back("predict_s", pred_->predict_s);
  }

 private:
  // Runs the virtual machine to `now` (not with vm=off) and lists the jobs it completed.
  void run_virtual(double now) {
    if (opt_.sjf) return;
    done_.clear();
    vm_.advance(now, done_);
    for (const auto& [id, cv] : done_) {
      jobs_[id].where = Where::List;
      list_.push_back(id);
    }
  }

  double q_of(const AJob& a, double n) const {
    return a.st->spec->num_gpus * n * (opt_.size_min ? a.amin : a.amax) / M_;
  }

  // alpha^min, alpha^max and the job graph, shared by jobs of one configuration.
  void bounds(AJob& a, const ClusterSpec& cs) {
    const JobSpec& j = *a.st->spec;
    std::string key = j.model + "|" + std::to_string(j.num_gpus) + "|" + std::to_string(j.dp) + "|" +
                      std::to_string(j.pp) + "|" + std::to_string(j.tp) + "|" + std::to_string(j.compute_s) + "|" +
                      std::to_string(j.grad_mb) + "|" + std::to_string(j.tp_mb) + "|" + std::to_string(j.pp_mb);
    auto it = configs_.find(key);
    if (it == configs_.end()) {
      Config c;
      c.graph = std::make_unique<JobGraph>(job_graph_of(j));
      c.b = graph_alpha_bounds(j, *c.graph, cs);
      it = configs_.emplace(std::move(key), std::move(c)).first;
    }
    a.graph = it->second.graph.get();
    a.amin = it->second.b.min_s;
    a.amax = it->second.b.max_s;
    rho_ = std::max(rho_, a.amax / a.amin);
    n_max_ = std::max(n_max_, j.num_gpus);
  }

  void repredict(Time now) {
    for (JobId id = 0; id < static_cast<JobId>(jobs_.size()); ++id) {
      AJob& a = jobs_[id];
      if (a.where == Where::None || a.where == Where::Done) continue;
      const double n = std::max(1.0, pred_->predict(*a.st->spec, now));
      if (a.where == Where::Virtual && !opt_.preemptive) vm_.resize(id, q_of(a, n) - q_of(a, a.nhat), opt_.eps);
      a.nhat = n;
    }
  }

  // Iterations executed so far, and the doubling correction when a job outlives its prediction.
  double executed(AJob& a, Time now) {
    const double e = a.st->spec->iterations - a.st->remaining_at(now);
    while (e >= a.nhat) a.nhat = 2 * std::max(a.nhat, e);
    return e;
  }

  std::optional<MapResult> place(const AJob& a, const FreeLists& free, const ClusterSpec& cs) {
    const JobSpec& j = *a.st->spec;
    if (free.total < j.num_gpus) return std::nullopt;
    // Servers whose GPUs lack the memory are hidden from this job.
    const std::vector<std::vector<int>>* lists = &free.gpus;
    std::vector<std::vector<int>> filtered;
    for (int s = 0; s < static_cast<int>(cs.servers.size()); ++s)
      if (cs.servers[s].gpu_mem_gb * 1024.0 < j.gpu_mem_mb) {
        if (filtered.empty()) filtered = free.gpus;
        filtered[s].clear();
      }
    if (!filtered.empty()) lists = &filtered;
    if (opt_.map) return map_place(*a.graph, *lists, opt_.refine);
    MapResult r;  // first fit (the one walk): servers in index order, worker v on the v-th GPU taken
    const auto& l = *lists;
    const int got = first_fit_walk(ServerRange{static_cast<int>(l.size())}, j.num_gpus,
                                   [&](int s) { return static_cast<int>(l[s].size()); },
                                   [&](int s, int k) { return r.gpus.push_back({s, l[s][k]}), FitStep::kTake; });
    if (got < j.num_gpus) return std::nullopt;
    r.cut_bytes = graph_cut_bytes(*a.graph, r.gpus);
    return r;
  }

  void start(AJob& a, MapResult&& m, FreeLists& free, Decisions& d) {
    if (a.where == Where::Running) throw InvariantError("a-srpt: job started twice");
    free.take(m.gpus);
    a.where = Where::Running;
    running_.push_back(a.st->id());
    d.start.push_back({a.st->id(), std::move(m.gpus), {}});
  }

  // List scheduling in virtual-completion order (spec A.5 DISPATCH): start the list's head while it fits;
  // the first that does not is the head. With backfilling (EASY), it gets a reserved start, when enough
  // GPUs free up by the running jobs' predicted ends; later jobs may start now if they end before it or
  // use only GPUs the head will not need then. With `eager`, the jobs still on the virtual machine follow
  // the list, in SRPT order.
  void dispatch(const SchedContext& ctx, Decisions& d) {
    seq_.assign(list_.begin(), list_.end());
    const std::size_t listed = seq_.size();
    if (opt_.eager) vm_.order(seq_);
    if (seq_.empty()) return;
    const ClusterSpec& cs = ctx.cluster.spec();
    FreeLists free{FreeMap(ctx.cluster)};
    const double now = to_seconds(ctx.now);
    bool blocked = false;
    double shadow = 0;
    int extra = 0;
    for (std::size_t k = 0; k < seq_.size(); ++k) {
      AJob& c = jobs_[seq_[k]];
      const int n = c.st->spec->num_gpus;
      std::optional<MapResult> m;
      if (n <= free.total) m = place(c, free, cs);
      if (!blocked) {
        if (m) {
          start(c, std::move(*m), free, d);
          continue;
        }
        if (!opt_.backfill) break;
        blocked = true;
        shadow = reserved_start(ctx.now, free.total, n, extra);
        continue;
      }
      if (!m) continue;
      const double alpha = graph_iteration_time_s(*c.st->spec, *c.graph, cs, m->gpus);
      const bool before = now + c.nhat * alpha <= shadow;
      if (before || n <= extra) {
        if (!before) extra -= n;
        start(c, std::move(*m), free, d);
      }
    }
    std::erase_if(list_, [&](JobId id) { return jobs_[id].where == Where::Running; });
    for (std::size_t k = listed; k < seq_.size(); ++k)
      if (jobs_[seq_[k]].where == Where::Running) vm_.remove(seq_[k]);
  }

  // When `need` GPUs will be free by the running jobs' predicted ends (jobs started in this decision
  // included, at alpha^min); `extra` = GPUs free then beyond `need`.
  double reserved_start(Time now, int free, int need, int& extra) {
    ends_.clear();
    for (JobId id : running_) {
      AJob& r = jobs_[id];
      if (r.st->status == JobStatus::Finished) continue;
      const bool just_started = r.st->status != JobStatus::Running;
      const double e = just_started ? 0 : executed(r, now);
      const double it = just_started ? r.amin : r.st->iter_time;
      ends_.emplace_back(to_seconds(now) + (r.nhat - e) * it, r.st->spec->num_gpus);
    }
    std::sort(ends_.begin(), ends_.end());
    int avail = free;
    double shadow = to_seconds(now);
    for (const auto& [t, n] : ends_) {
      if (avail >= need) break;
      avail += n;
      shadow = t;
    }
    extra = avail - need;
    return shadow;
  }

  // A-SRPT-P: order by predicted remaining work, allocate greedily by GPU count, preempt the rest.
  void schedule_preemptive(const SchedContext& ctx, Decisions& d) {
    std::erase_if(pool_, [&](JobId id) { return jobs_[id].where == Where::Done; });
    if (pool_.empty()) return;
    struct Key {
      double w;
      Time r;
      JobId id;
    };
    std::vector<Key> order;
    for (JobId id : pool_) {
      AJob& a = jobs_[id];
      const double e = executed(a, ctx.now);
      const double alpha = a.st->running() ? a.st->iter_time : a.amax;
      order.push_back({a.st->spec->num_gpus * std::max(a.nhat - e, 0.0) * alpha / M_, a.st->spec->submit, id});
    }
    std::sort(order.begin(), order.end(), [](const Key& x, const Key& y) {
      return x.w != y.w ? x.w < y.w : x.r != y.r ? x.r < y.r : x.id < y.id;
    });
    // Selection by count (MAP can use any free GPUs, so a selection that fits by count fits).
    int budget = M_;
    std::vector<char> keep(jobs_.size(), 0);
    for (const auto& k : order) {
      const int n = jobs_[k.id].st->spec->num_gpus;
      if (n <= budget) keep[k.id] = 1, budget -= n;
    }
    FreeMap fm(ctx.cluster);
    for (const auto& k : order) {
      const JobState& s = *jobs_[k.id].st;
      if (s.running() && !keep[k.id]) {
        d.preempt.push_back(k.id);
        fm.give(s.gpus);
        std::erase(running_, k.id);
        jobs_[k.id].where = Where::Virtual;
      }
    }
    FreeLists free{fm};
    const ClusterSpec& cs = ctx.cluster.spec();
    for (const auto& k : order) {
      AJob& a = jobs_[k.id];
      if (!keep[k.id] || a.st->running()) continue;
      auto m = place(a, free, cs);
      if (!m) continue;  // only for memory-restricted jobs: skip, as for jobs that do not fit
      start(a, std::move(*m), free, d);
    }
    // On a fixed grid of delta, so that wake-ups from different events coincide.
    const Time step = std::max<Time>(1, from_seconds(opt_.delta_s));
    d.wake_at = (ctx.now / step + 1) * step;
  }

  struct Config {
    std::unique_ptr<JobGraph> graph;
    AlphaBounds b;
  };

  std::unique_ptr<Predictor> pred_;
  ASrptOptions opt_;
  int M_ = 1;
  VirtualSrpt vm_;
  std::vector<AJob> jobs_;
  std::vector<JobId> list_, running_, pool_, seq_;
  std::vector<std::pair<double, int>> ends_;
  std::vector<std::pair<JobId, double>> done_;
  std::unordered_map<std::string, Config> configs_;
  std::vector<double> pred_made_, pred_true_;
  double rho_ = 1;
  int n_max_ = 1;
};

}  // namespace

bool is_a_srpt(const std::string& name) { return name == "a-srpt" || name == "a-srpt-p"; }

std::unique_ptr<Scheduler> make_a_srpt(std::unique_ptr<Predictor> pred, const ASrptOptions& opt) {
  return std::make_unique<ASrpt>(std::move(pred), opt);
}

std::unique_ptr<Scheduler> make_a_srpt(const std::string& name, PluginParams& p) {
  // A two-way choice: true for the first value (the default), false for the second, else an error.
  auto first_of = [&](const std::string& key, const std::string& yes, const std::string& no) {
    const std::string v = p.get_string(key, yes);
    if (v != yes && v != no) throw InputError("--policy", 0, name + ":" + key, "must be " + yes + " or " + no);
    return v == yes;
  };
  ASrptOptions o;
  o.preemptive = name == "a-srpt-p";
  o.backfill = first_of("backfill", "easy", "off");
  o.map = first_of("placement", "map", "first-fit");
  o.refine = p.get_int("refine", 2, 0, 1'000'000);
  o.size_min = !first_of("size", "max", "min");
  o.sjf = !first_of("vm", "on", "off");
  o.eager = p.get_double("eager", 0, 0, 1) != 0 || o.sjf;
  o.delta_s = p.get_double("delta", 300, 1, 1e9);
  if (o.refine < 0 || !(o.delta_s > 0)) throw InputError("--policy", 0, name, "needs refine >= 0 and delta > 0");
  auto pred = make_predictor(p.get_string("predictor", "rf"), p);
  return make_a_srpt(std::move(pred), o);
}

}  // namespace rm
