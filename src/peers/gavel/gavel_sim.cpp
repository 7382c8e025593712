// --compat gavel (peers/gavel/gavel_sim.h). Sim::step() is one turn of the `while True` loop of Gavel's
// Scheduler.simulate (scheduler.py:1225-1500); the comments name the quirk of shared/goldens/peers/gavel/README.md
// (G1-G11) or the peer's file:line each piece follows. Only what changes a job's times is kept: the peer's worker
// ids (which GPUs a job gets, G6) change no time and are not modelled.
#include "peers/gavel/gavel_sim.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "cluster/gpu_types.h"
#include "core/error.h"
#include "core/suggest.h"
#include "engine/engine.h"
#include "peers/named_policies.h"
#include "policy/gavel_lp.h"
#include "exec/execution_model.h"
#include "sched/job_feed.h"
#include "core/py_random.h"
#include "workload/gavel_throughputs.h"
#include "workload/parse_util.h"
#include "workload/table_reader.h"
#include "workload/trace_gavel.h"
#include "run/loaders.h"

namespace rm {
namespace {

constexpr double kMinTimeBetweenResets = 1920;  // minimum_time_between_allocation_resets (scheduler.py:67)
constexpr int kMaxFailedAttempts = 5;           // MAX_FAILED_ATTEMPTS (scheduler.py:45)

enum class Pol { Fifo, FifoPerf, Isolated, Gandiva, MaxMin, MaxMinPerf, MaxSumPerf, Ftf, FtfPerf, MinDur, MinDurPerf };

// Gavel's policies under --compat gavel, in its names (scheduler/policies/), each with what it does.
const std::vector<NamedPolicy<Pol>>& policy_table() {
  static const std::vector<NamedPolicy<Pol>> v = {
      {"fifo", Pol::Fifo, "first in, first out; a job's worker type drawn by Gavel's seeded RNG (golden-exact)"},
      {"fifo_perf", Pol::FifoPerf, "FIFO onto the fastest free worker type by throughput (golden-exact)"},
      {"isolated", Pol::Isolated, "each job an equal share of every type (golden-exact)"},
      {"gandiva", Pol::Gandiva, "Gandiva's packing: jobs paired by Gavel's seeded RNG (golden-exact)"},
      {"max_min_fairness", Pol::MaxMin, "LAS: max-min fairness over GPU time, heterogeneity-agnostic (Clp)"},
      {"max_min_fairness_perf", Pol::MaxMinPerf, "LAS_perf: max-min fairness over effective throughput (Clp)"},
      {"max_sum_throughput_perf", Pol::MaxSumPerf, "maximum total normalised throughput (Clp)"},
      {"finish_time_fairness", Pol::Ftf, "finish-time fairness, heterogeneity-agnostic (bisection over Clp LPs)"},
      {"finish_time_fairness_perf", Pol::FtfPerf, "finish-time fairness over effective throughput"},
      {"min_total_duration", Pol::MinDur, "minimum makespan, heterogeneity-agnostic (bisection over Clp LPs)"},
      {"min_total_duration_perf", Pol::MinDurPerf, "minimum makespan over effective throughput"},
  };
  return v;
}

Pol policy_of(const std::string& name) { return named_policy(policy_table(), name, "Gavel", "gavel"); }

// A job, or two jobs packed on the same GPUs (Gavel's JobIdPair: a < b; b = -1 for a single job).
struct Combo {
  int a = -1, b = -1;
  bool pair() const { return b >= 0; }
  std::uint64_t key() const { return (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b + 1); }
  bool has(int j) const { return a == j || b == j; }
};

// JobIdPair.__lt__ (job_id_pair.py): single jobs before pairs, each by its ids.
bool combo_less(const Combo& x, const Combo& y) {
  if (y.pair()) {
    if (!x.pair()) return true;
    if (x.a == y.a) return x.b < y.b;
  } else if (x.pair()) {
    return false;
  }
  return x.a < y.a;
}

struct GJob {
  const JobSpec* spec = nullptr;
  GavelThroughputs::Key type;
  int sf = 1;           // scale_factor: GPUs
  long total = 0;       // total_steps
  double arrival = 0;   // the trace's, as Python's float() reads it
  double weight = 1;    // priority_weight (10-column traces)
  long done = 0;        // _total_steps_run
  int failures = 0;
  bool active = false, ended = false, dropped = false;
  double first_start = -1, latest = 0, leased_s = 0;
  std::vector<double> alone;  // steps/s alone, per worker type
};

// An entry of the peer's _priorities / _deficits / _job_time_so_far: a job, or a pair under a packing policy.
struct Entry {
  Combo c;
  bool alive = true;
  std::vector<double> time_so_far, priority, deficit;  // per worker type
  std::vector<std::array<double, 2>> packed;           // pairs: steps/s of (a, b) packed, per worker type
};

struct Running {
  double finish = 0;  // the later of its micro-tasks' ends
  Combo c;
  int type = 0;
  std::array<long, 2> steps{0, 0};
  double start = 0;
};

class Sim {
 public:
  Sim(std::vector<GJob>& jobs, std::vector<std::string> types, std::vector<int> gpus, const GavelThroughputs& table,
      Pol pol, std::uint64_t seed, double round_s)
      : jobs_(jobs), types_(std::move(types)), gpus_(std::move(gpus)), table_(table), pol_(pol),
        round_s_(round_s), remaining_(static_cast<long>(jobs.size())) {
    const std::size_t n = types_.size();
    worker_time_.assign(n, 0.0);
    // _initialize_seeds (scheduler.py:315-330) and the policies' own generators (utils.get_policy passes --seed).
    policy_rng_.seed_int(seed);
    shuffler_.seed_int(seed + 5);
    for (const char* t : {"v100", "p100", "k80"})  // _schedule_jobs_on_workers (scheduler.py:868)
      for (std::size_t i = 0; i < n; ++i)
        if (types_[i] == t) base_order_.push_back(static_cast<int>(i));
    if (!jobs_.empty()) now_ = jobs_.front().arrival;  // self._current_timestamp = arrival_times[0]
  }

