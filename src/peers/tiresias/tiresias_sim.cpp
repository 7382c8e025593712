// --compat tiresias (peers/tiresias/tiresias_sim.h). Each step() is one turn of the peer's scheduling loop for the
// schedule; the comments name the quirk of shared/goldens/peers/tiresias/README.md each piece copies.
#include "peers/tiresias/tiresias_sim.h"

#include <algorithm>
#include <tuple>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <limits>

#include "core/error.h"
#include "core/suggest.h"
#include "engine/engine.h"
#include "exec/execution_model.h"
#include "policy/params.h"
#include "sched/job_feed.h"
#include "workload/parse_util.h"
#include "workload/service_samples.h"
#include "workload/table_reader.h"
#include "run/loaders.h"

namespace rm {
namespace {

constexpr long kMax = std::numeric_limits<long>::max();  // Python's sys.maxsize

bool g_list_loops = false;  // set_tiresias_list_loops
bool tiresias_list_loops() { return g_list_loops; }

enum class Schedule { Fifo, Fjf, Sjf, Shortest, ShortestGpu, Dlas, DlasGpu, Gittins, DlasGpuGittins };
enum class St { Event, Pending, Running, End };

// yarn (Q10): one node's share of a placement; a job keeps every placement it got until it ends (Q9).
struct NodeShare {
  int node = 0;  // index over all nodes (switch-major)
  long gpus = 0, cpus = 0;
  double mem = 0;
};

struct TiresiasJob {
  const JobSpec* spec = nullptr;
  std::vector<std::vector<NodeShare>> placements;
  long g = 0, submit = 0, duration = 0;
  St status = St::Event;
  long start = kMax, end = 0, last_check = 0, total_exec = 0, executed = 0, last_pending = 0;
  long remaining = 0, remaining_gpu = 0;
  int preempt = 0, q = 0;
  double rank = 0;  // the Gittins table's entry (Q8)
  bool done = false;
  // The fast loops' bookkeeping (Sim::lazy_): the place in the peer's list (its rank, then `seq`), the arrival
  // order (the peer's runnable list), and the time it last became pending.
  long long seq = 0, arrival = 0;
  double key_a = 0;  // the list's sort key (Sim::set_key), then seq
  long key_b = 0;
  long pend_since = 0;
  std::size_t gittins_at = 0;  // where its service last fell in the Gittins table
};

// A list of waiting jobs in the peer's order (rank, then seq), by GPU count: the first one after a point that fits
// in `free` GPUs is found without walking past the ones that do not.
class Lane {
 public:
  using Key = std::tuple<double, long, long long>;
  static Key key(const TiresiasJob* j) { return {j->key_a, j->key_b, j->seq}; }
  void insert(TiresiasJob* j) { by_g_[j->g].emplace(key(j), j); }
  void erase(TiresiasJob* j) {
    const auto it = by_g_.find(j->g);
    it->second.erase(key(j));
    if (it->second.empty()) by_g_.erase(it);
  }
  // The first job after `after` (from the start when null) that needs at most `free` GPUs, or null.
  TiresiasJob* next_fit(const Key* after, long free) const {
    TiresiasJob* best = nullptr;
    for (const auto& [g, jobs] : by_g_) {
      if (g > free) break;
      const auto it = after ? jobs.upper_bound(*after) : jobs.begin();
      if (it != jobs.end() && (!best || it->first < key(best))) best = it->second;
    }
    return best;
  }

 private:
  std::map<long, std::map<Key, TiresiasJob*>> by_g_;
};

struct Event {
  long time = 0;
  std::vector<TiresiasJob*> starts, ends;
};

// Python 2's round(x, n) as the goldens' port computes it (E3): the exact binary value rounded half away from zero
// at n decimals, then the nearest double. glibc prints a double's exact decimal expansion, which for the values
// here (|x| >= 2^-28) ends within 80 digits, so digit n + 1 of "%.80f" is exact.
double py2_round(double x, int n) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.80f", std::fabs(x));
  std::string s(buf);
  const auto dot = s.find('.');
  std::string kept = s.substr(0, dot + 1 + static_cast<std::size_t>(n));
  if (s[dot + 1 + static_cast<std::size_t>(n)] >= '5') {  // carry up through the kept digits
    std::size_t i = kept.size();
    while (i-- > 0) {
      if (kept[i] == '.') continue;
      if (kept[i] < '9') {
        ++kept[i];
        break;
      }
      kept[i] = '0';
      if (i == 0) kept.insert(kept.begin(), '1');
    }
  }
  const double v = std::strtod(kept.c_str(), nullptr);
  return x < 0 ? -v : v;
}

// Tiresias' Gittins table (Q8, run_sim.py parse_job_dist / cal_r_gittins_index / get_gittins_index): samples of
// service (a CDF file's `duration` column), quantum 3250; lookup by attained service.
class GittinsTable {
 public:
  explicit GittinsTable(const std::string& path) {
    for (double v : read_service_samples(path, true, 2)) d_.push_back(static_cast<long>(v));
    std::sort(d_.begin(), d_.end());
    for (long v : d_) gi_.push_back(r_gi(v - 1));
  }
  const std::vector<double>& entries() const { return gi_; }
  double operator()(long a) const {
    if (a > d_.back()) return 0;
    return gi_[static_cast<std::size_t>(std::upper_bound(d_.begin(), d_.end(), a) - d_.begin())];
  }
  // The same, from where the last lookup of a growing service ended (`at`: the first sample above it).
  double operator()(long a, std::size_t& at) const {
    if (a > d_.back()) return 0;
    if (at >= d_.size() || d_[at] <= a || (at > 0 && d_[at - 1] > a))
      at = static_cast<std::size_t>(std::upper_bound(d_.begin(), d_.end(), a) - d_.begin());
    return gi_[at];
  }

