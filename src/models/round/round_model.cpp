#include "models/round/round_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <queue>
#include <array>
#include <cstdlib>
#include <set>

#include "core/error.h"
#include "policy/registry.h"
#include "core/py_stats.h"

namespace rm::synergy {

namespace {

enum EvType { kArrival = 1, kJobEnd = 2, kLeaseEnd = 3, kSchedule = 4 };

struct Event {
  double t;
  int type;
  std::uint64_t seq;
  Job* job;
  std::uint64_t epoch;
  bool operator>(const Event& o) const {
    if (t != o.t) return t > o.t;
    if (type != o.type) return type > o.type;
    return seq > o.seq;
  }
};

}  // namespace

void check_job(const JobInit& ji, int servers, int gpus_per_server, const ProfileSet& profiles,
               bool synergy_gpu_counts) {
  if (synergy_gpu_counts && ji.g != 1 && ji.g != 2 && ji.g != 4 && ji.g != 8 && ji.g != 16)
    throw InputError(ji.file, ji.line, "gpu_demand", "must be 1, 2, 4, 8 or 16, not " + std::to_string(ji.g));
  if (ji.g < 1) throw InputError(ji.file, ji.line, "gpu_demand", "must be >= 1");
  if (ji.g > servers * gpus_per_server)
    throw InputError(ji.file, ji.line, "gpu_demand", "job " + std::to_string(ji.id) + " needs more GPUs than the cluster has");
  if (!(ji.N >= 0)) throw InputError(ji.file, ji.line, "total_iterations", "must be >= 0");
  profiles.get(ji.model, ji.file, ji.line);  // throws for a model without a profile
}

namespace {

// The round model as an execution model that decides (exec/execution_model.h): the engine owns the clock (its
// microseconds), the arrivals and the cluster book; the model keeps its own events in double seconds, in the
// authors' (time, type, insertion) order (S.10 item 1), and processes those of one engine instant in that order.
class Model final : public RoundModel {
 public:
  Model(const Vec& P, const ProfileSet& profiles, RoundFeed& feed, const RoundOptions& o)
      : P_(P), profiles_(profiles), feed_(feed), o_(o),
        order_(o.order_plugin ? o.order_plugin : std::shared_ptr<QueueOrder>(make_order(o.order, 0))),
        alloc_(o.allocation ? o.allocation : std::shared_ptr<Allocation>(make_allocation(PartSpec{Point::Allocation, "fair", {}}, 0))),
        traits_(alloc_->round_traits()) {
    if (!(o.round_s > 0)) throw InputError("--round", 0, "", "must be > 0");
    las_ = order_->fair_share();
    starvation_flag_ = !order_->arrival_order();
    dynamic_ = !feed_.known_up_front();
    // An arrival order whose keys never change (fifo): the runnable list, kept in arrival order, is always sorted,
    // so the passes skip the keys and the sort, and a pass between boundaries walks only the waiting jobs.
    arrival_sorted_ = order_->arrival_order() && order_->key_fixed_while_waiting() &&
                      order_->running_key() != QueueOrder::RunningKey::Moves && !order_->in_python();
    // Any other order whose keys only change with what the model changes (a waiting job's key is fixed; a running
    // job's view is frozen at each refresh: iter_time 0), under the GPU-proportional mechanism (the orders never see
    // sigma; a pass is the default job-by-job loop): the passes between boundaries re-key only the jobs that
    // changed and walk only the waiting jobs that fit (keyed passes, below). `+full-sort` keeps the full sort at
    // every pass (the reference the tests compare against).
    keyed_ = !arrival_sorted_ && order_->key_fixed_while_waiting() && !order_->in_python() &&
             !alloc_->in_python() && !traits_.sigma_speedup && !traits_.whole_pass && !o.full_sort;
  }

  std::string name() const override { return "round"; }
  // FIRST_FIT passes over full servers by the book's index of servers by free GPUs (round_pass.cpp).
  bool searches_book() const override { return true; }

  void bind(Cluster& book) override {
    cl_ = std::make_unique<RoundPass>(book, P_);
    const Vec& tot = cl_->totals();
    order_->bind({tot[kGpu], tot[kCpu], tot[kMem]});
    cl_->consolidated = o_.consolidated;
    cl_->matrix_speed = o_.matrix_speed;
    cl_->compat = o_.compat;
    cl_->credit = [this](Job& j, bool prop) { credit(j, prop); };
    cl_->rollback = [this](Job& j) { rollback(j); };
    cl_->start = [this](Job& j) { start_lease(j); };
  }

  void bind_views(JobViews& views) override { views_ = &views; }