  // The time of the next turn of the loop; nullopt when the run is over (every job ended, or nothing can change).
  std::optional<double> next_time() const {
    if (remaining_ == 0 || frozen_) return std::nullopt;
    if (const double m = round_end(); m > 0) return m;
    if (qpos_ < jobs_.size()) return jobs_[qpos_].arrival;
    return now_;
  }

  void step() {
    std::optional<double> next_arrival;
    if (qpos_ < jobs_.size()) next_arrival = jobs_[qpos_].arrival;
    else if (running_.empty()) last_reset_ = 0;  // force a reset when nothing runs and nothing is to come (1279)
    const double max_ts = round_end();
    if (max_ts > 0) {  // the round ends when its last micro-task does (G1; 1287-1293)
      if (have_round_end_) round_start_ = round_end_;
      round_end_ = max_ts;
      have_round_end_ = true;
    }
    if (max_ts > 0) now_ = max_ts;
    else if (next_arrival) now_ = *next_arrival;
    end_round();
    while (qpos_ < jobs_.size() && jobs_[qpos_].arrival <= now_) add_job(static_cast<int>(qpos_++));  // G2
    schedule();
    ++turns_;
    // Nothing runs, nothing is to arrive and no reset is pending: the peer's loop would turn for ever unchanged.
    if (remaining_ > 0 && running_.empty() && qpos_ == jobs_.size() && !need_update_) frozen_ = true;
  }

  bool frozen() const { return frozen_; }
  double now() const { return now_; }
  long rounds() const { return rounds_; }
  long turns() const { return turns_; }
  double busy_gpu_s() const { return busy_gpu_s_; }

 private:
  // The latest end of the running micro-tasks (0 when none run): the heap's top, -running_jobs[0][0].
  double round_end() const {
    double m = 0;
    for (const auto& r : running_) m = std::max(m, r.finish);
    return m;
  }

  bool packing() const { return pol_ == Pol::Gandiva; }  // 'Packing' in policy.name (scheduler.py:143)
  std::size_t ntypes() const { return types_.size(); }

  Entry* find(const Combo& c) {
    const auto it = index_.find(c.key());
    return it == index_.end() || !entries_[it->second].alive ? nullptr : &entries_[it->second];
  }

  Entry& add_entry(const Combo& c, double time_so_far) {
    Entry e;
    e.c = c;
    e.time_so_far.assign(ntypes(), time_so_far);
    e.priority.assign(ntypes(), 0.0);
    e.deficit.assign(ntypes(), 0.0);
    index_[c.key()] = entries_.size();
    entries_.push_back(std::move(e));
    alloc_stale_ = true;
    return entries_.back();
  }

  // add_job (scheduler.py:447-515): the job's time so far starts at half a round (G4); under packing, a pair with
  // every active job of the same GPU count (_populate_job_combination_metadata, 2197-2251), whose time starts at 0.
  // The entries' order is the peer's dict order: the job, then its pairs by the other job's id.
  void add_job(int j) {
    GJob& g = jobs_[j];
    g.active = true;
    add_entry({j, -1}, round_s_ / 2.0);
    if (packing())
      for (int o : active_)
        if (jobs_[o].sf == g.sf) {
          Entry& e = add_entry({o, j}, 0.0);
          e.packed.resize(ntypes());
          for (std::size_t t = 0; t < ntypes(); ++t) {
            const auto* p = table_.packed(types_[t], jobs_[o].type, g.type);
            if (!p)
              throw InputError(table_.path(), 0, types_[t] + "." + GavelThroughputs::key_text(jobs_[o].type),
                               "no packed throughput with " + GavelThroughputs::key_text(g.type) + " (job " +
                                   g.spec->name + "; gandiva packs jobs of the same GPU count)");
            e.packed[t] = *p;
          }
        }
    active_.push_back(j);
    need_update_ = true;
  }

  // _remove_job (scheduler.py:523-595): every entry holding the job goes; the allocation is left as it is.
  void remove_job(int j, bool dropped) {
    GJob& g = jobs_[j];
    g.active = false;
    g.ended = true;
    g.dropped = dropped;
    active_.erase(std::find(active_.begin(), active_.end(), j));
    for (auto& e : entries_)
      if (e.alive && e.c.has(j)) {
        e.alive = false;
        ++dead_;
      }
    need_update_ = true;
    alloc_stale_ = true;
    if (dead_ > 64 && dead_ * 2 > entries_.size()) compact();
  }

  void compact() {
    std::vector<Entry> kept;
    index_.clear();
    for (auto& e : entries_)
      if (e.alive) {
        index_[e.c.key()] = kept.size();
        kept.push_back(std::move(e));
      }
    entries_ = std::move(kept);
    dead_ = 0;
    alloc_stale_ = true;
    zero_reindexed_ = true;
  }

  double throughput(const Entry& e, int t, int i) const {
    return e.c.pair() ? e.packed[t][i] : jobs_[e.c.a].alone[t];
  }