 private:
  double r_gi(long a) const {
    const long n = static_cast<long>(d_.size()), delta = 3250;
    if (a > d_.back() - 1) return 0.0;
    const long idx = static_cast<long>(std::upper_bound(d_.begin(), d_.end(), a) - d_.begin());
    const long next = a + delta;
    const long idx_d = next > d_.back() - 1 ? n - 1 : static_cast<long>(std::upper_bound(d_.begin(), d_.end(), next) - d_.begin());
    const double p = py2_round(static_cast<double>(idx_d - idx) * 1.0 / static_cast<double>(n - idx), 5);
    long e_sum = delta * (n - idx_d);
    for (long i = idx; i < idx_d; ++i) e_sum += d_[static_cast<std::size_t>(i)];
    const double e = static_cast<double>(e_sum / (n - idx));  // floor division (E2), exact
    return py2_round(p * 1000000 / e, 4);
  }
  std::vector<long> d_;
  std::vector<double> gi_;
};

// Python's floor division of integers (//), toward minus infinity.
long floor_div(long a, long b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

template <class C>
void remove_one(C& c, TiresiasJob* j) {  // list.remove: the first occurrence; the peer raises ValueError without one
  const auto it = std::find(c.begin(), c.end(), j);
  if (it == c.end())
    throw InputError("--compat", 0, "tiresias",
                     "job " + j->spec->name + " ended twice: Tiresias' simulator stops with a ValueError here");
  c.erase(it);
}

// The peer's nodes under yarn: GPUs, CPUs and memory per node, switches of equal size (read_tiresias_spec's
// cluster: one rack per switch, identical servers).
struct Spec {
  long switches = 1, nodes_per_switch = 1, gpus = 1, cpus = 1, mem = 1;
  explicit Spec(const ClusterSpec& c)
      : switches(static_cast<long>(c.racks.size())),
        nodes_per_switch(static_cast<long>(c.servers.size() / c.racks.size())),
        gpus(c.servers.front().gpus),
        cpus(c.servers.front().cpus),
        mem(static_cast<long>(c.servers.front().dram_gb)) {}
};

class Sim {
 public:
  Sim(std::deque<TiresiasJob>& jobs, const Spec& spec, bool yarn, Schedule s, std::vector<long> limits, long starvation,
      const GittinsTable* gittins)
      : spec_(spec), yarn_(yarn), total_(spec.switches * spec.nodes_per_switch * spec.gpus), free_(total_),
        s_(s), limits_(std::move(limits)), starvation_(starvation), gittins_(gittins),
        lazy_(!tiresias_list_loops() && (s == Schedule::Dlas || s == Schedule::DlasGpu || s == Schedule::Gittins ||
                                        s == Schedule::DlasGpuGittins)) {
    const auto n = static_cast<std::size_t>(spec.switches * spec.nodes_per_switch);
    free_gpus_.assign(n, spec.gpus);
    free_cpus_.assign(n, spec.cpus);
    free_mem_.assign(n, static_cast<double>(spec.mem));
    // prepare_job_start_events: one event per submit time, jobs in (stably sorted) order (Q1); sorted by submit,
    // a time's jobs are consecutive.
    for (auto& j : jobs) {
      if (!events_.empty() && events_.back().time == j.submit) events_.back().starts.push_back(&j);
      else events_.push_back({j.submit, {&j}, {}});
    }
    if (s_ == Schedule::Fifo || s_ == Schedule::Fjf) {  // one list, kept sorted by time, one event per time
      for (Event& e : events_) fifo_events_.emplace(e.time, std::move(e));
      events_.clear();
    }
  }

  // The time of the next turn of the loop (kMax: the loop is over).
  long next_time() const {
    if (over()) return kMax;
    if (s_ == Schedule::Fifo || s_ == Schedule::Fjf) return fifo_events_.begin()->first;
    const long t = std::min(arrivals_left() ? events_[head_].time : kMax, end_events_.empty() ? kMax : end_events_.front().time);
    return is_dlas() ? std::min(t, next_jump_) : s_ == Schedule::Gittins ? std::min(t, next_unit_) : t;
  }
  // Whether the loop has ended; stopped(): it ended with jobs left ("not large enough", Q11).
  bool over() const {
    if (s_ == Schedule::Fifo || s_ == Schedule::Fjf) return fifo_events_.size() + pending_.size() == 0 || fifo_events_.empty();
    const std::size_t runnable = lazy_ ? static_cast<std::size_t>(live_) : runnable_.size();
    return arrivals_left() + runnable == 0 || arrivals_left() + end_events_.size() == 0;
  }
  // GPU-seconds held (the GPUs taken at the end of each turn, until the next) and turns taken.
  long busy_gpu_s() const { return busy_; }
  long turns() const { return turns_; }
  void step() {
    const long t = next_time();
    busy_ += (t - last_t_) * (total_ - check_free_gpu());
    // The peer can take a job-jump event at the same second for ever (queue limits below a job's GPU count: its
    // jump rounds down to now and it is never demoted); stop with an error instead of hanging as it does.
    same_t_ = t == last_t_ && turns_ > 0 ? same_t_ + 1 : 0;
    if (same_t_ > 100000)
      throw InputError("--policy", 0, "limits", "Tiresias' loop makes no progress at t = " + std::to_string(t) +
                                                     " s (queue limits too small for the jobs' GPU counts)");
    last_t_ = t;
    ++turns_;
    switch (s_) {
      case Schedule::Fifo:
      case Schedule::Fjf: fifo_step(); break;
      case Schedule::Sjf:
      case Schedule::Shortest:
      case Schedule::ShortestGpu: shortest_step(); break;
      case Schedule::Dlas:
      case Schedule::DlasGpu: lazy_ ? dlas_lazy_step() : dlas_step(); break;
      case Schedule::DlasGpuGittins: lazy_ ? dlas_lazy_step() : dlas_step(); break;
      case Schedule::Gittins: lazy_ ? gittins_lazy_step() : gittins_step(); break;
    }
  }

 private:
  // The arrival events not taken yet: events_ from head_ (the preemptive loops; fifo's list erases its front).
  std::size_t arrivals_left() const { return events_.size() - head_; }
  bool is_dlas() const { return s_ == Schedule::Dlas || s_ == Schedule::DlasGpu || s_ == Schedule::DlasGpuGittins; }
  // The time past which the loop takes a jump event instead (dlas: a demotion or promotion; gittins: the unit).
  long jump_at() const { return is_dlas() ? next_jump_ : s_ == Schedule::Gittins ? next_unit_ : kMax; }
  static void sort_events(std::vector<Event>& v) {
    std::stable_sort(v.begin(), v.end(), [](const Event& a, const Event& b) { return a.time < b.time; });
  }
  bool try_get(TiresiasJob& j) {
    if (yarn_) return yarn_place(j);
    if (free_ < j.g) return false;  // count: one free-GPU counter (Q10)
    free_ -= j.g;
    return true;
  }
  long check_free_gpu() const {
    if (!yarn_) return free_;
    long f = 0;
    for (long g : free_gpus_) f += g;
    return f;
  }
  // empty_infra (Q4, Q9): every node's GPUs and CPUs free again, its memory as it was.
  void empty_infra() {
    free_ = total_;
    std::fill(free_gpus_.begin(), free_gpus_.end(), spec_.gpus);
    std::fill(free_cpus_.begin(), free_cpus_.end(), spec_.cpus);
  }
  void release(TiresiasJob& j) {
    if (!yarn_) {
      free_ = std::min(total_, free_ + j.g);
      return;
    }
    // Every placement the job holds, in order, until a node would go over its size (then the rest stay taken).
    for (const auto& placement : j.placements)
      for (const NodeShare& n : placement) {
        const auto i = static_cast<std::size_t>(n.node);
        bool ok = true;
        if (free_cpus_[i] + n.cpus > spec_.cpus) free_cpus_[i] = spec_.cpus, ok = false;
        else free_cpus_[i] += n.cpus;
        if (free_gpus_[i] + n.gpus > spec_.gpus) free_gpus_[i] = spec_.gpus, ok = false;
        else free_gpus_[i] += n.gpus;
        free_mem_[i] += n.mem;
        if (!ok) return;
      }
  }
  // ms_yarn_placement (Q10): switch by switch; up to a node's GPUs, the first node with the GPUs, CPUs (2 for a
  // 1-GPU job, else 6 a GPU) and 5 GB; beyond, floor(k/G) idle nodes and one node for the rest, memory
  // (6 + 0.1 k + 5) GB a GPU.
  bool yarn_place(TiresiasJob& j) {
    const long need = j.g, G = spec_.gpus;
    for (long sw = 0; sw < spec_.switches; ++sw) {
      const long first = sw * spec_.nodes_per_switch, last = first + spec_.nodes_per_switch;
      if (need <= G) {
        const long cpu = need == 1 ? 2 : need * 6;
        for (long n = first; n < last; ++n) {
          const auto i = static_cast<std::size_t>(n);
          if (free_gpus_[i] >= need && free_cpus_[i] >= cpu && free_mem_[i] >= 5) {
            free_gpus_[i] -= need, free_cpus_[i] -= cpu, free_mem_[i] -= 5;
            j.placements.push_back({{static_cast<int>(n), need, cpu, 5.0}});
            return true;
          }
        }
        continue;
      }
      const long full = need / G, rest = need % G, idle_cpu = G * 6, rest_cpu = rest * 6;
      const double ps_w_mem = (6 + static_cast<double>(need) * 0.1) + 5;
      std::vector<long> nodes;
      for (long n = first; n < last && static_cast<long>(nodes.size()) < full; ++n) {
        const auto i = static_cast<std::size_t>(n);
        if (free_gpus_[i] == G && free_cpus_[i] >= idle_cpu && free_mem_[i] >= ps_w_mem * static_cast<double>(G))
          nodes.push_back(n);
      }
      if (static_cast<long>(nodes.size()) < full) continue;
      long rest_node = -1;
      if (rest != 0) {
        for (long n = first; n < last; ++n) {
          const auto i = static_cast<std::size_t>(n);
          if (std::find(nodes.begin(), nodes.end(), n) == nodes.end() && free_gpus_[i] >= rest &&
              free_cpus_[i] >= rest_cpu && free_mem_[i] >= ps_w_mem * static_cast<double>(rest)) {
            rest_node = n;
            break;
          }
        }
        if (rest_node < 0) continue;
      }
      std::vector<NodeShare> placement;
      const auto take = [&](long n, long gpus, long cpus) {
        const auto i = static_cast<std::size_t>(n);
        const double mem = ps_w_mem * static_cast<double>(gpus);
        free_gpus_[i] -= gpus, free_cpus_[i] -= cpus, free_mem_[i] -= mem;
        placement.push_back({static_cast<int>(n), gpus, cpus, mem});
      };
      for (long n : nodes) take(n, G, idle_cpu);
      if (rest != 0) take(rest_node, rest, rest_cpu);
      j.placements.push_back(std::move(placement));
      return true;
    }
    return false;
  }
  void complete(TiresiasJob& j, long t) {  // log.job_complete: stamped at the event that ends it (Q2)
    j.end = t;
    j.status = St::End;
    j.done = true;
  }
  // add_job_end_event: merged into the first event at that time, else a new one at the end of the list (Q3).
  void add_end_event(TiresiasJob& j) {
    // The list is sorted by time after every turn and holds one event per time (arrivals are grouped by time,
    // ends merged): a map by time is the same list, the new event's place the one the stable sort gives it.
    auto it = fifo_events_.find(j.end);
    if (it == fifo_events_.end()) fifo_events_.emplace(j.end, Event{j.end, {}, {&j}});
    else it->second.ends.push_back(&j);
  }
  void move_to_runnable(TiresiasJob& j) {
    j.status = St::Pending;
    j.start = kMax;
    j.last_check = j.submit;
    j.total_exec = j.executed = j.last_pending = 0;
    j.arrival = ++arrivals_;
    if (lazy_) ++live_;
    else runnable_.push_back(&j);
  }

  // one_queue_fifo_sim_jobs / fit_first_sim_jobs (Q3).
  void fifo_step() {
    Event& ev = fifo_events_.begin()->second;  // stays in the list while this turn adds ends (at t: never taken)
    const long t = ev.time;
    for (TiresiasJob* e : ev.ends) release(*e), complete(*e, t);
    for (TiresiasJob* s : ev.starts) s->status = St::Pending, pending_.push_back(s);
    std::vector<TiresiasJob*> started;
    if (s_ == Schedule::Fifo) {
      if (check_free_gpu() > 0)
        for (TiresiasJob* p : pending_) {
          if (!try_get(*p)) break;  // strict head-of-line blocking
          started.push_back(p);
        }
    } else {
      for (TiresiasJob* p : pending_) {
        if (check_free_gpu() <= 0) break;
        if (try_get(*p)) started.push_back(p);
      }
    }
    for (TiresiasJob* j : started) {
      j->status = St::Running;
      j->start = t;
      j->end = t + j->duration;
      remove_one(pending_, j);
      add_end_event(*j);
    }
    fifo_events_.erase(fifo_events_.begin());
  }

  // The event a preemptive loop takes: the arrival event, the end event, or both merged (arrival first).
  Event take_event(long& t) {
    const long start = arrivals_left() ? events_[head_].time : kMax;
    const long end = end_events_.empty() ? kMax : end_events_.front().time;
    t = std::min(start, end);
    // Equal times: the end event's jobs are attached to the arrival event itself, where they stay if a jump event
    // is taken first (the peer's dict; they end when that event is taken later).
    if (end == start) events_[head_].ends = end_events_.front().ends;
    if (t > jump_at()) {  // a job-jump event: nothing arrives or ends (Q6, Q8)
      t = jump_at();
      return Event{t, {}, {}};
    }
    // The event taken: the end event (rebuilt after every turn, so its jobs can move) or the arrival event.
    if (end < start) return Event{end, {}, std::move(end_events_.front().ends)};
    return std::move(events_[head_++]);
  }

  // smallest_first_sim_jobs / shortest_first_sim_jobs (Q4).
  void shortest_step() {
    long t = 0;
    const Event ev = take_event(t);
    for (TiresiasJob* e : ev.ends) release(*e), complete(*e, t), remove_one(runnable_, e);
    for (TiresiasJob* s : ev.starts) {
      move_to_runnable(*s);
      s->remaining = s->duration;
      s->remaining_gpu = s->remaining * s->g;
    }
    for (TiresiasJob* r : runnable_) {
      if (r->status == St::Running) {
        r->total_exec += t - r->last_check;
        r->last_check = t;
        r->remaining = r->duration - r->total_exec;
        if (s_ == Schedule::ShortestGpu) r->remaining_gpu = r->remaining * r->g;
      } else if (r->status == St::Pending) {
        r->last_check = t;
      }
    }
    std::stable_sort(runnable_.begin(), runnable_.end(), [&](const TiresiasJob* a, const TiresiasJob* b) {
      if (s_ == Schedule::Sjf) return a->g < b->g;
      if (s_ == Schedule::Shortest) return a->remaining < b->remaining;
      return a->remaining_gpu < b->remaining_gpu;
    });
    empty_infra();  // every runnable job is placed again, in order, skipping what does not fit
    std::vector<TiresiasJob*> run, preempted;
    for (TiresiasJob* r : runnable_) {
      if (r->status == St::Running) r->placements.clear();  // a pending job keeps its old ones (Q9)
      if (try_get(*r)) {
        if (r->start == kMax) r->start = t;
        if (r->status == St::Pending) run.push_back(r);
      } else if (r->status == St::Running) {
        preempted.push_back(r);
      }
    }
    for (TiresiasJob* j : preempted) j->status = St::Pending, ++j->preempt;
    for (TiresiasJob* j : run) j->status = St::Running;
    end_events_.clear();
    for (TiresiasJob* r : runnable_)
      if (r->status == St::Running) {
        const long end = t + r->remaining;
        auto it = std::find_if(end_events_.begin(), end_events_.end(), [&](const Event& e) { return e.time == end; });
        if (it == end_events_.end()) end_events_.push_back({end, {}, {r}});
        else it->ends.push_back(r);
      }
    sort_events(end_events_);
  }

  // dlas_sim_jobs (Q5-Q7).
  void dlas_step() {
    long t = 0;
    const Event ev = take_event(t);
    const bool gputime = s_ != Schedule::Dlas;
    for (TiresiasJob* e : ev.ends) {
      release(*e), complete(*e, t);
      remove_one(runnable_, e);
      remove_one(queues_[static_cast<std::size_t>(e->q)], e);
    }
    for (TiresiasJob* s : ev.starts) {
      move_to_runnable(*s);
      s->q = 0;
      queues_[0].push_back(s);
    }
    const long last_queue = static_cast<long>(queues_.size()) - 1;
    for (TiresiasJob* r : runnable_) {
      if (r->status == St::Running) {
        ran_until(*r, t);
        const long attained = gputime ? r->executed * r->g : r->executed;
        if (r->q < last_queue && attained >= limits_[static_cast<std::size_t>(r->q)]) {  // one demotion per event
          queues_[static_cast<std::size_t>(r->q + 1)].push_back(r);
          remove_one(queues_[static_cast<std::size_t>(r->q)], r);
          ++r->q;
        }
        if (gittins_) r->rank = (*gittins_)(attained);
      } else if (r->status == St::Pending) {
        if (r->executed > 0) r->last_pending += t - r->last_check;
        r->last_check = t;
        if (starvation_ > 0 && r->q > 0 && r->total_exec > 0 && r->executed > 0 &&
            r->last_pending >= r->executed * starvation_) {  // Q7: back to Q0
          r->executed = 0;
          r->last_pending = 0;
          queues_[0].push_back(r);
          remove_one(queues_[static_cast<std::size_t>(r->q)], r);
          r->q = 0;
        }
        if (gittins_) r->rank = (*gittins_)(gputime ? r->executed * r->g : r->executed);
      }
    }
    if (gittins_)  // each queue by (rank, -submit) descending, stable (Q8)
      for (auto& queue : queues_)
        std::stable_sort(queue.begin(), queue.end(), [](const TiresiasJob* a, const TiresiasJob* b) {
          return a->rank != b->rank ? a->rank > b->rank : a->submit < b->submit;
        });
    count_pass(queues_, t);  // pure GPU counting, whatever the scheme (Q5)
    for (auto& queue : queues_)  // each queue's pending jobs behind its running ones, in order
      std::stable_partition(queue.begin(), queue.end(), [](const TiresiasJob* j) { return j->status != St::Pending; });
    earliest_end(t);
    next_jump_ = kMax;
    for (TiresiasJob* r : runnable_) {
      long jump = kMax;
      if (r->status == St::Running && r->q < last_queue) {
        const long left = limits_[static_cast<std::size_t>(r->q)] - r->executed;
        jump = (gputime ? floor_div(left, r->g) : left) + t;  // Q6: executed, not GPU-seconds, floored
      } else if (r->status == St::Pending && starvation_ > 0 && r->q > 0 && r->total_exec != 0 && r->executed > 0) {
        const long diff = r->executed * starvation_ - r->last_pending;
        if (diff > 0) jump = diff + t;
      }
      next_jump_ = std::min(next_jump_, jump);
    }
  }

  // The lazy loops (dlas, dlas-gpu, dlas-gpu-gittins, gittins): the same turns as dlas_step and gittins_step, touching
  // only the running jobs and the waiting ones that change. What the list loops do to every waiting job at every event
  // is kept as a formula of the event's time: its last_check is that time when it starts; its last_pending grows by the
  // time since it became pending (while executed > 0); its starvation promotion falls due at a time known when it is
  // preempted; its rank (gittins) changes once, at the first event after its preemption. The lists' orders, which
  // stable sorts and partitions keep, are keys (rank, seq): see each step. The goldens and the job-by-job equality with
  // the list loops on Muri's traces (PeerTiresias.LazyLoopsEqualTheListLoops) check it.

  // A job taken out of the loop by its end event (the list loops' remove_one: a second end is the peer's ValueError).
  void end_lazy(TiresiasJob& e, long t) {
    if (e.done)
      throw InputError("--compat", 0, "tiresias",
                       "job " + e.spec->name + " ended twice: Tiresias' simulator stops with a ValueError here");
    const bool running = e.status == St::Running;
    release(e), complete(e, t);
    --live_;
    if (s_ == Schedule::Gittins) {
      if (running) running_.erase(std::find(running_.begin(), running_.end(), &e));
      else wait_q_[0].erase(&e);
      return;
    }
    auto& q = run_q_[static_cast<std::size_t>(e.q)];
    if (running) q.erase(std::find(q.begin(), q.end(), &e)), running_.erase(std::find(running_.begin(), running_.end(), &e));
    else wait_q_[static_cast<std::size_t>(e.q)].erase(&e), promote_at_.erase({promotion_time(e), e.arrival});
  }
  // When a job preempted now (pend_since) is promoted back to queue 0 by the starvation knob (-1: never): the first
  // event at which last_pending >= executed x starvation.
  long promotion_time(const TiresiasJob& j) const {
    if (starvation_ <= 0 || j.q <= 0 || j.total_exec <= 0 || j.executed <= 0) return -1;
    return j.executed * starvation_ - j.last_pending + j.pend_since;
  }
  // The key a job's list is sorted by (then seq): gittins, its rank ascending; dlas-gpu-gittins, its rank descending
  // then its submit time; dlas, none (the list keeps its order).
  void set_key(TiresiasJob& j) const {
    j.key_a = s_ == Schedule::Gittins ? j.rank : gittins_ ? -j.rank : 0.0;
    j.key_b = s_ == Schedule::DlasGpuGittins ? j.submit : 0;
  }
  // A waiting job starts at t: what the list loops' per-event updates would have made of it by now.
  void start_lazy(TiresiasJob& j, long t) {
    if (j.executed > 0) j.last_pending += t - j.pend_since;
    j.last_check = t;
    j.status = St::Running;
    if (j.start == kMax) j.start = t;
  }
  void preempt_lazy(TiresiasJob& j, long t) {
    j.status = St::Pending;
    ++j.preempt;
    j.pend_since = t;
  }

  // dlas_step, lazily. Each queue's list is its running jobs (run_q_, in order), its waiting ones (wait_q_, by seq)
  // and what this event appends (appended_: arrivals and promotions to queue 0, demotions below). The pass counts
  // GPUs over run_q_, then the waiting jobs that fit, then appended_; the partition puts the running ones first:
  // run_q_ keeps its fitting jobs, then the started ones, then appended_'s running ones; the preempted ones go to
  // the front of the waiting ones (seqs below all), appended_'s waiting ones to the back (seqs above all).
  void dlas_lazy_step() {
    long t = 0;
    const Event ev = take_event(t);
    const bool gputime = s_ != Schedule::Dlas;
    for (TiresiasJob* e : ev.ends) end_lazy(*e, t);
    for (TiresiasJob* a : ev.starts) {
      move_to_runnable(*a);
      a->q = 0;
      if (gittins_) a->rank = (*gittins_)(0);
      appended_[0].push_back(a);
    }
    // The running jobs (running_: in the runnable list's, arrival, order): service, then at most one demotion each.
    for (TiresiasJob* r : running_) {
      ran_until(*r, t);
      const long attained = gputime ? r->executed * r->g : r->executed;
      if (r->q < 2 && attained >= limits_[static_cast<std::size_t>(r->q)]) {
        auto& from = run_q_[static_cast<std::size_t>(r->q)];
        from.erase(std::find(from.begin(), from.end(), r));
        appended_[static_cast<std::size_t>(r->q + 1)].push_back(r);
        ++r->q;
      }
      if (gittins_) r->rank = (*gittins_)(attained, r->gittins_at);
    }
    // Starvation: the waiting jobs due, in arrival order, back to queue 0 (after this event's arrivals).
    promoted_.clear();
    while (!promote_at_.empty() && promote_at_.begin()->first.first <= t) {
      promoted_.push_back(promote_at_.begin()->second);
      promote_at_.erase(promote_at_.begin());
    }
    std::sort(promoted_.begin(), promoted_.end(), [](const TiresiasJob* a, const TiresiasJob* b) { return a->arrival < b->arrival; });
    for (TiresiasJob* p : promoted_) {
      wait_q_[static_cast<std::size_t>(p->q)].erase(p);
      p->executed = 0;
      p->last_pending = 0;
      p->q = 0;
      if (gittins_) p->rank = (*gittins_)(0);
      appended_[0].push_back(p);
    }
    // The pass (count_pass over the queues in order), then the partition.
    empty_infra();
    auto &started = started_, &stopped = stopped_, &preempted = preempted_, &waiting_tail = waiting_tail_;
    started.clear(), stopped.clear();
    const auto by_key = [](const TiresiasJob* a, const TiresiasJob* b) {
      return std::tie(a->key_a, a->key_b) < std::tie(b->key_a, b->key_b);
    };
    for (std::size_t q = 0; q < 3; ++q) {
      auto &run = run_q_[q], &app = appended_[q];
      Lane& wait = wait_q_[q];
      // dlas-gpu-gittins sorts each queue stably by (rank descending, submit): its running jobs (new ranks) and the
      // appended ones by key, the waiting ones are (their ranks do not change while they wait). dlas: all keys 0,
      // nothing to sort.
      if (gittins_) {
        for (TiresiasJob* j : run) set_key(*j);
        for (TiresiasJob* j : app) set_key(*j);
        std::stable_sort(run.begin(), run.end(), by_key);
        std::stable_sort(app.begin(), app.end(), by_key);
      }
      // The pass over the queue in that order: running ones first among equal keys, then the waiting, then the
      // appended (their places before the sort); a cursor after a running job takes the waiting ones of its key,
      // after an appended one not.
      preempted.clear(), waiting_tail.clear(), kept_.clear();
      std::size_t ri = 0, ai = 0;
      TiresiasJob* p = nullptr;  // the first waiting job after the cursor that fits: still so while it fits
      bool none = false;         // no waiting job after the cursor fits: still so, the GPUs only go down
      const Lane::Key* after = nullptr;
      Lane::Key cursor;
      for (;;) {
        if (!none && (!p || p->g > free_)) none = !(p = free_ > 0 ? wait.next_fit(after, free_) : nullptr);
        TiresiasJob* r = ri < run.size() ? run[ri] : nullptr;
        TiresiasJob* a = ai < app.size() ? app[ai] : nullptr;
        if (r && (!p || !by_key(p, r)) && (!a || !by_key(a, r))) {
          ++ri;
          cursor = Lane::Key{r->key_a, r->key_b, std::numeric_limits<long long>::min()};
          if (free_ >= r->g) free_ -= r->g, kept_.push_back(r);
          else preempted.push_back(r), stopped.push_back(r);
        } else if (p && (!a || !by_key(a, p))) {
          free_ -= p->g;
          cursor = Lane::key(p);
          wait.erase(p);
          kept_.push_back(p), started.push_back(p);
          p = nullptr;
        } else if (a) {
          ++ai;
          cursor = Lane::Key{a->key_a, a->key_b, std::numeric_limits<long long>::max()};
          if (free_ >= a->g) {
            free_ -= a->g;
            if (a->status == St::Pending) started.push_back(a);
            kept_.push_back(a);
          } else {
            if (a->status == St::Running) stopped.push_back(a);
            waiting_tail.push_back(a);
          }
        } else {
          break;
        }
        after = &cursor;
      }
      run.swap(kept_);
      app.clear();
      for (auto it = preempted.rbegin(); it != preempted.rend(); ++it) (*it)->seq = --min_seq_;
      for (TiresiasJob* w : waiting_tail) w->seq = ++max_seq_;
      for (TiresiasJob* w : preempted) wait.insert(w);
      for (TiresiasJob* w : waiting_tail) wait.insert(w);
    }
    for (TiresiasJob* j : stopped) {
      preempt_lazy(*j, t);
      if (const long due = promotion_time(*j); due >= 0) promote_at_.emplace(std::make_pair(due, j->arrival), j);
    }
    for (TiresiasJob* j : started) {
      promote_at_.erase({promotion_time(*j), j->arrival});
      start_lazy(*j, t);
    }
    const auto by_arrival = [](const TiresiasJob* a, const TiresiasJob* b) { return a->arrival < b->arrival; };
    running_.erase(std::remove_if(running_.begin(), running_.end(), [](const TiresiasJob* j) { return j->status != St::Running; }),
                   running_.end());
    for (TiresiasJob* j : started) running_.insert(std::upper_bound(running_.begin(), running_.end(), j, by_arrival), j);
    // earliest_end and the next job-jump, over the running jobs; the waiting ones' promotions after t.
    set_end_event(t, running_, [](const TiresiasJob*) { return true; });
    next_jump_ = kMax;
    for (TiresiasJob* r : running_)
      if (r->q < 2) {
        const long left = limits_[static_cast<std::size_t>(r->q)] - r->executed;
        next_jump_ = std::min(next_jump_, (gputime ? floor_div(left, r->g) : left) + t);
      }
    if (const auto it = promote_at_.lower_bound({t + 1, 0}); it != promote_at_.end()) next_jump_ = std::min(next_jump_, it->first.first);
  }

  // gittins_step, lazily. The list is sorted by rank, stably, at every event: a job's place is (rank, seq). A job
  // whose rank changes lands, among its new rank's jobs, where its old place puts it: before them from a lower rank
  // (seqs below all), after them from a higher one (seqs above all, old order kept), and this event's arrivals after
  // everything. Ranks change only for running jobs, the jobs preempted at the last event, and arrivals.
  void gittins_lazy_step() {
    long t = 0;
    const Event ev = take_event(t);
    for (TiresiasJob* e : ev.ends) {
      end_lazy(*e, t);
      const auto it = std::find(preempted_last_.begin(), preempted_last_.end(), e);
      if (it != preempted_last_.end()) preempted_last_.erase(it);
    }
    for (TiresiasJob* a : ev.starts) move_to_runnable(*a);
    auto &up = up_, &down = down_;
    up.clear(), down.clear();
    const auto rerank = [&](TiresiasJob* j, double rank) {
      if (rank == j->rank) return;
      (j->rank < rank ? up : down).push_back({j, rank, Lane::key(j)});
    };
    for (TiresiasJob* r : running_) {
      ran_until(*r, t);
      rerank(r, (*gittins_)(r->executed * r->g, r->gittins_at));
    }
    for (TiresiasJob* p : preempted_last_) rerank(p, (*gittins_)(p->executed));  // seconds while waiting (Q8)
    preempted_last_.clear();
    std::sort(up.begin(), up.end(), [](const Move& a, const Move& b) { return b.old < a.old; });
    std::sort(down.begin(), down.end(), [](const Move& a, const Move& b) { return a.old < b.old; });
    Lane& wait = wait_q_[0];
    const auto apply = [&](const Move& m, long long seq) {
      const bool waiting = m.job->status == St::Pending;
      if (waiting) wait.erase(m.job);
      m.job->rank = m.rank;
      set_key(*m.job);
      m.job->seq = seq;
      if (waiting) wait.insert(m.job);
    };
    for (const Move& m : up) apply(m, --min_seq_);
    for (const Move& m : down) apply(m, ++max_seq_);
    for (TiresiasJob* a : ev.starts) {
      a->rank = (*gittins_)(a->executed);
      set_key(*a);
      a->seq = ++max_seq_;
      wait.insert(a);
    }
    // The pass: the running jobs and the waiting ones that fit, merged in list order.
    std::sort(running_.begin(), running_.end(), [](const TiresiasJob* a, const TiresiasJob* b) { return Lane::key(a) < Lane::key(b); });
    empty_infra();
    auto &started = started_, &kept = stopped_;  // scratch: the started ones, the running ones that stay
    started.clear(), kept.clear();
    const Lane::Key* after = nullptr;
    Lane::Key cursor;
    std::size_t ri = 0;
    TiresiasJob* p = nullptr;  // the first waiting job after the cursor that fits: still so while it fits
    bool none = false;         // no waiting job after the cursor fits: still so, the GPUs only go down
    for (;;) {
      if (!none && (!p || p->g > free_)) none = !(p = free_ > 0 ? wait.next_fit(after, free_) : nullptr);
      TiresiasJob* r = ri < running_.size() ? running_[ri] : nullptr;
      if (!p && !r) break;
      if (r && (!p || Lane::key(r) < Lane::key(p))) {
        ++ri;
        cursor = Lane::key(r);
        if (free_ >= r->g) free_ -= r->g, kept.push_back(r);
        else preempted_last_.push_back(r);
      } else {
        free_ -= p->g;
        cursor = Lane::key(p);
        wait.erase(p);
        started.push_back(p);
        p = nullptr;
      }
      after = &cursor;
    }
    for (TiresiasJob* j : preempted_last_) preempt_lazy(*j, t), wait.insert(j);
    for (TiresiasJob* j : started) start_lazy(*j, t), kept.push_back(j);
    std::sort(kept.begin(), kept.end(), [](const TiresiasJob* a, const TiresiasJob* b) { return Lane::key(a) < Lane::key(b); });
    running_.swap(kept);
    set_end_event(t, running_, [](const TiresiasJob*) { return true; });
    next_unit_ += t;  // grows by the event's time (Q8)
  }

  // A running job's service up to t (dlas, gittins: total and since its last promotion).
  static void ran_until(TiresiasJob& r, long t) {
    const long d = t - r.last_check;
    r.total_exec += d;
    r.executed += d;
    r.last_check = t;
  }
  // dlas's and gittins' pass: every node emptied, then the jobs of `lists` in order take GPUs by counting, skipping
  // what does not fit; a running job that does not fit is preempted, a waiting one that fits starts.
  template <class Lists>
  void count_pass(const Lists& lists, long t) {
    empty_infra();
    std::vector<TiresiasJob*> run, preempted;
    for (const auto& list : lists)
      for (TiresiasJob* j : list) {
        if (free_ >= j->g) {
          if (j->status == St::Pending) run.push_back(j);
          free_ -= j->g;
        } else if (j->status == St::Running) {
          preempted.push_back(j);
        }
      }
    for (TiresiasJob* j : preempted) j->status = St::Pending, ++j->preempt;
    for (TiresiasJob* j : run) {
      j->status = St::Running;
      if (j->start == kMax) j->start = t;
    }
  }
  // Their end event: only the earliest end of the running jobs (ties together).
  void earliest_end(long t) {
    set_end_event(t, runnable_, [](const TiresiasJob* r) { return r->status == St::Running; });
  }
  // The end event of the jobs of `list` that `runs` says run: only the earliest end, its jobs in list order (two
  // passes: the time, then the jobs, instead of a new event at every earlier end found).
  template <class Runs>
  void set_end_event(long t, const std::vector<TiresiasJob*>& list, Runs&& runs) {
    end_events_.clear();
    long first = kMax;
    for (const TiresiasJob* r : list)
      if (runs(r)) first = std::min(first, t + (r->duration - r->total_exec));
    if (first == kMax) return;
    Event& e = end_events_.emplace_back();
    e.time = first;
    for (TiresiasJob* r : list)
      if (runs(r) && t + (r->duration - r->total_exec) == first) e.ends.push_back(r);
  }

  // gittins_sim_jobs (Q8): no queues; every runnable job ranked by the table, LOWEST first; GPU counting.
  void gittins_step() {
    long t = 0;
    const Event ev = take_event(t);
    for (TiresiasJob* e : ev.ends) release(*e), complete(*e, t), remove_one(runnable_, e);
    for (TiresiasJob* s : ev.starts) move_to_runnable(*s);
    for (TiresiasJob* r : runnable_) {
      if (r->status == St::Running) {
        ran_until(*r, t);
        r->rank = (*gittins_)(r->executed * r->g);
      } else if (r->status == St::Pending) {
        r->last_check = t;
        r->rank = (*gittins_)(r->executed);  // seconds, not GPU-seconds, for a waiting job (Q8)
      }
    }
    std::stable_sort(runnable_.begin(), runnable_.end(), [](const TiresiasJob* a, const TiresiasJob* b) { return a->rank < b->rank; });
    count_pass(std::array{runnable_}, t);
    earliest_end(t);
    next_unit_ += t;  // grows by the event's time (Q8)
  }

  Spec spec_;
  bool yarn_;
  long total_, free_;
  std::vector<long> free_gpus_, free_cpus_;
  std::vector<double> free_mem_;
  Schedule s_;
  std::vector<long> limits_;
  long starvation_;
  std::vector<Event> events_, end_events_;
  std::map<long, Event> fifo_events_;  // fifo, fjf: arrivals and ends in one list (Q3)
  std::vector<TiresiasJob*> pending_, runnable_;
  std::vector<std::vector<TiresiasJob*>> queues_{3};
  long next_jump_ = kMax;
  const GittinsTable* gittins_;
  long next_unit_ = 3250;
  long busy_ = 0, last_t_ = 0, turns_ = 0, same_t_ = 0;
  std::size_t head_ = 0;
  // The lazy loops' state: the running jobs (dlas: each queue's, in its order), the waiting ones (each queue's
  // Lane), the jobs a step appends to each queue, the waiting jobs' promotion times (starvation), the jobs
  // preempted at the last step (gittins: their rank changes once), and the ends of the seq range.
  bool lazy_;
  long live_ = 0;
  long long arrivals_ = 0, min_seq_ = 0, max_seq_ = 0;
  std::array<std::vector<TiresiasJob*>, 3> run_q_, appended_;
  std::array<Lane, 3> wait_q_;
  std::map<std::pair<long, long long>, TiresiasJob*> promote_at_;  // (time, arrival): a waiting job's promotion
  std::vector<TiresiasJob*> running_, preempted_last_;
  std::vector<TiresiasJob*> promoted_, started_, stopped_, preempted_, waiting_tail_, kept_;  // a turn's scratch
  struct Move {  // gittins: a job whose rank changes, and its place before
    TiresiasJob* job;
    double rank;
    Lane::Key old;
  };
  std::vector<Move> up_, down_;
};

// The peer's loop as a deciding model under the engine: its events are integer seconds; the engine's arrivals
// are the same jobs, already in the peer's event list.
class TiresiasModel final : public SteppingModel {
 public:
  TiresiasModel(std::deque<TiresiasJob>& jobs, const Spec& spec, bool yarn, Schedule s, std::vector<long> limits,
                long starvation, const GittinsTable* gittins)
      : sim_(jobs, spec, yarn, s, std::move(limits), starvation, gittins) {}
  std::string name() const override { return "tiresias"; }
  bool searches_book() const override { return false; }
  // The peer's whole seconds as engine microseconds; its events are its own list (arrivals included).
  Time next_event_time() override {
    const long t = sim_.next_time();
    return t == kMax ? kNever : t * kUsPerS;
  }
  void advance_to(Time t) override {
    for (long s = sim_.next_time(); s != kMax && s * kUsPerS <= t; s = sim_.next_time()) sim_.step();
  }
  const Sim& sim() const { return sim_; }

 private:
  Sim sim_;
};

struct ParsedSchedule {
  Schedule s;
  long starvation = 0;
};

// Tiresias' schedules (simulator/run_sim.py --schedule), each with what it does; dlas-gpu-N is matched apart.
const std::vector<std::tuple<std::string, Schedule, std::string>>& schedule_table() {
  static const std::vector<std::tuple<std::string, Schedule, std::string>> v = {
      {"fifo", Schedule::Fifo, "first in, first out, strict head-of-line blocking (YARN-CS with +yarn)"},
      {"fjf", Schedule::Fjf, "FIFO that skips a job that does not fit (first job that fits)"},
      {"sjf", Schedule::Sjf, "fewest GPUs first, preemptive (every event re-places all jobs)"},
      {"shortest", Schedule::Shortest, "shortest remaining time first, preemptive (SRTF, perfect knowledge)"},
      {"shortest-gpu", Schedule::ShortestGpu, "least remaining GPU-time first, preemptive"},
      {"dlas", Schedule::Dlas, "discretised 2D-LAS by attained time; limits=L0,L1[,L2]"},
      {"dlas-gpu", Schedule::DlasGpu, "Tiresias-L: discretised 2D-LAS by attained GPU-time; limits=, starvation="},
      {"dlas-gpu-N", Schedule::DlasGpu, "dlas-gpu with the starvation knob N (the peer's name for starvation=N)"},
      {"gittins", Schedule::Gittins, "Gittins index on attained GPU-time, continuous; cdf=FILE"},
      {"dlas-gpu-gittins", Schedule::DlasGpuGittins, "Tiresias-G: discretised 2D-Gittins; limits=, cdf="},
  };
  return v;
}

ParsedSchedule schedule_of(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& [n, s, help] : schedule_table()) {
    if (n == name && n != "dlas-gpu-N") return {s};
    names.push_back(n);
  }
  if (name.rfind("dlas-gpu-", 0) == 0) {  // Tiresias' dlas-gpu-N: the starvation knob N
    const std::string n = name.substr(9);
    if (!n.empty() && std::all_of(n.begin(), n.end(), ::isdigit) && n.size() < 6) return {Schedule::DlasGpu, std::stol(n)};
  }
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
  throw InputError("--policy", 0, name,
                   "unknown Tiresias schedule '" + name + "'" + did_you_mean(name, names) + " (" + all +
                       "; ringmaster list-policies --compat tiresias)");
}

// A schedule's parameters (limits=L0,L1[,L2], starvation=N, cdf=FILE), checked: when the policy string is parsed and
// again when the run reads them (`default_cdf` under --data-dir).
struct Knobs {
  ParsedSchedule schedule;
  std::vector<long> limits;
  std::string cdf;
};
Knobs knobs_of(const PartSpec& sp, const std::string& default_cdf, std::uint64_t seed) {
  Knobs k{schedule_of(sp.name), {}, {}};
  PluginParams params(sp.name, sp.kv, seed);
  const std::vector<double> lim = params.get_list("limits", {3250, 7200, 18000}, 1, 1e12);
  k.schedule.starvation = params.get_int("starvation", static_cast<int>(k.schedule.starvation), 0, 1000000);
  k.cdf = params.get_string("cdf", default_cdf);
  params.check_all_used();
  if (lim.size() < 2 || lim.size() > 3)
    throw InputError("--policy", 0, sp.name + ":limits", "two or three queue limits (Tiresias: 3250,7200,18000)");
  for (double x : lim) {
    if (!(x > 0) || x > 1e12 || x != static_cast<double>(static_cast<long>(x)))
      throw InputError("--policy", 0, sp.name + ":limits", "limits are positive whole seconds");
    k.limits.push_back(static_cast<long>(x));
  }
  k.limits.resize(3, 18000);
  return k;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> tiresias_policies() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [n, s, help] : schedule_table()) out.emplace_back(n + "+yarn|count", help);
  return out;
}