  void admit(JobState& view) override {
    Job& j = add(feed_.init(view.spec->id), view);
    if (r_.jobs.size() == 1) first_schedule_ = o_.is_static ? 1.0 : std::ceil(j.arrival / o_.round_s) * o_.round_s;
    if (!dynamic_) ++pending_arrivals_;
  }

  void begin() override {
    if (r_.jobs.empty()) return;  // an empty replay: nothing to schedule
    if (dynamic_) first_schedule_ = 0;
    else if (o_.window_hi == std::numeric_limits<std::int64_t>::max()) total_ = feed_.count();
    if (o_.window_hi != std::numeric_limits<std::int64_t>::max()) total_ = o_.window_hi - o_.window_lo + 1;
    push({first_schedule_, kSchedule, 0, nullptr, 0});
    next_schedule_ = first_schedule_;
  }

  void arrive(JobState& view, Time) override {
    Job& j = r_.jobs[static_cast<std::size_t>(view.spec->id)];
    push({j.arrival, kArrival, 0, &j, 0});
  }

  bool ended() const override { return terminate_; }
  // The engine instant of an event: its double seconds rounded to the microsecond (from_seconds).
  Time next_event_time() override { return terminate_ || pq_.empty() ? kNever : from_seconds(pq_.top().t); }

  // Every event at engine time <= t, in the model's own order (time, then type, then insertion).
  void advance_to(Time t) override {
    while (!pq_.empty() && !terminate_ && from_seconds(pq_.top().t) <= t) {
      const Event e = pq_.top();
      pq_.pop();
      now_ = e.t;
      ++r_.events;
      switch (e.type) {
        case kArrival: on_arrival(*e.job); break;
        case kJobEnd: on_job_end(*e.job, e.epoch); break;
        case kLeaseEnd: on_leases_end(); break;
        case kSchedule: on_schedule(); break;
      }
    }
  }

  RoundResult result() override {
    if (r_.jobs.empty()) return std::move(r_);
    r_.end_time = now_;
    std::sort(r_.measured_jct.begin(), r_.measured_jct.end());
    const auto& x = r_.measured_jct;
    const long n = static_cast<long>(x.size());
    r_.mean_h = n == 0 ? std::nan("") : (numpy_pairwise_sum(x.data(), n) / static_cast<double>(n)) / 3600;
    r_.p99_h = pandas_quantile(x, 0.99) / 3600;
    r_.p999_h = pandas_quantile(x, 0.999) / 3600;
    return std::move(r_);
  }

 private:
  Job& add(const JobInit& ji, JobState& view) {
    check_job(ji, cl_->num_servers(), cl_->gpus_per_server(), profiles_, o_.synergy_gpu_counts);
    Job& j = r_.jobs.emplace_back();
    j.id = ji.id;
    j.key = static_cast<JobId>(r_.jobs.size() - 1);
    j.arrival = ji.arrival;
    j.N = ji.N;
    init_job(j, profiles_.get(ji.model, ji.file, ji.line), ji.g, P_);
    j.name = ji.name.empty() ? std::to_string(ji.id) : ji.name;
    view.arrival_s = ji.arrival;
    view.cpu_demand = j.c;
    view.mem_demand = j.m;
    view.ideal_iter_time = j.t;
    j.view = &view;
    if (keyed_) slots_.emplace_back();
    return j;
  }

  void push(Event e) {
    e.seq = seq_++;
    pq_.push(e);
  }

  // Progress of this lease (S.10 item 14): the authors credit floor(R / te) iterations at allocation;
  // exact mode credits what fits before the lease end and schedules the finish.
  void credit(Job& j, bool proportional_path) {
    touch(j);
    double te = j.t;
    if (!proportional_path) te = te / j.speed;
    if (o_.placement_factor) te *= o_.placement_factor(j);
    j.last_progress = j.done;
    if (j.first_start < 0) j.first_start = now_;
    if (o_.compat) {
      j.done += std::floor(o_.round_s / te);
      if (j.done > j.N) j.done = j.N;
      j.attained += o_.round_s;
      j.credited_s = o_.round_s;
      return;
    }
    const double len = lease_end_ - now_, need = j.N - j.done;
    if (need * te <= len) {
      j.done = j.N;
      j.credited_s = need * te;
      j.finish_at = now_ + need * te;
      push({j.finish_at, kJobEnd, 0, &j, j.epoch});
    } else {
      j.done += len / te;
      j.credited_s = len;
    }
    j.attained += j.credited_s;
  }

  void rollback(Job& j) {
    touch(j);
    j.done = j.last_progress;
    j.attained = std::max(0.0, j.attained - j.credited_s);
    j.finish_at = -1;
    ++j.epoch;
  }