  // The completions of the round (1297-1344) in the peer's heap order: latest end first, ties by job id; each
  // through _done_callback (2868-3095).
  void end_round() {
    std::sort(running_.begin(), running_.end(), [](const Running& x, const Running& y) {
      if (x.finish != y.finish) return x.finish > y.finish;
      return combo_less(x.c, y.c);
    });
    for (const Running& r : running_) {
      const double exec = r.finish - round_start_;  // since the previous round's end (G4)
      const int n = r.c.pair() ? 2 : 1;
      const int js[2] = {r.c.a, r.c.b};
      for (int i = 0; i < n; ++i) jobs_[js[i]].latest = r.finish;  // a job's end: its micro-task's end (G2)
      // Steps split over the workers, x // scale_factor each and the rest on the last (G10): a worker given none
      // fails the micro-task, as does a non-positive execution time.
      const int sf = jobs_[r.c.a].sf;
      bool ok = exec > 0;
      for (int i = 0; i < n; ++i)
        if (r.steps[i] <= 0 || (sf > 1 && r.steps[i] / sf == 0)) ok = false;
      std::vector<int> ended;
      if (!ok) {
        if (!r.c.pair() && ++jobs_[r.c.a].failures >= kMaxFailedAttempts) ended.push_back(r.c.a);
        need_update_ = true;
      } else {
        if (!r.c.pair()) jobs_[r.c.a].failures = 0;
        for (int i = 0; i < n; ++i) {
          GJob& g = jobs_[js[i]];
          g.done += r.steps[i];
          if (g.total - g.done <= 0) ended.push_back(js[i]);
        }
        if (Entry* e = find(r.c)) e->time_so_far[r.type] += exec;
        worker_time_[r.type] += exec;
        busy_gpu_s_ += exec * sf;  // _cumulative_worker_time_so_far, on each of its workers
      }
      for (int j : ended) remove_job(j, !ok);
      for (int i = 0; i < n; ++i)
        if (!jobs_[js[i]].active) --remaining_;
    }
    running_.clear();
  }

  // _update_priorities (2358-2463) with _reset_time_run_so_far (2265-2311) at a reset (G3, G4).
  void update_priorities() {
    const bool interval = now_ - last_reset_ >= kMinTimeBetweenResets;
    if (need_update_ && (interval || last_reset_ == 0)) {
      reset_time_run_so_far();
      compute_allocation();
      need_update_ = false;
    }
    // Each entry's allocation looked up when the allocation or the entries change (schedule() reads it too; alloc_
    // does not change until the next reset, and its values do not move while it holds them), with the list of the
    // entries that have a nonzero one. Between, only those entries' priorities are computed: every other one is 0
    // (set by the last full pass, or at its creation), as the peer's pass sets it again each round. Under FIFO, where
    // most jobs wait with a row of zeros, a round costs the jobs allocated GPUs, not all the active ones.
    const bool full = alloc_stale_;
    if (full) {
      alloc_at_.assign(entries_.size(), nullptr);
      allocated_.clear();
      for (std::size_t i = 0; i < entries_.size(); ++i)
        if (entries_[i].alive)
          if (const auto a = alloc_.find(entries_[i].c.key()); a != alloc_.end()) {
            alloc_at_[i] = &a->second;
            // A row of zeros (the unflattened allocation's: a job not chosen) gives priority 0 on every type.
            if (std::any_of(a->second.begin(), a->second.end(), [](double x) { return x != 0.0; }))
              allocated_.push_back(i);
          }
      alloc_stale_ = false;
      zero_stale_ = true;
    }
    const std::size_t n = full ? entries_.size() : allocated_.size();
    for (std::size_t t = 0; t < ntypes(); ++t)
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = full ? k : allocated_[k];
        Entry& e = entries_[i];
        if (!e.alive) continue;
        const double fraction = worker_time_[t] == 0.0 ? 0.0 : e.time_so_far[t] / worker_time_[t];
        if (!alloc_at_[i]) {
          e.priority[t] = 0.0;
          continue;
        }
        const double x = (*alloc_at_[i])[t];
        double p = x * 1e9;  // a job that has had no time: its allocation x 1e9
        if (x == 0.0) {
        } else if (throughput(e, static_cast<int>(t), 0) == 0 ||
                   (e.c.pair() && throughput(e, static_cast<int>(t), 1) == 0)) {
          p = 0;
        } else if (fraction > 0.0) {
          p = x / fraction;
        }
        e.priority[t] = p;
      }
  }

  void reset_time_run_so_far() {
    const double elapsed = now_ - last_reset_;
    const double half = round_s_ / 2.0;
    // Each entry's allocation found once for all its types (each type's sums still run over the entries in order).
    std::fill(worker_time_.begin(), worker_time_.end(), 0.0);
    for (auto& e : entries_) {
      if (!e.alive) continue;
      const auto a = alloc_.find(e.c.key());
      for (std::size_t t = 0; t < ntypes(); ++t) {
        const double received = e.time_so_far[t] - half;
        const double should = a == alloc_.end() ? 0.0 : a->second[t] * elapsed;
        e.deficit[t] += should - received;
        e.time_so_far[t] = half;
        worker_time_[t] += half;
      }
    }
    last_reset_ = now_;
  }

  // Policy.flatten's rows (sorted ids) with x[t] = (GPUs of t / m) / scale factor, each row divided by
  // max(1, its sum): isolated.py:33-47 and gandiva.py:19-46.
  std::vector<double> equal_share(int m, int sf) const { return gavel_isolated_share(m, sf, gpus_); }

  // alloc_'s row for `key`, made if it has none: from a node of the last allocation when there is one (a reset
  // rebuilds the whole allocation; under FIFO a row per active job: its nodes and vectors are reused, not freed).
  std::vector<double>& alloc_row(std::uint64_t key) {
    if (const auto it = alloc_.find(key); it != alloc_.end()) return it->second;
    if (spare_.empty()) return alloc_[key];
    auto node = std::move(spare_.back());
    spare_.pop_back();
    node.key() = key;
    return alloc_.insert(std::move(node)).position->second;
  }