void set_tiresias_list_loops(bool on) { g_list_loops = on; }

std::vector<double> tiresias_gittins_table(const std::string& cdf) { return GittinsTable(cdf).entries(); }

ClusterSpec read_tiresias_spec(const std::string& path) {
  if (!std::filesystem::is_regular_file(path))
    throw InputError("--cluster", 0, path,
                     "--compat tiresias reads Tiresias' cluster spec CSV (num_switch,num_node_p_switch,num_gpu_p_node,"
                     "num_cpu_p_node,mem_p_node), not a preset or YAML");
  const std::string text = TableReader::load(path);
  TableReader t(path, ',', &text);
  std::vector<std::string> row;
  if (!t.next(row)) throw InputError(path, 0, "", "empty cluster spec");
  t.set_header(row);
  static const char* const cols[] = {"num_switch", "num_node_p_switch", "num_gpu_p_node", "num_cpu_p_node", "mem_p_node"};
  for (const char* c : cols)
    if (!t.column(c)) throw InputError(path, t.line(), c, "required column missing");
  if (!t.next(row)) throw InputError(path, t.line(), "", "no cluster row after the header");
  t.check_width(row);
  long v[5];
  for (int i = 0; i < 5; ++i) {
    v[i] = parse_int32(t.require(row, cols[i]), path, t.line(), cols[i]);
    if (v[i] <= 0) throw InputError(path, t.line(), cols[i], "must be a positive integer");
  }
  if (v[0] * v[1] > 100000) throw InputError(path, t.line(), "num_node_p_switch", "more than 100,000 nodes");
  ClusterSpec c;
  c.name = path;
  for (long s = 0; s < v[0]; ++s) {
    c.racks.push_back({"switch" + std::to_string(s), 1.0});
    for (long n = 0; n < v[1]; ++n) {
      ServerSpec sv;
      sv.gpus = static_cast<int>(v[2]);
      sv.cpus = static_cast<int>(v[3]);
      sv.dram_gb = static_cast<double>(v[4]);
      sv.gpu_mem_gb = 1e9;  // the peer has no GPU memory
      sv.nic_gbps = 10;
      sv.rack = static_cast<int>(s);
      c.servers.push_back(sv);
    }
  }
  return c;
}

