// Gavel's policies on the job-level engines (policy/gavel.h). One pass per round (every `round` seconds while jobs
// run, at once when the cluster is idle):
//  1. the time each running job ran on its GPU type this round is added to its account;
//  2. if the set of active jobs changed (and `reset` seconds passed since the last solve), Gavel's reset: each job's
//     deficit per type grows by what its allocation promised since the last solve less what it got, the accounts
//     restart, and the program is solved again over the active jobs (x_ij: the share of time job i should get on
//     type j);
//  3. Gavel's mechanism (scheduler.py _schedule_jobs_on_workers): per GPU type, fastest first, the jobs by priority
//     x_ij / (the share of time since the solve they ran on j; x_ij x 1e9 if none), then deficit, then x_ij, each
//     taking its GPU count from the type's while it fits, each job on one type at most;
//  4. jobs chosen on the type they run on keep their GPUs; the others stop, and the chosen start on their type,
//     on one server if one holds them (the fullest that does), else across the servers with most free.
// Gavel's simulator runs each round as a micro-task of whole steps and lets a job's GPUs idle from its end to the
// round's; here a job runs on until it is stopped or finishes (the engine's time), so a finish mid-round frees
// nothing until the next round, as in Gavel, but no partial steps are lost.
#include "policy/gavel.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <unordered_map>

#include "core/error.h"
#include "policy/gavel_lp.h"

namespace rm {
namespace {

enum class Objective { Las, Ftf, Makespan, Throughput };

struct Kind {
  Objective obj;
  bool perf;
};

std::optional<Kind> kind_of(const std::string& name) {
  static const std::pair<const char*, Objective> names[] = {{"gavel-las", Objective::Las},
                                                            {"gavel-ftf", Objective::Ftf},
                                                            {"gavel-makespan", Objective::Makespan},
                                                            {"gavel-throughput", Objective::Throughput}};
  for (const auto& [n, o] : names) {
    if (name == n) return Kind{o, false};
    if (name == std::string(n) + "-perf") return Kind{o, true};
  }
  return std::nullopt;
}

class GavelScheduler final : public Scheduler {
 public:
  GavelScheduler(std::string name, Kind kind, double round_s, double reset_s)
      : name_(std::move(name)), kind_(kind), round_s_(round_s), reset_s_(reset_s) {}
  std::string name() const override { return name_; }

  Decisions schedule(const SchedContext& ctx) override {
    if (types_.empty()) bind(ctx.cluster);
    bool running = false;
    ids_.clear();
    for (const JobState* j : ctx.active) {
      ids_.push_back(j->id());
      running = running || j->running();
    }
    Decisions d;
    if (ids_.empty()) {
      round_start_ = -1;
      return d;
    }
    const Time now = ctx.now;
    if (round_start_ >= 0 && now < next_round_ && running) {
      d.wake_at = next_round_;
      return d;
    }
    const double elapsed = round_start_ >= 0 ? to_seconds(now - round_start_) : 0.0;
    account(ctx, elapsed);
    if (ids_ != solved_ids_ && (!solved_ || to_seconds(now - last_solve_) >= reset_s_)) solve(ctx);
    mechanism(ctx, d);
    round_start_ = now;
    next_round_ = now + from_seconds(round_s_);
    d.wake_at = next_round_;
    return d;
  }

  void report(std::vector<std::pair<std::string, double>>& stable,
              std::vector<std::pair<std::string, double>>& timing) const override {
    stable.emplace_back("gavel_solves", static_cast<double>(solves_));
    timing.emplace_back("gavel_solve_s", solve_s_);
  }

 private:
  struct St {
    std::vector<double> x, time_on, deficit;
    int ran_type = -1;
    FtfAccount ftf;  // finish-time fairness's isolated time so far
  };

  void bind(const Cluster& c) {
    const GpuTypes& t = c.types();
    types_ = t.by_speed;
    gpus_.assign(static_cast<std::size_t>(t.count()), 0);
    servers_of_.assign(static_cast<std::size_t>(t.count()), {});
    for (int s = 0; s < static_cast<int>(c.spec().servers.size()); ++s) {
      const int ty = t.of_server[static_cast<std::size_t>(s)];
      gpus_[static_cast<std::size_t>(ty)] += c.spec().servers[static_cast<std::size_t>(s)].gpus;
      servers_of_[static_cast<std::size_t>(ty)].push_back(s);
    }
  }

  std::size_t ntypes() const { return gpus_.size(); }