  void compute_allocation() {
    while (!alloc_.empty()) spare_.push_back(alloc_.extract(alloc_.begin()));  // as clear(): buckets kept
    alloc_stale_ = true;
    std::vector<int> singles = active_;
    std::sort(singles.begin(), singles.end());
    switch (pol_) {
      case Pol::Fifo:
      case Pol::FifoPerf: fifo(singles); break;
      case Pol::Isolated:
        for (int j : singles) alloc_row(Combo{j, -1}.key()) = equal_share(static_cast<int>(singles.size()), jobs_[j].sf);
        break;
      case Pol::Gandiva: gandiva(singles); break;
      case Pol::MaxMin:
      case Pol::MaxMinPerf:
      case Pol::MaxSumPerf: {  // policies/max_min_fairness.py and max_sum_throughput.py, by Clp (policy/gavel_lp.h)
        std::vector<std::vector<double>> thr;
        std::vector<int> sf;
        std::vector<double> w;
        for (int j : singles) {
          thr.push_back(pol_ == Pol::MaxMin ? std::vector<double>(ntypes(), 1.0) : jobs_[j].alone);
          sf.push_back(jobs_[j].sf);
          w.push_back(jobs_[j].weight);
        }
        const auto x = pol_ == Pol::MaxSumPerf ? gavel_max_sum_throughput(thr, sf, gpus_)
                                               : gavel_max_min_fairness(thr, sf, w, gpus_);
        for (std::size_t i = 0; i < singles.size(); ++i) alloc_row(Combo{singles[i], -1}.key()) = x[i];
        break;
      }
      case Pol::Ftf:
      case Pol::FtfPerf:
      case Pol::MinDur:
      case Pol::MinDurPerf: time_programs(singles); break;
    }
  }

  // finish_time_fairness.py and min_total_duration.py, by Clp (policy/gavel_lp.h). Their heterogeneity-agnostic
  // forms give every type the job's V100 throughput (FinishTimeFairnessPolicy, MinTotalDurationPolicy).
  void time_programs(const std::vector<int>& singles) {
    if (singles.empty()) {  // flatten gives None: the previous program is forgotten (finish_time_fairness.py:60-63)
      for (auto& [j, a] : ftf_) a.forget_previous();
      return;
    }
    const bool agnostic = pol_ == Pol::Ftf || pol_ == Pol::MinDur;
    int v100 = -1;
    for (std::size_t t = 0; t < ntypes(); ++t)
      if (types_[t] == "v100") v100 = static_cast<int>(t);
    if (agnostic && v100 < 0)
      throw InputError("--cluster", 0, "gavel", "Gavel's agnostic " + std::string(pol_ == Pol::Ftf ? "finish_time_fairness" : "min_total_duration") +
                       " reads each job's v100 throughput: the cluster needs v100s (gavel:V:P:K with V > 0)");
    std::vector<std::vector<double>> thr;
    std::vector<int> sf;
    std::vector<double> rem;
    for (int j : singles) {
      thr.push_back(agnostic ? std::vector<double>(ntypes(), jobs_[j].alone[static_cast<std::size_t>(v100)])
                             : jobs_[j].alone);
      sf.push_back(jobs_[j].sf);
      rem.push_back(static_cast<double>(jobs_[j].total - jobs_[j].done));
    }
    std::vector<std::vector<double>> x;
    if (pol_ == Pol::MinDur || pol_ == Pol::MinDurPerf) {
      x = gavel_min_total_duration(thr, sf, gpus_, rem);
    } else {
      const int m = static_cast<int>(singles.size());
      std::vector<double> since, iso;
      for (std::size_t i = 0; i < singles.size(); ++i) {
        since.push_back(now_ - jobs_[singles[i]].arrival);
        iso.push_back(ftf_[singles[i]].expected_isolated(rem[i], gavel_isolated_throughput(thr[i], m, sf[i], gpus_)));
      }
      x = gavel_finish_time_fairness(thr, sf, gpus_, since, rem, iso);
    }
    for (std::size_t i = 0; i < singles.size(); ++i) alloc_row(Combo{singles[i], -1}.key()) = x[i];
  }

  // policies/fifo.py:74-176 (G7). Base mode keeps its allocation between calls and, by the peer's bug, places a job
  // on the last available worker type whatever type it drew; fifo_perf rebuilds it in id order, best type first.
  void fifo(const std::vector<int>& singles) {
    const bool base = pol_ == Pol::Fifo;
    if (!base) fifo_alloc_.clear();
    std::vector<long> avail(gpus_.begin(), gpus_.end());
    std::vector<int> queue;
    for (int j : singles)
      if (!fifo_alloc_.count(j)) queue.push_back(j);
    std::size_t qh = 0;
    std::vector<std::pair<int, int>> snapshot(fifo_alloc_.begin(), fifo_alloc_.end());
    for (const auto& [j, t] : snapshot) {
      if (!jobs_[j].active) {  // completed: its slot goes to the queue's head if that fits (96-117)
        if (qh < queue.size()) {
          const int h = queue[qh];
          if (jobs_[h].sf <= avail[t] && jobs_[h].alone[t] > 0.0) {
            ++qh;
            fifo_alloc_[h] = t;
            avail[t] -= jobs_[h].sf;
          }
        }
        fifo_alloc_.erase(j);
      } else {
        avail[t] -= jobs_[j].sf;
      }
    }
    std::vector<int> types;  // sorted by name: this model's type order
    for (std::size_t t = 0; t < ntypes(); ++t)
      if (avail[t] > 0) types.push_back(static_cast<int>(t));
    while (qh < queue.size() && !types.empty()) {
      const int j = queue[qh++];
      const int sf = jobs_[j].sf;
      std::vector<int> fit, where;
      for (std::size_t i = 0; i < types.size(); ++i)
        if (avail[types[i]] >= sf) fit.push_back(types[i]), where.push_back(static_cast<int>(i));
      const int leftover = types.back();  // the loop variable `worker_type` after line 137
      if (fit.empty()) break;              // strict head-of-line blocking (142)
      int t = leftover, idx = 0;
      if (base) {
        idx = static_cast<int>(policy_rng_.randbelow(static_cast<std::uint32_t>(fit.size())));
      } else {
        double best = -1;
        for (std::size_t i = 0; i < fit.size(); ++i)
          if (jobs_[j].alone[fit[i]] > best) best = jobs_[j].alone[fit[i]], t = fit[i], idx = static_cast<int>(i);
      }
      if (jobs_[j].alone[t] > 0.0) {
        fifo_alloc_[j] = t;
        avail[t] -= sf;
        if (avail[t] == 0) types.erase(types.begin() + where[idx]);
      }
    }
    for (int j : singles) {
      std::vector<double>& x = alloc_row(Combo{j, -1}.key());
      x.assign(ntypes(), 0.0);
      if (const auto it = fifo_alloc_.find(j); it != fifo_alloc_.end()) x[static_cast<std::size_t>(it->second)] = 1.0;
    }
  }