PolicySpec parse_tiresias_policy(const std::string& text) {
  PolicySpec s;
  s.text = text;
  s.family = PolicyFamily::Peer;
  const auto plus = text.rfind('+');
  if (plus == std::string::npos)
    throw InputError("--policy", 0, text,
                     "--compat tiresias takes SCHEDULE+yarn|count (e.g. dlas-gpu+count)" +
                         std::string(text == "tiresias" ? ": 'tiresias' is our preset (2d-las+consolidated) on our own "
                                                          "models, without --compat; Tiresias-L in its simulator is "
                                                          "dlas-gpu+count"
                                                        : "") +
                         " (ringmaster list-policies --compat tiresias)");
  const std::string scheme = text.substr(plus + 1);
  if (scheme != "yarn" && scheme != "count")
    throw InputError("--policy", 0, scheme,
                     "Tiresias' placement scheme is yarn or count, not '" + scheme + "'" +
                         did_you_mean(scheme, {"yarn", "count"}));
  const PolicyPart part = parse_policy_part(text.substr(0, plus));
  s.parts.push_back({Point::Scheduler, part.name, part.kv});
  knobs_of(s.parts.back(), "", 0);  // the schedule and its parameters, checked here (issue 42)
  s.parts.push_back({Point::Placement, scheme, {}});
  return s;
}