  St& state(JobId id) {
    St& s = st_[id];
    if (s.x.empty()) s.x.assign(ntypes(), 0.0), s.time_on.assign(ntypes(), 0.0), s.deficit.assign(ntypes(), 0.0);
    return s;
  }

  // Step 1: what the jobs that ran this round got; finished jobs are forgotten.
  void account(const SchedContext& ctx, double elapsed) {
    for (const JobState* j : ctx.active) {
      St& s = state(j->id());
      if (j->running() && s.ran_type >= 0) s.time_on[static_cast<std::size_t>(s.ran_type)] += elapsed;
    }
    since_solve_ += elapsed;
    if (st_.size() > 2 * ids_.size() + 64) {
      std::unordered_map<JobId, St> kept;
      for (JobId id : ids_) kept[id] = std::move(st_[id]);
      st_ = std::move(kept);
    }
  }

  // Seconds per iteration of j on type t by the performance model (infinite where it cannot run there).
  double iteration_s(const SchedContext& ctx, const JobState& j, int t) const {
    if (!j.spec->gpu_type.empty() && ctx.cluster.types().index(j.spec->gpu_type) != t) return INFINITY;
    if (!ctx.type_iteration_s) return j.ideal_iter_time;
    return (*ctx.type_iteration_s)(*j.spec, t);
  }

  // The throughput matrix the program sees: -perf the model's per type; agnostic ones every type the job's
  // throughput on the cluster's fastest type (Gavel's v100 in FinishTimeFairnessPolicy and MinTotalDurationPolicy),
  // all 1 for max-min fairness (MaxMinFairnessPolicy) and total throughput.
  std::vector<double> throughputs(const SchedContext& ctx, const JobState& j) const {
    std::vector<double> thr(ntypes(), 1.0);
    if (!kind_.perf && (kind_.obj == Objective::Las || kind_.obj == Objective::Throughput)) return thr;
    for (std::size_t t = 0; t < ntypes(); ++t) {
      const double it = iteration_s(ctx, j, kind_.perf ? static_cast<int>(t) : types_.front());
      thr[t] = it > 0 && std::isfinite(it) ? 1.0 / it : 0.0;
    }
    return thr;
  }

  // Step 2.
  void solve(const SchedContext& ctx) {
    if (kind_.perf && !ctx.type_iteration_s)
      throw InputError("--policy", 0, name_, "needs each job's throughput on each GPU type from the simulator's "
                                             "performance model (--perf-model measured:*); this backend has none");
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<const JobState*> jobs(ctx.active.begin(), ctx.active.end());
    const std::size_t m = jobs.size();
    for (const JobState* j : jobs) {
      St& s = state(j->id());
      for (std::size_t t = 0; t < ntypes(); ++t) {
        s.deficit[t] += s.x[t] * since_solve_ - s.time_on[t];
        s.time_on[t] = 0.0;
      }
    }
    std::vector<std::vector<double>> thr;
    std::vector<int> sf;
    std::vector<double> rem, w(m, 1.0);
    for (const JobState* j : jobs) {
      thr.push_back(throughputs(ctx, *j));
      sf.push_back(j->spec->num_gpus);
      rem.push_back(j->remaining_at(ctx.now));
    }
    std::vector<std::vector<double>> x;
    switch (kind_.obj) {
      case Objective::Las: x = gavel_max_min_fairness(thr, sf, w, gpus_); break;
      case Objective::Throughput: x = gavel_max_sum_throughput(thr, sf, gpus_); break;
      case Objective::Makespan: x = gavel_min_total_duration(thr, sf, gpus_, rem); break;
      case Objective::Ftf: {
        std::vector<double> since, iso;
        for (std::size_t i = 0; i < m; ++i) {
          since.push_back(to_seconds(ctx.now) - jobs[i]->arrival_s);
          iso.push_back(state(jobs[i]->id()).ftf.expected_isolated(
              rem[i], gavel_isolated_throughput(thr[i], static_cast<int>(m), sf[i], gpus_)));
        }
        x = gavel_finish_time_fairness(thr, sf, gpus_, since, rem, iso);
        break;
      }
    }
    for (std::size_t i = 0; i < m; ++i) state(jobs[i]->id()).x = x[i];
    solved_ids_ = ids_;
    solved_ = true;
    last_solve_ = ctx.now;
    since_solve_ = 0;
    ++solves_;
    solve_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  // Steps 3 and 4.
  void mechanism(const SchedContext& ctx, Decisions& d) {
    struct Row {
      const JobState* j;
      double p, def, x;
    };
    std::vector<const JobState*> jobs(ctx.active.begin(), ctx.active.end());
    std::unordered_map<JobId, int> chosen;  // job -> type
    std::vector<Row> rows;
    for (int t : types_) {
      const auto tt = static_cast<std::size_t>(t);
      long left = gpus_[tt];
      rows.clear();
      for (const JobState* j : jobs) {
        const St& s = st_[j->id()];
        const double x = s.x.empty() ? 0.0 : s.x[tt];
        if (x <= 0 || chosen.count(j->id()) || !std::isfinite(iteration_s(ctx, *j, t))) continue;
        const double frac = since_solve_ > 0 ? s.time_on[tt] / since_solve_ : 0.0;
        rows.push_back({j, frac > 0 ? x / frac : x * 1e9, s.deficit[tt], x});
      }
      std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        if (a.p != b.p) return a.p > b.p;
        if (a.def != b.def) return a.def > b.def;
        if (a.x != b.x) return a.x > b.x;
        return a.j->id() < b.j->id();
      });
      for (const Row& r : rows) {
        if (left == 0) break;
        if (r.j->spec->num_gpus > left) continue;
        left -= r.j->spec->num_gpus;
        chosen[r.j->id()] = t;
      }
    }
    FreeMap free(ctx.cluster);
    std::vector<const JobState*> starts;
    for (const JobState* j : jobs) {
      const auto c = chosen.find(j->id());
      const int on = j->running() ? ctx.cluster.types().of_server[static_cast<std::size_t>(j->gpus.front().server)] : -1;
      if (c != chosen.end() && on == c->second) continue;  // keeps its GPUs
      if (j->running()) {
        d.preempt.push_back(j->id());
        free.give(j->gpus);
        state(j->id()).ran_type = -1;
      }
      if (c != chosen.end()) starts.push_back(j);
    }
    for (const JobState* j : starts) {
      const int t = chosen[j->id()];
      auto gpus = place(*j, t, free);
      if (gpus.empty()) continue;  // its GPUs' memory is too small: it waits
      free.take(gpus);
      state(j->id()).ran_type = t;
      d.start.push_back({j->id(), std::move(gpus), {}});
    }
  }