  // _get_normalized_throughput (gandiva.py:48-61): a single job's is 0.
  double normalized(const Combo& c) {
    if (!c.pair()) return 0.0;
    const Entry* e = find(c);
    double sum = 0;
    for (std::size_t t = 0; t < ntypes(); ++t)
      for (int i = 0; i < 2; ++i) {
        const double p = e->packed[t][i];
        if (p <= 0.0) return 0.0;
        sum += p / jobs_[i == 0 ? c.a : c.b].alone[t];
      }
    return sum;
  }

  // policies/gandiva.py:63-143 (G9): equal shares when the requested GPUs fit; otherwise random pairs of the same
  // GPU count (Random.sample), kept while their normalised packed throughput is >= 1.
  void gandiva(const std::vector<int>& singles) {
    if (singles.empty()) return;  // flatten gives None: no allocation
    std::vector<int> drop;
    for (const auto& [j, v] : assigned_) {
      const auto& [c, other] = v;
      if (!jobs_[j].active) {
        drop.insert(drop.end(), {j, other});
        continue;
      }
      if (other >= 0 && !jobs_[other].active) {
        drop.insert(drop.end(), {j, other});
        continue;
      }
      if (normalized(c) < 1.0) drop.insert(drop.end(), {j, other});
    }
    for (int j : drop)
      if (j >= 0) assigned_.erase(j);
    long requested = 0, available = 0;
    for (int j : singles) requested += jobs_[j].sf;
    for (int g : gpus_) available += g;
    if (requested <= available) {
      for (int j : singles) alloc_row(Combo{j, -1}.key()) = equal_share(static_cast<int>(singles.size()), jobs_[j].sf);
    } else {
      std::vector<int> open;
      for (int j : singles)
        if (!assigned_.count(j)) open.push_back(j);
      const std::size_t n = open.size();
      for (std::size_t i = 0; open.size() > 1 && i < n;) {
        ++i;
        const auto pick = policy_rng_.sample(open.size(), 2);
        const int j1 = open[pick[0]], j2 = open[pick[1]];
        if (jobs_[j1].sf != jobs_[j2].sf) continue;
        open.erase(std::find(open.begin(), open.end(), j1));
        open.erase(std::find(open.begin(), open.end(), j2));
        const Combo c{std::min(j1, j2), std::max(j1, j2)};
        assigned_[j1] = {c, j2};
        assigned_[j2] = {c, j1};
      }
      for (int j : open) assigned_[j] = {Combo{j, -1}, -1};
      std::map<std::uint64_t, Combo> chosen;
      for (const auto& [j, v] : assigned_) chosen[v.first.key()] = v.first;
      const int m = static_cast<int>(chosen.size());
      for (const auto& [k, c] : chosen) alloc_row(k) = equal_share(m, jobs_[c.a].sf);
    }
    for (const auto& e : entries_)  // unflatten: every job and pair has a row, 0 where not chosen
      if (e.alive && !alloc_.count(e.c.key())) alloc_row(e.c.key()).assign(ntypes(), 0.0);
  }

  struct Row {  // schedule()'s: an entry's place in a type's order
    const Entry* e;
    double p, d, x;
    std::size_t i;  // its place in the entries: the stable sort's order among equal keys
    bool allocated;
  };