  void start_lease(Job& j) {
    touch(j);
    if (keyed_) unwait(j);
    j.lease_start = now_;
    j.lease_end = lease_end_;
    ++j.leases;
    j.max_servers = std::max(j.max_servers, j.servers_spanned());
    ++leases_;
    // The leases ending at one time are one event, placed where the first of them would be (the events of one
    // time and type run in insertion order, and ending a lease pushes none), holding them in the order they started.
    if (ending_.empty() || ending_.back().t != lease_end_) {
      if (!ending_.empty() && ending_.back().t > lease_end_) throw InvariantError("round model: a lease ends early");
      push({lease_end_, kLeaseEnd, 0, nullptr, 0});
      ending_.push_back({lease_end_, std::move(spare_)});
      spare_.clear();
    }
    ending_.back().jobs.push_back(&j);
  }

  // `release`: give its GPUs back to the book one by one; else the book was freed at once (on_leases_end).
  void end_lease(Job& j, bool release = true) {
    touch(j);
    const double held = now_ - j.lease_start;
    r_.busy_gpu_s += held * static_cast<double>(j.gpus.size());
    j.run_s += held;
    j.last_exec = now_;
    if (release) {
      cl_->release(j);
    } else {
      j.gpus.clear();
      j.res.clear();
    }
  }

  void on_arrival(Job& j) {
    runnable_.push_back(&j);
    if (keyed_) arrived_.push_back(&j);
    if (check_) shadow_arrived_.push_back(&j);
    if (arrival_sorted_) wait(j, arrivals_++);  // last in arrival order, as in runnable_
    if (!dynamic_) --pending_arrivals_;
  }

  void on_job_end(Job& j, std::uint64_t epoch) {
    if (epoch != j.epoch || j.finished || j.gpus.empty()) return;
    end_lease(j);
    finish(j);
    if (!terminate_ && now_ < next_schedule_) fill_pass();
  }

  bool lease_ends_now(const Job& j) const { return !j.finished && !j.gpus.empty() && j.lease_end == now_; }
  void on_lease_end(Job& j, bool release) {
    if (!lease_ends_now(j)) return;
    end_lease(j, release);
    if (j.done >= j.N) finish(j);
  }
  // The leases ending now, in the order they started, each one event. Every lease ends at the boundary after it
  // started and a job that finished before gave its GPUs back: when these leases hold every GPU held, the book is
  // freed at once (the state their releases one by one leave: each server settled), unless a window's last job
  // may stop the run among them (the rest would keep theirs) or they hold few of the cluster's GPUs.
  void on_leases_end() {
    Leases b = std::move(ending_.front());
    ending_.pop_front();
    if (b.t != now_) throw InvariantError("round model: leases ending at " + std::to_string(b.t) + " s taken at " +
                                          std::to_string(now_) + " s");
    std::int64_t held = 0;
    for (const Job* j : b.jobs)
      if (lease_ends_now(*j)) held += static_cast<std::int64_t>(j->gpus.size());
    // (Freeing the whole book costs its GPUs and servers: below an eighth of them held, one by one is cheaper.)
    // RM_ROUND_CHECK=1 (tests) gives them back one by one and checks the book is then a new one, the state the
    // book freed at once has (a run with and one without the check give the same outputs).
    const bool every = held == cl_->book().total_gpus() - cl_->free_gpus();
    const bool at_once = o_.window_hi == std::numeric_limits<std::int64_t>::max() && every &&
                         held * 8 >= cl_->book().total_gpus() && !check_;
    if (at_once) cl_->release_all(held);
    for (std::size_t i = 0; i < b.jobs.size() && !terminate_; ++i) {
      if (i > 0) ++r_.events;  // one event a lease, as counted before they were grouped
      on_lease_end(*b.jobs[i], !at_once);
    }
    if (check_ && every && !terminate_) cl_->check_new_book();
    b.jobs.clear();
    spare_ = std::move(b.jobs);
  }

  void finish(Job& j) {
    if (keyed_) unwait(j);
    std::vector<int>().swap(j.gpus);  // released: a finished job keeps no placement's memory
    std::vector<std::pair<int, Vec>>().swap(j.res);
    j.finished = true;
    j.finish_time = now_;
    ++finished_in_list_;  // left in runnable_ until the next walk over it (drop_finished): no O(n) erase per job
    // Its view no more: every walk skips finished jobs before reading one (the orders see runnable jobs only), and
    // the result keeps the job's own figures.
    if (views_) views_->let_go(*j.view);
    j.view = nullptr;
    if (j.id >= o_.window_lo && j.id <= o_.window_hi) {
      r_.measured_jct.push_back(now_ - j.arrival);
      if (static_cast<std::int64_t>(r_.measured_jct.size()) == total_ && o_.window_hi != std::numeric_limits<std::int64_t>::max()) {
        r_.window_complete = true;
        terminate_ = true;
      }
      if (o_.progress && total_ > 0)
        o_.progress({static_cast<std::int64_t>(r_.measured_jct.size()), static_cast<std::int64_t>(total_), now_, 0});
    }
  }