  // sf free GPUs of type t: the fullest server that holds them all, else the servers with most free first.
  std::vector<GpuRef> place(const JobState& j, int t, const FreeMap& free) const {
    const int n = j.spec->num_gpus;
    int best = -1;
    std::vector<int> cand;
    for (int s : servers_of_[static_cast<std::size_t>(t)]) {
      const int f = free.free_on(s);
      if (f == 0 || !free.fits_memory(*j.spec, s)) continue;
      cand.push_back(s);
      if (f >= n && (best < 0 || f < free.free_on(best))) best = s;
    }
    if (best >= 0) return free.take_from(best, n);
    std::stable_sort(cand.begin(), cand.end(), [&](int a, int b) { return free.free_on(a) > free.free_on(b); });
    std::vector<GpuRef> out;
    for (int s : cand) {
      const auto g = free.take_from(s, std::min(n - static_cast<int>(out.size()), free.free_on(s)));
      out.insert(out.end(), g.begin(), g.end());
      if (static_cast<int>(out.size()) == n) return out;
    }
    return {};
  }

  std::string name_;
  Kind kind_;
  double round_s_, reset_s_;
  std::vector<int> types_;  // fastest first
  std::vector<int> gpus_;   // per type (GpuTypes index)
  std::vector<std::vector<int>> servers_of_;
  std::unordered_map<JobId, St> st_;
  std::vector<JobId> ids_, solved_ids_;
  bool solved_ = false;
  Time round_start_ = -1, next_round_ = 0, last_solve_ = 0;
  double since_solve_ = 0;
  long solves_ = 0;
  double solve_s_ = 0;
};

}  // namespace

bool is_gavel_scheduler(const std::string& name) { return kind_of(name).has_value(); }

std::unique_ptr<Scheduler> make_gavel_scheduler(const std::string& name, PluginParams& p) {
  const auto kind = kind_of(name);
  if (!kind) throw InvariantError("not a Gavel scheduler: " + name);
  const double round_s = p.get_double("round", 360, 1, 1e6);
  const double reset_s = p.get_double("reset", 0, 0, 1e9);
  if (!(round_s > 0) || !std::isfinite(round_s)) throw InputError("--policy", 0, name + ":round", "must be > 0 seconds");
  if (!(reset_s >= 0) || !std::isfinite(reset_s)) throw InputError("--policy", 0, name + ":reset", "must be >= 0 seconds");
  return std::make_unique<GavelScheduler>(name, *kind, round_s, reset_s);
}

}  // namespace rm