  // _schedule_jobs_on_workers (858-957) and its helper (766-855): entries by (priority, deficit, allocation)
  // descending, stable, per worker type in the (shuffled) type order (G5); a chosen job not in the allocation holds
  // its GPUs' count but gets no workers (947-950). Then each chosen job's micro-task (_get_job_steps_and_finish_times).
  void schedule() {
    update_priorities();
    // The round's scratch lives in the model (a round allocates nothing: 30,500 rounds on Philly VC ed69ec).
    std::vector<int>& order = order_;
    order.assign(base_order_.begin(), base_order_.end());
    if (pol_ == Pol::Fifo || pol_ == Pol::Isolated || pol_ == Pol::MaxMin || pol_ == Pol::Ftf || pol_ == Pol::MinDur)
      shuffler_.shuffle(order);  // neither 'Perf' nor 'Packing' in the name (881)
    std::vector<long>& left = left_;
    left.assign(gpus_.begin(), gpus_.end());
    std::vector<char>& taken = taken_;
    taken.assign(jobs_.size(), 0);
    // Each type's rows by (priority, deficit, allocation) descending, stably (the peer's sorted(), 862-877): a heap
    // keyed the same with the entry's place last hands them over in that order, only as far as the GPUs last.
    const auto later = [](const Row& x, const Row& y) { return first(y, x); };
    std::vector<Row>& rows = rows_;
    const bool fifo = pol_ == Pol::Fifo || pol_ == Pol::FifoPerf;
    std::size_t jobs_taken = 0;  // once every active job is taken, every row left is passed over
    // One row in the order: the peer's checks, then the entry's GPUs taken and its micro-task started.
    const auto take = [&](const Row& row, int t) {
      const Combo& c = row.e->c;
      if (taken[c.a] || (c.pair() && taken[c.b])) return;
      if (throughput(*row.e, t, 0) <= 0 || (c.pair() && throughput(*row.e, t, 1) <= 0)) return;
      if (fifo && row.p <= 0.0) return;  // 'FIFO' jobs at priority 0
      const int sf = jobs_[c.a].sf;
      if (c.pair() && jobs_[c.b].sf != sf) return;
      if (sf > left[t]) return;  // smaller jobs behind it may still fit
      left[t] -= sf;
      taken[c.a] = 1;
      jobs_taken += c.pair() ? 2 : 1;
      if (c.pair()) taken[c.b] = 1;
      if (row.allocated) start(*row.e, t);
    };
    if (!fifo && zero_stale_) split_by_allocation();
    for (int t : order) {
      rows.clear();
      bool nan = false;
      // Other policies: the rows of the entries allocated a share of t, merged with the others' kept order (zero_).
      if (!fifo && !zero_nan_[static_cast<std::size_t>(t)]) {
        for (std::size_t i : some_[static_cast<std::size_t>(t)]) {
          if (!entries_[i].alive) continue;
          rows.push_back(row_of(i, t));
          nan = nan || std::isnan(rows.back().p) || std::isnan(rows.back().d) || std::isnan(rows.back().x);
        }
        if (!nan) {
          merge_zero(t, rows, [&](const Row& row) {
            take(row, t);
            return left[t] > 0 && jobs_taken < active_.size();
          });
          continue;
        }
        rows.clear();
      }
      // Under FIFO only the allocated entries can have a priority above 0 (update_priorities): the others' rows
      // would be skipped.
      const std::size_t n = fifo ? allocated_.size() : entries_.size();
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = fifo ? allocated_[k] : k;
        const Entry& e = entries_[i];
        if (!e.alive) continue;
        if (fifo && e.priority[t] <= 0.0) continue;  // skipped below wherever it sorts: not sorted at all
        rows.push_back(row_of(i, t));
        nan = nan || std::isnan(rows.back().p) || std::isnan(rows.back().d) || std::isnan(rows.back().x);
      }
      if (nan)  // no strict order to heap by: the sort itself, as the peer's
        std::stable_sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) {
          if (x.p != y.p) return x.p > y.p;
          if (x.d != y.d) return x.d > y.d;
          return x.x > y.x;
        });
      else
        std::make_heap(rows.begin(), rows.end(), later);
      for (std::size_t k = 0; k < rows.size(); ++k) {
        if (left[t] == 0 || jobs_taken == active_.size()) break;
        if (!nan) std::pop_heap(rows.begin(), rows.end() - static_cast<long>(k), later);
        take(nan ? rows[k] : rows[rows.size() - 1 - k], t);
      }
    }
    if (!running_.empty()) ++rounds_;
  }

  // The order of the rows (priority, deficit, allocation) descending, then the entry's place: the peer's stable sort.
  static bool first(const Row& x, const Row& y) {
    if (x.p != y.p) return x.p > y.p;
    if (x.d != y.d) return x.d > y.d;
    if (x.x != y.x) return x.x > y.x;
    return x.i < y.i;
  }
  // Entry i's row on type t as this round's priorities and the allocation looked up last give it.
  Row row_of(std::size_t i, int t) const {
    const Entry& e = entries_[i];
    return {&e, e.priority[t], e.deficit[t], alloc_at_[i] ? (*alloc_at_[i])[t] : 0.0, i, alloc_at_[i] != nullptr};
  }

  // Outside FIFO every entry is a row. One whose allocation on a type is 0 (or that has none) has priority 0 there
  // (update_priorities) and a deficit that moves only at a reset, which looks the allocation up again: its place
  // among those, (deficit descending, place), is kept per type from that look-up until the next (zero_), the rows of
  // the entries allocated a share (some_) are built each round, and the two are merged as the sort would order them
  // (a NaN deficit among the kept ones: the sort itself). Under gandiva the pairs not chosen, up to 45,000 a round.
  // A look-up keeps the list's order for the entries still there with the same deficit (most: a pair that has not
  // run keeps its deficit at a reset) and merges in the others, sorted: no sort of every entry at every reset.
  void split_by_allocation() {
    const bool fresh = zero_.size() != ntypes() || zero_reindexed_;
    zero_.resize(ntypes());
    some_.assign(ntypes(), {});
    zero_nan_.resize(ntypes());
    const auto before = [](const ZeroKey& a, const ZeroKey& b) { return a.d != b.d ? a.d > b.d : a.i < b.i; };
    for (std::size_t t = 0; t < ntypes(); ++t) {
      const auto zero_x = [&](std::size_t i) { return !alloc_at_[i] || (*alloc_at_[i])[t] == 0.0; };
      std::vector<ZeroKey>& z = zero_[t];
      std::vector<ZeroKey>& kept = zero_kept_;
      std::vector<ZeroKey>& added = zero_added_;
      kept.clear();
      added.clear();
      seen_.assign(entries_.size(), 0);
      if (!fresh && !zero_nan_[t])
        for (const ZeroKey& k : z)
          if (entries_[k.i].alive && zero_x(k.i) && entries_[k.i].deficit[t] == k.d) {
            kept.push_back(k);
            seen_[k.i] = 1;
          }
      zero_nan_[t] = 0;
      for (std::size_t i = 0; i < entries_.size(); ++i) {
        if (!entries_[i].alive) continue;
        if (!zero_x(i)) {
          some_[t].push_back(i);
        } else if (!seen_[i]) {
          added.push_back({entries_[i].deficit[t], i});
          if (std::isnan(added.back().d)) zero_nan_[t] = 1;
        }
      }
      if (zero_nan_[t]) continue;  // the sort's path for this type until the next look-up
      std::sort(added.begin(), added.end(), before);
      z.resize(kept.size() + added.size());
      std::merge(kept.begin(), kept.end(), added.begin(), added.end(), z.begin(), before);
    }
    zero_reindexed_ = false;
    zero_stale_ = false;
  }

  // The rows of type t in the sort's order, each handed to `visit` until it says stop: `rows` (this round's, the
  // allocated entries') by a heap, the kept ones by their list, the better of the two heads first.
  template <class Visit>
  void merge_zero(int t, std::vector<Row>& rows, Visit visit) {
    const auto later = [](const Row& x, const Row& y) { return first(y, x); };
    std::make_heap(rows.begin(), rows.end(), later);
    const std::vector<ZeroKey>& z = zero_[static_cast<std::size_t>(t)];
    std::size_t zi = 0, end = rows.size();
    for (;;) {
      while (zi < z.size() && !entries_[z[zi].i].alive) ++zi;
      const bool have_z = zi < z.size();
      if (end == 0 && !have_z) return;
      Row row;
      if (end > 0 && (!have_z || first(rows.front(), row_of(z[zi].i, t)))) {
        std::pop_heap(rows.begin(), rows.begin() + static_cast<long>(end), later);
        row = rows[--end];
      } else {
        row = row_of(z[zi++].i, t);
      }
      if (!visit(row)) return;
    }
  }

  void start(const Entry& e, int t) {
    Running r;
    r.c = e.c;
    r.type = t;
    r.start = now_;
    r.finish = now_;
    const int n = e.c.pair() ? 2 : 1;
    const int js[2] = {e.c.a, e.c.b};
    for (int i = 0; i < n; ++i) {
      GJob& g = jobs_[js[i]];
      const double thr = throughput(e, t, i);
      // num_steps = min(int(throughput * time_per_iteration), remaining) (G1; 959-993)
      const double raw = thr * round_s_;
      const long steps = std::min(static_cast<long>(raw), g.total - g.done);
      r.steps[i] = steps;
      r.finish = std::max(r.finish, now_ + static_cast<double>(steps) / thr);
      if (g.first_start < 0) g.first_start = now_;
    }
    for (int i = 0; i < n; ++i) jobs_[js[i]].leased_s += r.finish - now_;
    running_.push_back(r);
  }

  std::vector<GJob>& jobs_;
  std::vector<std::string> types_;  // sorted by name (Policy.flatten's order)
  std::vector<int> gpus_;           // per type
  const GavelThroughputs& table_;
  Pol pol_;
  double round_s_;
  std::vector<int> base_order_;  // "v100", "p100", "k80" as present
  std::map<int, FtfAccount> ftf_;  // finish-time fairness's isolated time so far, per job
  synergy::PyRandom policy_rng_, shuffler_;
  std::vector<Entry> entries_;
  std::unordered_map<std::uint64_t, std::size_t> index_;
  std::size_t dead_ = 0;
  std::unordered_map<std::uint64_t, std::vector<double>> alloc_;  // the allocation of the last reset
  std::vector<std::unordered_map<std::uint64_t, std::vector<double>>::node_type> spare_;  // alloc_row's
  std::vector<const std::vector<double>*> alloc_at_;               // per entry, this round (update_priorities)
  std::vector<std::size_t> allocated_;  // the entries with a nonzero allocation, in order (with alloc_at_)
  std::vector<Row> rows_;
  struct ZeroKey {  // a kept entry's deficit when it was placed, and its place in entries_
    double d;
    std::size_t i;
  };
  std::vector<std::vector<ZeroKey>> zero_;  // per type, outside FIFO: see split_by_allocation
  std::vector<std::vector<std::size_t>> some_;
  std::vector<ZeroKey> zero_kept_, zero_added_;
  std::vector<char> zero_nan_, seen_;
  bool zero_stale_ = true, zero_reindexed_ = false;  // reindexed: compact() moved the entries
  std::vector<int> order_;
  std::vector<long> left_;
  std::vector<char> taken_;
  bool alloc_stale_ = true;  // alloc_ or the entries changed since alloc_at_ was made
  std::map<int, int> fifo_alloc_;                                  // fifo: job -> worker type
  std::map<int, std::pair<Combo, int>> assigned_;                  // gandiva: job -> (its combination, partner)
  std::vector<int> active_;                                        // _jobs, in arrival order
  std::vector<double> worker_time_;
  std::vector<Running> running_;
  std::size_t qpos_ = 0;
  long remaining_ = 0, rounds_ = 0, turns_ = 0;
  double now_ = 0, last_reset_ = 0, round_start_ = 0, round_end_ = 0, busy_gpu_s_ = 0;
  bool have_round_end_ = false, need_update_ = false, frozen_ = false;
};