  // The view a queue order reads: progress, attained service and the expected speedup as of now. Synergy's
  // remaining time is at the proportional share, divided by the current sigma unless the mechanism is fair.
  void refresh_view(Job& j, Time now) {
    JobState& v = *j.view;
    v.status = j.gpus.empty() ? JobStatus::Queued : JobStatus::Running;
    v.remaining = j.N - j.done;
    v.speedup = traits_.sigma_speedup ? j.sigma : 1.0;
    v.run_us = from_seconds(j.attained);  // seconds of leases credited, as of now
    v.last_start = now;
    v.iter_time = 0;
  }

  // Stable in-place sort of the runnable list by (starved first, the order's key, arrival): the order is a
  // shared plugin; the starvation flag (S.10 item 16; not under FIFO) and the stable re-sort are the loop's.
  // At a boundary the same walk over the jobs (each one a cache miss) also resets every job's sigma for the
  // round and raises the starvation flag of those waiting too long (S.10 item 16; it counts from the next sort).
  void sort_runnable(bool boundary) {
    if (arrival_sorted_ && !boundary) return;  // in key order already; the pass reads waiting_by_g_
    if (keyed_ && !boundary) return keyed_sort();
    if (keyed_) materialize();
    drop_finished();
    const Time now = from_seconds(now_);
    if (arrival_sorted_) {  // a boundary still refreshes and resets every job, as below
      for (Job* j : runnable_) {
        refresh_view(*j, now);
        j->sigma = j->sigma0;
        if (now_ - (j->last_exec >= 0 ? j->last_exec : j->arrival) > o_.starvation_s) j->prio = true;
      }
      return;
    }
    keyed_list_.clear();
    for (Job* j : runnable_) {
      keyed_list_.push_back({triple(*j, now), j});
      if (!boundary) continue;
      j->sigma = j->sigma0;
      if (now_ - (j->last_exec >= 0 ? j->last_exec : j->arrival) > o_.starvation_s) j->prio = true;
    }
    const auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
    if (!std::is_sorted(keyed_list_.begin(), keyed_list_.end(), by_key)) {  // FIFO's list always is: O(n), no sort
      std::stable_sort(keyed_list_.begin(), keyed_list_.end(), by_key);
      for (std::size_t i = 0; i < keyed_list_.size(); ++i) runnable_[i] = keyed_list_[i].second;
    }
    if (keyed_) relabel();
  }

  // Keyed passes (keyed_): between two boundaries the runnable list is not kept; each job holds the key it had at
  // the last sort and a label, such that (key, label) orders the jobs as the list would be. A pass's stable sort
  // moves only the jobs whose key may have changed since (those started, credited, stopped or arrived: touch()),
  // and a job's place among the others of equal key is its place in the list before the sort: ahead of them all
  // if its old key was smaller, behind them all if larger (labels from two counters that run below and above every
  // label given), where it was if equal. The waiting jobs are in one set per GPU count by (key, label), so that a
  // pass walks only those that fit, as the arrival-sorted passes do. At a boundary the list is rebuilt from the
  // labels and sorted as before.
  struct Slot {
    std::array<double, 3> k{};
    std::int64_t label = 0;
    bool labeled = false, dirty = false, waiting = false;
  };
  struct Keyed {
    std::array<double, 3> k;
    std::int64_t label;
    Job* j;
    bool operator<(const Keyed& o) const { return k != o.k ? k < o.k : label < o.label; }
  };
  struct Moved {  // a job whose key changed, and its old key and label
    std::array<double, 3> old_k;
    std::int64_t old_label;
    Job* j;
    std::array<double, 3> k;
  };
  Slot& slot(const Job& j) { return slots_[static_cast<std::size_t>(j.key)]; }
  void touch(Job& j) {
    if (!keyed_) return;
    Slot& s = slot(j);
    if (!s.dirty && s.labeled) dirty_.push_back(&j);
    s.dirty = true;
  }
  void unwait(Job& j) {
    Slot& s = slot(j);
    if (!s.waiting) return;
    wait_sets_[static_cast<std::size_t>(j.g)].erase({s.k, s.label, &j});
    s.waiting = false;
  }
  void enwait(Job& j) {
    Slot& s = slot(j);
    if (s.waiting || j.finished || !j.gpus.empty()) return;
    if (static_cast<std::size_t>(j.g) >= wait_sets_.size()) wait_sets_.resize(static_cast<std::size_t>(j.g) + 1);
    wait_sets_[static_cast<std::size_t>(j.g)].insert({s.k, s.label, &j});
    s.waiting = true;
  }
  // A job's place in the list: (starved first, the order's key, arrival), its view refreshed first.
  std::array<double, 3> triple(Job& j, Time now) {
    refresh_view(j, now);
    return {starvation_flag_ && j.prio ? -1.0 : 0.0, order_->key(*j.view, now), j.arrival};
  }