SimResult run_tiresias(const RunPlan& plan) {
  SimResult r;
  const PartSpec& sp = *plan.policy.part(Point::Scheduler);
  const std::string scheme = plan.policy.part(Point::Placement)->name;
  const Knobs k = knobs_of(sp, plan.inputs.data_dir + "/tiresias/yarn-gput1000.csv", plan.inputs.seed);
  ParsedSchedule ps = k.schedule;
  const bool ranked = ps.s == Schedule::Gittins || ps.s == Schedule::DlasGpuGittins;
  const std::string& cdf = k.cdf;
  const std::vector<long>& limits = k.limits;
  r.cluster = read_tiresias_spec(plan.inputs.cluster);
  const Spec spec(r.cluster);
  r.workload = load_workload(plan.inputs, r.cluster, &r.unschedulable, plan.inputs.errors, &r.models);
  if (plan.run.dry_run) return r;
  std::deque<TiresiasJob> jobs;
  for (const auto& j : r.workload.jobs) {
    TiresiasJob t;
    t.spec = &j;
    t.g = j.num_gpus;
    t.submit = static_cast<long>(j.submit / kUsPerS);
    t.duration = static_cast<long>(j.duration_s);  // int(float(duration)) (Q1)
    jobs.push_back(t);
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const TiresiasJob& a, const TiresiasJob& b) { return a.submit < b.submit; });
  // dlas and gittins count GPUs whatever the scheme (Q5, Q8): their yarn runs are their count runs.
  const bool yarn = scheme == "yarn" && ps.s <= Schedule::ShortestGpu;
  std::optional<GittinsTable> table;
  if (ranked) table.emplace(cdf);
  auto model = std::make_unique<TiresiasModel>(jobs, spec, yarn, ps.s, limits, ps.starvation, table ? &*table : nullptr);
  const TiresiasModel& m = *model;
  VectorFeed feed(r.workload.jobs);
  Engine engine(r.cluster, feed, nullptr, std::move(model));
  engine.run();
  r.record = RunRecord{};
  r.record.total_gpus = r.cluster.total_gpus();
  r.record.busy_gpu_us = m.sim().busy_gpu_s() * kUsPerS;
  r.record.events = m.sim().turns();
  long unfinished = 0;
  for (const auto& t : jobs) {
    JobRecord jr;
    jr.spec = t.spec;
    if (t.done) {
      jr.first_start = t.start * kUsPerS;
      jr.finish = t.end * kUsPerS;
      jr.run_us = (t.end - t.start) * kUsPerS;  // the peer's executed_time: since the first start
    } else {
      ++unfinished;
    }
    jr.preemptions = t.preempt;
    r.record.preemptions += t.preempt;
    r.record.jobs.push_back(jr);
  }
  r.record.extra.push_back({"unfinished_jobs", static_cast<double>(unfinished)});
  return r;
}

}  // namespace rm