class GavelModel final : public SteppingModel {
 public:
  explicit GavelModel(Sim& sim) : sim_(sim) {}
  std::string name() const override { return "gavel"; }
  bool searches_book() const override { return false; }
  // The peer's float seconds rounded to engine microseconds; its events are its own (arrivals included).
  Time next_event_time() override {
    const auto t = sim_.next_time();
    return t ? from_seconds(*t) : kNever;
  }
  void advance_to(Time t) override {
    for (auto s = sim_.next_time(); s && from_seconds(*s) <= t; s = sim_.next_time()) sim_.step();
  }

 private:
  Sim& sim_;
};

// utils.parse_trace (utils.py:500-521): the rows read by workload/trace_gavel.h, kept in Gavel's float seconds.
void read_trace(const InputSpec& cfg, std::vector<JobSpec>& specs, std::vector<GJob>& jobs) {
  if (cfg.format != "auto" && cfg.format != "gavel")
    throw InputError("--format", 0, cfg.format, "--compat gavel reads Gavel's traces: --format gavel (or auto)");
  const std::string text = TableReader::load(cfg.trace);
  TableReader t(cfg.trace, '\t', &text);
  std::vector<std::string> row;
  while (t.next(row)) {
    if (cfg.max_jobs > 0 && static_cast<long>(specs.size()) >= cfg.max_jobs) break;
    const GavelRow r = read_gavel_row(t, row);  // the one reader of the format (workload/trace_gavel.h)
    const std::string& type = r.job_type;
    GJob g;
    if (r.total_steps != std::floor(r.total_steps))
      throw InputError(t.file(), t.line(), "total_steps", "must be a whole number of steps (Gavel's int())");
    g.total = static_cast<long>(r.total_steps);
    g.sf = r.scale_factor;
    g.weight = r.priority_weight;
    g.arrival = r.arrival_s * cfg.arrival_scale;
    if (!(g.arrival >= 0) || g.arrival > 1e10)
      throw InputError(t.file(), t.line(), "arrival_time", "must be a number of seconds in [0, 1e10] after --arrival-scale");
    if (!jobs.empty() && g.arrival < jobs.back().arrival)
      throw InputError(t.file(), t.line(), "arrival_time",
                       "arrivals go back in time; Gavel's simulator asserts sorted arrivals (scheduler.py:1211)");
    g.type = {type, g.sf};
    JobSpec s;
    s.id = static_cast<JobId>(specs.size());
    s.name = std::to_string(specs.size());  // Gavel's job id: the 0-based trace line
    s.submit = from_seconds(g.arrival);
    s.num_gpus = g.sf;
    s.model = type;
    s.iterations = static_cast<double>(g.total);
    s.file = t.file();
    s.line = t.line();
    specs.push_back(std::move(s));
    jobs.push_back(std::move(g));
  }
  if (specs.empty()) throw InputError(cfg.trace, 0, "", "no jobs in the trace");
}

}  // namespace