  // The list as the last sort left it, with the arrivals since at its end, into runnable_ (at a boundary).
  void materialize() {
    std::vector<Keyed> placed;
    placed.reserve(runnable_.size());
    for (Job* j : runnable_)
      if (!j->finished && slot(*j).labeled) placed.push_back({slot(*j).k, slot(*j).label, j});
    std::sort(placed.begin(), placed.end());
    runnable_.clear();
    for (const Keyed& e : placed) runnable_.push_back(e.j);
    for (Job* j : arrived_)
      if (!j->finished && !slot(*j).labeled) runnable_.push_back(j);
    finished_in_list_ = 0;
  }

  // After a boundary's sort: labels by place, the waiting sets emptied; the jobs its pass leaves waiting join them
  // after it (on_schedule), so that the jobs it starts are never put in and taken out again.
  void relabel() {
    for (auto& w : wait_sets_) w.clear();
    for (Job* j : dirty_) slot(*j).dirty = false;
    dirty_.clear();
    arrived_.clear();
    for (std::size_t i = 0; i < keyed_list_.size(); ++i) {
      Job& j = *keyed_list_[i].second;
      Slot& s = slot(j);
      s = Slot{keyed_list_[i].first, static_cast<std::int64_t>(i), true, false, false};
      if (starvation_flag_ && j.prio && s.k[0] == 0.0) touch(j);  // starved at this boundary, after its key
    }
    front_ = -1;
    back_ = static_cast<std::int64_t>(keyed_list_.size());
    if (check_) shadow_ = runnable_, shadow_arrived_.clear();
  }