std::vector<std::pair<std::string, std::string>> gavel_policies() { return policy_list(policy_table()); }

std::string gavel_throughputs_path(const RunPlan& plan) {
  const std::string& given = plan.run.throughputs;
  return given.empty() ? plan.inputs.data_dir + "/philly-gavel-vc/throughputs/simulation_throughputs.json" : given;
}

PolicySpec parse_gavel_policy(const std::string& text) {
  policy_of(text);  // checked here
  return named_policy_spec(text);
}

SimResult run_gavel(const RunPlan& plan) {
  SimResult r;
  const Pol pol = policy_of(plan.policy.parts.front().name);
  const double round_s = plan.run.round_s > 0 ? plan.run.round_s : 360;  // --time_per_iteration
  r.cluster = load_config_cluster(plan.inputs);
  // Per worker type, as Gavel's cluster_spec counts registered GPUs, in sorted name order.
  std::map<std::string, int> by_type;
  for (const auto& s : r.cluster.servers) {
    const KnownGpuType* k = find_gpu_type(s.gpu_type);
    if (!k || k->gavel.empty())
      throw InputError("--cluster", 0, plan.inputs.cluster,
                       "--compat gavel needs Gavel's worker types (v100, p100, k80), not '" + s.gpu_type + "'");
    by_type[k->gavel] += s.gpus;
  }
  std::vector<std::string> types;
  std::vector<int> gpus;
  for (const auto& [t, n] : by_type) types.push_back(t), gpus.push_back(n);
  const GavelThroughputs table = GavelThroughputs::load(gavel_throughputs_path(plan));
  for (const auto& t : types)
    if (!table.has_type(t)) throw InputError(table.path(), 0, t, "the cluster's worker type is not in the table");
  std::vector<GJob> jobs;
  read_trace(plan.inputs, r.workload.jobs, jobs);
  r.workload.source = plan.inputs.trace;
  r.workload.format = "gavel";
  const int most = *std::max_element(gpus.begin(), gpus.end());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    GJob& g = jobs[i];
    const JobSpec& s = r.workload.jobs[i];
    g.spec = &s;
    if (g.sf > most)
      throw InputError(s.file, s.line, "scale_factor",
                       std::to_string(g.sf) + " GPUs, more than the cluster has of any type (" + std::to_string(most) +
                           "): Gavel's simulator would wait for ever");
    for (const auto& t : types) {
      const double* x = table.isolated(t, g.type);
      if (!x)
        throw InputError(s.file, s.line, "job_type",
                         table.path() + " has no throughput for " + GavelThroughputs::key_text(g.type) + " on " + t);
      g.alone.push_back(*x);
    }
  }
  if (plan.run.dry_run) return r;
  Sim sim(jobs, types, gpus, table, pol, plan.inputs.seed, round_s);
  VectorFeed feed(r.workload.jobs);
  Engine engine(r.cluster, feed, nullptr, std::make_unique<GavelModel>(sim));
  engine.run();
  r.record = RunRecord{};
  r.record.total_gpus = r.cluster.total_gpus();
  r.record.busy_gpu_us = static_cast<Time>(std::llround(sim.busy_gpu_s() * 1e6));
  r.record.events = sim.turns();
  long unfinished = 0, dropped = 0;
  for (const auto& g : jobs) {
    JobRecord jr;
    jr.spec = g.spec;
    ExactTimes x{g.arrival, NAN, NAN, NAN};
    if (g.ended && !g.dropped) {
      jr.first_start = from_seconds(g.first_start);
      jr.finish = from_seconds(g.latest);
      jr.run_us = from_seconds(g.leased_s);
      x = {g.arrival, g.first_start, g.latest, g.leased_s};
    } else {
      ++unfinished;
      if (g.dropped) ++dropped;
    }
    r.record.jobs.push_back(jr);
    r.record.exact_s.push_back(x);
  }
  auto& ex = r.record.extra;
  ex.push_back({"unfinished_jobs", static_cast<double>(unfinished)});
  ex.push_back({"gavel_dropped_jobs", static_cast<double>(dropped)});
  ex.push_back({"gavel_rounds", static_cast<double>(sim.rounds())});
  ex.push_back({"gavel_total_duration_s", sim.now()});
  ex.push_back({"gavel_utilization", sim.now() > 0 ? sim.busy_gpu_s() / (sim.now() * r.record.total_gpus) : 0.0});
  if (sim.frozen())
    std::fprintf(stderr,
                 "warning: %ld job(s) could never be scheduled (Gavel's simulator would loop for ever here); the run "
                 "stops with them unfinished\n",
                 unfinished - dropped);
  if (dropped > 0)
    std::fprintf(stderr, "warning: %ld job(s) dropped after %d failed micro-tasks, as Gavel does (no JCT)\n", dropped,
                 kMaxFailedAttempts);
  return r;
}

}  // namespace rm