  // RM_ROUND_CHECK=1 (tests): every keyed pass's order against the full stable sort of a list kept as the full
  // sorts keep it (shadow_); InvariantError at the first job out of place.
  void check_against_full() {
    std::erase_if(shadow_, [](const Job* j) { return j->finished; });
    shadow_.insert(shadow_.end(), shadow_arrived_.begin(), shadow_arrived_.end());
    shadow_arrived_.clear();
    const Time now = from_seconds(now_);
    std::vector<std::pair<std::array<double, 3>, Job*>> full;
    for (Job* j : shadow_) full.push_back({triple(*j, now), j});
    std::stable_sort(full.begin(), full.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Keyed> mine;
    for (std::size_t i = 0; i < full.size(); ++i) {
      shadow_[i] = full[i].second;
      mine.push_back({slot(*shadow_[i]).k, slot(*shadow_[i]).label, shadow_[i]});
    }
    std::sort(mine.begin(), mine.end());
    for (std::size_t i = 0; i < mine.size(); ++i)
      if (mine[i].j != shadow_[i] || mine[i].k != full[i].first)
        throw InvariantError("round model: keyed pass at " + std::to_string(now_) + " s puts job " +
                             std::to_string(mine[i].j->id) + " where the full sort puts job " +
                             std::to_string(shadow_[i]->id) + " (place " + std::to_string(i) + ")");
  }
  bool check_ = std::getenv("RM_ROUND_CHECK") && std::string(std::getenv("RM_ROUND_CHECK")) == "1";
  std::vector<Job*> shadow_, shadow_arrived_;  // check_ only

  // A pass's sort between boundaries: the changed jobs and the arrivals re-keyed and placed.
  void keyed_sort() {
    const Time now = from_seconds(now_);
    std::vector<Moved>& ahead = moved_ahead_;
    std::vector<Moved>& behind = moved_behind_;
    ahead.clear();
    behind.clear();
    for (Job* j : dirty_) {
      Slot& s = slot(*j);
      s.dirty = false;
      if (j->finished) continue;
      const std::array<double, 3> k = triple(*j, now);
      if (k == s.k) {  // same key: same place
        enwait(*j);
        continue;
      }
      unwait(*j);
      (s.k < k ? ahead : behind).push_back({s.k, s.label, j, k});
    }
    dirty_.clear();
    const auto by_old = [](const Moved& a, const Moved& b) {
      return a.old_k != b.old_k ? a.old_k < b.old_k : a.old_label < b.old_label;
    };
    // Old key below the new: it was ahead of every job now holding the new key.
    std::sort(ahead.begin(), ahead.end(), by_old);
    for (auto it = ahead.rbegin(); it != ahead.rend(); ++it) {
      Slot& s = slot(*it->j);
      s.k = it->k;
      s.label = front_--;
    }
    // Old key above the new: behind every one of them; then the arrivals, in the order they joined the list's end.
    std::sort(behind.begin(), behind.end(), by_old);
    for (const Moved& m : behind) {
      Slot& s = slot(*m.j);
      s.k = m.k;
      s.label = back_++;
    }
    for (Job* j : arrived_) {
      Slot& s = slot(*j);
      if (j->finished || s.labeled) continue;
      s.k = triple(*j, now);
      s.label = back_++;
      s.labeled = true;
      enwait(*j);
    }
    arrived_.clear();
    for (const Moved& m : ahead) enwait(*m.j);
    for (const Moved& m : behind) enwait(*m.j);
    if (check_) check_against_full();
  }

  // The waiting jobs a pass between boundaries can start, in (key, label) order, each handed to `visit`: those asking
  // for at most the GPUs free when reached (try_allocate refuses the others before anything else).
  template <class Visit>
  void for_each_fitting_keyed(Visit visit) {
    using It = std::set<Keyed>::iterator;
    std::vector<std::pair<int, It>>& heads = keyed_heads_;
    heads.clear();
    for (std::size_t g = 1; g < wait_sets_.size() && g <= static_cast<std::size_t>(cl_->free_gpus()); ++g)
      if (!wait_sets_[g].empty()) heads.push_back({static_cast<int>(g), wait_sets_[g].begin()});
    for (;;) {
      const int free = cl_->free_gpus();
      std::pair<int, It>* best = nullptr;
      for (auto& h : heads)
        if (h.first <= free && h.second != wait_sets_[static_cast<std::size_t>(h.first)].end() &&
            (!best || *h.second < *best->second))
          best = &h;
      if (!best) return;
      Job& j = *best->second->j;
      ++best->second;  // before the visit: a start takes j's entry out of its set
      visit(j);
    }
  }

  // The finished jobs out of the runnable list, the others kept in their order.
  void drop_finished() {
    if (finished_in_list_ == 0) return;
    std::erase_if(runnable_, [](const Job* j) { return j->finished; });
    finished_in_list_ = 0;
  }

  // The waiting jobs of runnable_ by GPU count, each list in runnable_ order with the job's place in it
  // (arrival_sorted_ only): rebuilt after each boundary's pass; jobs that started or finished since are dropped
  // from a list when a pass reads it.
  void wait(Job& j, std::int64_t place) {
    if (static_cast<std::size_t>(j.g) >= waiting_by_g_.size()) waiting_by_g_.resize(static_cast<std::size_t>(j.g) + 1);
    waiting_by_g_[static_cast<std::size_t>(j.g)].e.push_back({place, &j});
  }
  static bool gone(const Job* j) { return !j->gpus.empty() || j->finished; }

  // The waiting jobs a pass between boundaries can start, in runnable_ order, handed to `visit` one at a time: those
  // asking for at most the GPUs free when each is reached, merged by their place in runnable_ across the per-count
  // lists. The others cannot start in the pass (free GPUs only shrink during it; OPT's prefix takes only jobs that
  // fit what is left) and it would only reset their sigma, which every pass resets again before it allocates them
  // (and fifo's key never reads); so a pass costs the jobs it reaches, not the queue.
  template <class Visit>
  void for_each_fitting(Visit visit) {
    heads_.clear();
    for (std::size_t g = 1; g < waiting_by_g_.size() && g <= static_cast<std::size_t>(cl_->free_gpus()); ++g) {
      WaitList& l = waiting_by_g_[g];
      while (l.head < l.e.size() && gone(l.e[l.head].second)) ++l.head;  // started or finished: out for good
      if (l.head > 64 && l.head * 2 > l.e.size()) {
        l.e.erase(l.e.begin(), l.e.begin() + static_cast<std::ptrdiff_t>(l.head));
        l.head = 0;
      }
      if (l.head < l.e.size()) heads_.push_back({static_cast<int>(g), l.head});
    }
    const auto place = [this](const std::pair<int, std::size_t>& h) {
      return waiting_by_g_[static_cast<std::size_t>(h.first)].e[h.second].first;
    };
    for (;;) {
      const int free = cl_->free_gpus();
      std::pair<int, std::size_t>* best = nullptr;
      for (auto& h : heads_) {
        if (h.first > free) continue;
        const auto& e = waiting_by_g_[static_cast<std::size_t>(h.first)].e;
        while (h.second < e.size() && gone(e[h.second].second)) ++h.second;
        if (h.second < e.size() && (!best || place(h) < place(*best))) best = &h;
      }
      if (!best) return;
      visit(*waiting_by_g_[static_cast<std::size_t>(best->first)].e[best->second++].second);
    }
  }

  int deficit(const Job& j) const { return j.g - static_cast<int>(j.gpus.size()); }

  // The GPU-count-greedy prefix of the sorted list (LAS's and OPT's loop set).
  std::vector<Job*> prefix_set() const {
    std::vector<Job*> out;
    int left = cl_->free_gpus();
    for (Job* j : runnable_) {
      const int d = deficit(*j);
      if (d > 0 && d <= left) {
        out.push_back(j);
        left -= d;
      }
    }
    return out;
  }

  // One scheduling pass over `loop`; its wall time is a decision latency (summary.json "timing").
  void run_pass(std::vector<Job*>& loop, std::chrono::steady_clock::time_point t0) {
    alloc_->round_pass(*cl_, loop);  // each job it allocates starts its lease (cl_->start)
    record_decision(t0);
  }
  void record_decision(std::chrono::steady_clock::time_point t0) {
    r_.decision_us.push_back(static_cast<float>(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count()));
  }

  void on_schedule() {
    const auto t0 = std::chrono::steady_clock::now();
    ++r_.rounds;
    lease_end_ = now_ + o_.round_s;
    next_schedule_ = lease_end_;
    // Every lease ends at a boundary, before its pass (LEASE_END < SCHEDULE): the pass starts on a free cluster.
    if (cl_->free_gpus() != cl_->book().total_gpus()) throw InvariantError("round model: a lease outlived its round");
    sort_runnable(true);
    cl_->new_round();
    std::vector<Job*> jobs_this_round;  // the loop set of LAS and OPT (others loop over the whole list)
    if (las_ || traits_.whole_pass) jobs_this_round = prefix_set();
    if (las_ && traits_.deficit_first)
      std::stable_sort(jobs_this_round.begin(), jobs_this_round.end(),
                       [this](const Job* a, const Job* b) { return -deficit(*a) < -deficit(*b); });
    cl_->allow_peers = true;
    const std::int64_t leases_before = leases_;  // the jobs this pass starts are the ones running after it
    if (las_ || traits_.whole_pass) {
      run_pass(jobs_this_round, t0);
    } else {
      loop_ = runnable_;  // allocation never changes the runnable list, but keep the pass on a snapshot
      run_pass(loop_, t0);
    }
    if (keyed_)
      for (const auto& e : keyed_list_) enwait(*e.second);  // those still waiting (enwait skips the others)
    if (arrival_sorted_) {
      for (auto& l : waiting_by_g_) l.e.clear(), l.head = 0;
      std::int64_t place = 0;
      for (Job* j : runnable_) {
        if (j->gpus.empty()) wait(*j, place);
        ++place;
      }
      arrivals_ = place;
    }
    const int running = static_cast<int>(leases_ - leases_before), busy = cl_->book().total_gpus() - cl_->free_gpus();
    r_.series.push_back({now_, static_cast<int>(runnable_.size()) - running, running, busy});
    // The authors stop a replay at the first boundary with nothing runnable (S.9 Q13); we wait for the
    // trace's remaining arrivals.
    // (A replay by arrival time is taken one job ahead of the arrivals: none pending means none left to take.)
    if ((!dynamic_ || o_.is_static) && runnable_.empty() && (o_.compat || pending_arrivals_ == 0)) {
      terminate_ = true;
      return;
    }
    push({now_ + o_.round_s, kSchedule, 0, nullptr, 0});
  }

  // Exact mode: resources freed mid-round go to waiting jobs, in policy order, until the round ends.
  void fill_pass() {
    const auto t0 = std::chrono::steady_clock::now();
    lease_end_ = next_schedule_;
    sort_runnable(false);
    if (keyed_ || (arrival_sorted_ && !traits_.whole_pass)) {  // the default pass (Allocation::round_pass), job by
      cl_->allow_peers = false;                                 // job, over the waiting jobs that fit
      const auto start = [this](Job& j) {
        j.sigma = j.sigma0;
        try_allocate(*alloc_, *cl_, j);
      };
      if (keyed_) for_each_fitting_keyed(start);
      else for_each_fitting(start);
      record_decision(t0);
      return;
    }
    std::vector<Job*>& loop = loop_;
    loop.clear();
    if (arrival_sorted_) {
      for_each_fitting([&loop](Job& j) {
        j.sigma = j.sigma0;
        loop.push_back(&j);
      });
    } else {
      for (Job* j : runnable_)
        if (j->gpus.empty()) {
          j->sigma = j->sigma0;
          loop.push_back(j);
        }
    }
    if (traits_.whole_pass) {
      std::vector<Job*> fit;
      int left = cl_->free_gpus();
      for (Job* j : loop)
        if (j->g <= left) {
          fit.push_back(j);
          left -= j->g;
        }
      loop = fit;
    }
    cl_->allow_peers = false;
    run_pass(loop, t0);
  }

  Vec P_;
  const ProfileSet& profiles_;
  RoundFeed& feed_;
  RoundOptions o_;
  std::unique_ptr<RoundPass> cl_;  // the passes over the engine's book (holds, round lists, the callbacks)
  JobViews* views_ = nullptr;      // where finished jobs' views go back to the engine
  std::shared_ptr<QueueOrder> order_;
  std::shared_ptr<Allocation> alloc_;
  Allocation::RoundTraits traits_;
  bool las_ = false, starvation_flag_ = true;  // LAS's loop set (S.10 item 16); FIFO ignores the flag
  bool arrival_sorted_ = false;                // fifo: runnable_ is always in key order (see the constructor)
  RoundResult r_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> pq_;
  struct Leases {  // the leases ending at t, in the order they started: one kLeaseEnd event
    double t;
    std::vector<Job*> jobs;
  };
  std::deque<Leases> ending_;
  std::vector<Job*> spare_;  // the last group's list, its capacity kept for the next
  std::uint64_t seq_ = 0;
  std::vector<Job*> runnable_;                 // finished jobs linger until drop_finished
  std::int64_t finished_in_list_ = 0;
  // arrival_sorted_: the waiting jobs by GPU count, (place in runnable_, job), in runnable_ order; arrivals_ is the
  // place of the next arrival.
  struct WaitList {
    std::vector<std::pair<std::int64_t, Job*>> e;
    std::size_t head = 0;  // every entry before it has started or finished
  };
  std::vector<WaitList> waiting_by_g_;
  std::vector<std::pair<int, std::size_t>> heads_;  // for_each_fitting: (GPU count, next entry) of the lists it merges
  std::int64_t arrivals_ = 0;
  std::vector<std::pair<std::array<double, 3>, Job*>> keyed_list_;
  bool keyed_ = false;                         // keyed passes (see Slot)
  std::vector<Slot> slots_;                    // keyed_: by Job::key
  std::vector<Job*> dirty_, arrived_;          // keyed_: touched since the last sort; joined since the last sort
  std::vector<std::set<Keyed>> wait_sets_;     // keyed_: the waiting jobs by GPU count, in (key, label) order
  std::int64_t front_ = -1, back_ = 0;         // keyed_: the next label below / above every label given
  std::vector<std::pair<int, std::set<Keyed>::iterator>> keyed_heads_;
  std::vector<Moved> moved_ahead_, moved_behind_;
  std::vector<Job*> loop_;
  double now_ = 0, lease_end_ = 0, next_schedule_ = 0, first_schedule_ = 0;
  bool dynamic_ = false, terminate_ = false;
  std::int64_t total_ = 0, pending_arrivals_ = 0;
  std::int64_t leases_ = 0;  // leases started so far
};

}  // namespace

const JobInit& RoundFeed::init(JobId id) const {
  if (id != next_id_ - 1)
    throw InvariantError("round model: job " + std::to_string(id) + " admitted after the feed read another");
  return last_;
}

const JobSpec* RoundFeed::next() {
  auto ji = src_.next();
  if (!ji) return nullptr;
  last_ = std::move(*ji);
  const JobInit& i = last_;
  JobSpec* place = nullptr;
  if (!free_.empty()) {
    place = free_.back();  // the feed sets only the four fields below: the rest are a new spec's already
    free_.pop_back();
  }
  JobSpec& spec = place ? *place : specs_.emplace_back();
  spec.id = next_id_++;
  spec.submit = from_seconds(i.arrival);  // what the engine and the orders read; the model keeps the exact time
  spec.num_gpus = i.g;
  spec.iterations = i.N;
  return &spec;
}

void RoundFeed::let_go(const JobSpec& spec) {
  free_.push_back(const_cast<JobSpec*>(&spec));  // one of specs_, which the feed owns; handed out const
}

std::unique_ptr<RoundModel> make_round_model(const Vec& per_server, const ProfileSet& profiles, RoundFeed& feed,
                                             const RoundOptions& opt) {
  return std::make_unique<Model>(per_server, profiles, feed, opt);
}

}  // namespace rm::synergy
