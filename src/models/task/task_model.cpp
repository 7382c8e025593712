#include "models/task/task_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "models/task/task_time.h"

namespace rm {
namespace {

// The authors' LWF workload charges communication at the 1 GbE beta (spec A.6.2, A.9 Q7).
constexpr double kLwfBetaCompat = 7.8125;

// Milliseconds from seconds, cleaned of binary noise (0.036 s -> 36 ms exactly).
double ms_of(double s) { return std::round(s * 1000.0 * 1e6) / 1e6; }

bool whole(double x) { return std::floor(x) == x; }

using task_time::ns_of;
Time us_of(std::int64_t ns) { return (ns + (ns >= 0 ? 500 : -500)) / 1000; }  // nearest microsecond

}  // namespace

TaskModel::TaskModel(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs, task::TaskPolicy& policy,
                       TaskOptions opt)
    : opt_(std::move(opt)), policy_(policy), cluster_(&cluster), gpu_(cluster, opt_.compat), net_(cluster, opt_.compat) {
  ff_ = opt_.fast_forward && !opt_.compat && policy_.admission->stable();
  if (ff_) gpu_comp_.assign(static_cast<std::size_t>(gpu_.count()), -1);
  lwf_beta_ = policy_.placement->workload_beta() > 0 ? policy_.placement->workload_beta()
                                                      : (opt_.compat ? kLwfBetaCompat : net_.beta());

  jobs_.resize(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const JobSpec& s = jobs[i];
    Job& j = jobs_[i];
    j.spec = &s;
    auto& v = j.v;
    v.id = static_cast<int>(i);
    v.arrival = static_cast<double>(s.submit) / 1000.0;
    j.arrival = s.submit * 1000;  // us -> ns
    v.n = s.num_gpus;
    const double compute = ms_of(s.compute_s);
    v.fw = s.forward_s > 0 ? ms_of(s.forward_s) : std::round(compute * 0.4 * 1e6) / 1e6;
    v.bw = compute - v.fw;
    v.size = s.grad_mb;
    v.mem = s.gpu_mem_mb;
    if (opt_.compat) {
      auto need = [&](bool ok, const char* field) {
        if (!ok) throw InputError(s.file, s.line, field, "--compat wang2020 needs whole milliseconds and iterations");
      };
      need(s.submit % 1000 == 0, "arrival");
      need(whole(v.fw) && whole(v.bw), "fw_ms");
      need(whole(s.iterations), "iterations");
    }
    v.iters = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(s.iterations - 1e-9)));
    if (!(v.fw > 0) || !(v.bw > 0))
      throw InputError(s.file, s.line, "compute", "the task model needs forward and backward times > 0");
    if (v.n < 1) throw InputError(s.file, s.line, "num_gpus", "must be >= 1");
    v.rem_service = static_cast<double>(v.n) * static_cast<double>(v.iters) * (v.fw + v.bw);
    v.rem_time = static_cast<double>(v.iters) * (v.fw + v.bw);
    j.fw_ns = ns_of(v.fw);
    j.bw_ns = ns_of(v.bw);
    j.time_ns = v.iters * (j.fw_ns + j.bw_ns);
    j.service_ns = v.n * j.time_ns;
    if (!opt_.compat) {
      v.rem_service = ms_from(j.service_ns);
      v.rem_time = ms_from(j.time_ns);
    }
    int fit = 0;
    for (const auto& g : gpu_.views()) fit += g.mem_total >= v.mem;
    if (fit < v.n)
      throw InputError(s.file, s.line, "num_gpus",
                       "job " + s.name + " needs " + std::to_string(v.n) + " GPUs with " + std::to_string(v.mem) +
                           " MB free; the cluster has " + std::to_string(fit));
  }
  for (std::size_t i = 1; i < jobs_.size(); ++i)
    if (jobs_[i].v.arrival < jobs_[i - 1].v.arrival) throw InvariantError("task engine: jobs not in arrival order");
}

// Keeps `list` in placement order, the authors' `running` order (A.11 item 15).
void TaskModel::insert_by_seq(std::vector<int>& list, const Job& j) {
  auto pos = std::upper_bound(list.begin(), list.end(), j.seq,
                              [&](std::int64_t s, int id) { return s < jobs_[id].seq; });
  list.insert(pos, j.v.id);
}

void TaskModel::set_ready(Job& j, bool on) {
  if (j.ready == on) return;
  j.ready = on;
  if (on) {
    insert_by_seq(ready_, j);
    new_ready_ = true;
  } else {
    ready_.erase(std::find(ready_.begin(), ready_.end(), j.v.id));
  }
}

// Default mode counts in whole nanoseconds (`exact`) and shows the plugins its value in ms (`shown`); compat
// keeps the authors' float sums in `shown` (models/task/task_time.h).
void TaskModel::add_exact(double& shown, std::int64_t& exact, double ms, std::int64_t ns) const {
  task_time::add(opt_.compat, shown, exact, ms, ns);
}

// P1, compute: the task on g ends; its worker moves FF -> BP or BP -> waiting for the all-reduce.
// (GpuTasks::pop_ended has marked it idle and to be offered a task.)
void TaskModel::retire_gpu(int g) {
  const GpuTasks::Gpu& r = gpu_.at(g);
  Job& j = jobs_[r.job];
  Phase& ph = j.phase[r.worker];
  if (ph == FF) {
    gpu_.add_workload(g, -j.v.fw, -j.fw_ns);
    add_exact(j.v.rem_service, j.service_ns, -j.v.fw, -j.fw_ns);
    ph = BP;
  } else {
    gpu_.add_workload(g, -j.v.bw, -j.bw_ns);
    add_exact(j.v.rem_service, j.service_ns, -j.v.bw, -j.bw_ns);
    ph = WAIT;
    if (++j.waiting == j.v.n) {
      if (!opt_.compat && j.v.servers.size() == 1) single_ready_.push_back(j.v.id);  // synced this instant
      else set_ready(j, true);
    }
  }
  ++wl_version_;
  changed_ = true;
}

// The all-reduce of the current iteration is done (A.11 item 7).
void TaskModel::sync(Job& j, Ns t) {
  j.waiting = 0;
  std::fill(j.phase.begin(), j.phase.end(), FF);
  j.in_comm = false;
  set_ready(j, false);
  for (int g : j.v.gpus) {
    gpu_.add_workload(g, -j.comm_once, -j.comm_ns);
    gpu_.mark_dirty(g);
  }
  if (j.comm_once != 0) ++wl_version_;
  add_exact(j.v.rem_time, j.time_ns, -(j.v.fw + j.v.bw), -(j.fw_ns + j.bw_ns));
  if (ff_ && j.comp >= 0) {  // the component's anchor is the first of its jobs to sync
    Comp& c = comps_[j.comp];
    if (c.anchor < 0) c.anchor = j.v.id;
    if (c.anchor == j.v.id) {
      c.other_syncs = 0;
    } else if (++c.other_syncs > kAnchorPatience) {  // the anchor starves: records start afresh at j
      clear_records(c);
      c.anchor = j.v.id;
      c.other_syncs = 0;
      c.stride = 1;
      c.skipped = 0;
    }
    if (c.anchor == j.v.id && !c.synced) {
      c.synced = true;
      synced_comps_.push_back(j.comp);
    }
  }
  if (j.iter < j.v.iters) {
    ++j.iter;
  } else {
    j.finished = true;
    j.finish = t;
    ++unreleased_finished_;
  }
  changed_ = true;
}

void TaskModel::release(Job& j) {
  for (std::size_t i = 0; i < j.v.gpus.size(); ++i) {
    const int g = j.v.gpus[i];
    book_->give_gpu_mem(j.v.id, g, j.v.mem);
    gpu_.release(g, j.v.id, static_cast<int>(i));
  }
  net_.release(j.v.servers);
  j.released = true;
  if (ff_) {
    if (j.comp >= 0) lost_.push_back(j.comp);
    else
      for (int c : touching(j)) lost_.push_back(c);
  }
  j.comp = -1;
  j.detached = j.woke = false;
  ++released_;
  --unreleased_finished_;
  ++mem_version_;
  changed_ = true;
}

// Placement and its side effects, in the order of A.11 item 10.
bool TaskModel::try_place(Job& j, Ns t) {
  chosen_.clear();
  if (!policy_.placement->place(j.v, view_, chosen_)) return false;
  if (static_cast<int>(chosen_.size()) != j.v.n)
    throw InvariantError("placement " + policy_.placement->name() + " returned a wrong number of GPUs");
  auto& servers = j.v.servers;
  servers.clear();
  for (std::size_t i = 0; i < chosen_.size(); ++i) {
    const int g = chosen_[i];
    if (g < 0 || g >= gpu_.count() || book_->free_gpu_mem_mb()[g] < j.v.mem ||
        std::find(chosen_.begin(), chosen_.begin() + static_cast<long>(i), g) != chosen_.begin() + static_cast<long>(i))
      throw InvariantError("placement " + policy_.placement->name() + " chose a full or repeated GPU");
    const int server = gpu_.views()[static_cast<std::size_t>(g)].server;
    if (std::find(servers.begin(), servers.end(), server) == servers.end()) servers.push_back(server);
  }
  net_.place(servers);
  const double iters = static_cast<double>(j.v.iters);
  j.comm_once = servers.size() > 1 ? j.v.size * lwf_beta_ : 0.0;
  j.comm_ns = ns_of(j.comm_once);
  const double comm_total = j.comm_once * iters;
  j.v.gpus = chosen_;
  j.phase.assign(j.v.n, FF);
  for (int i = 0; i < j.v.n; ++i) {
    const int g = chosen_[i];
    max_sharing_ = std::max<std::int64_t>(max_sharing_, static_cast<std::int64_t>(gpu_.place(g, j.v.id, i)));
    gpu_.add_workload(g, iters * (j.v.fw + j.v.bw) + comm_total, j.v.iters * (j.fw_ns + j.bw_ns + j.comm_ns));
    book_->take_gpu_mem(j.v.id, g, j.v.mem);
    gpu_.mark_dirty(g);
  }
  j.placed_at = t;
  j.seq = seq_++;
  running_.push_back(j.v.id);
  if (ff_) placed_.push_back(j.v.id);
  ++mem_version_;
  ++wl_version_;
  ++events_;
  changed_ = true;
  return true;
}

void TaskModel::start_flow(Job& j, Ns t) {
  net_.start(j.flow, j.v.id, j.v.size, j.v.servers, t);
  j.in_comm = true;
  set_ready(j, false);
  insert_by_seq(comm_, j);
  ++events_;
  changed_ = true;
}

// P8: an idle GPU runs the next task of the first job with the smallest compute key.
void TaskModel::dispatch(int g, Ns t) {
  const GpuTasks::Gpu& r = gpu_.at(g);
  if (r.busy) return;
  const task::Key key = policy_.compute;
  int best = -1;
  double best_key = 0;
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    const Job& j = jobs_[r.jobs[i].first];
    if (j.finished || j.phase[r.jobs[i].second] == WAIT) continue;
    const double k = j.v.key(key);
    if (best < 0 || k < best_key) best = static_cast<int>(i), best_key = k;
  }
  if (best < 0) return;
  const auto [job, worker] = r.jobs[best];
  Job& j = jobs_[job];
  j.ran = true;
  j.last_run = t;
  if (ff_ && !j.woke && (j.detached || (j.comp >= 0 && gpu_comp_[g] != j.comp))) {  // task_fast_forward.cpp
    j.woke = true;
    woken_.push_back(job);
  }
  const double dur = j.phase[worker] == FF ? j.v.fw : j.v.bw;
  const Ns dur_ns = j.phase[worker] == FF ? j.fw_ns : j.bw_ns;
  gpu_.run(g, job, worker, t, dur, dur_ns);
  ++events_;
  changed_ = true;
}

// P1: retire compute, then all-reduces (and, by default, single-server jobs whose workers all wait).
[[gnu::always_inline]] inline void TaskModel::retire(Ns t) {
  const double t_ms = ms_from(t);  // compat: whole ms, exact
  auto flow_done = [&](const Job& j) { return opt_.compat ? t_ms >= j.flow.end : t >= j.flow.end_ns; };
  for (int g = gpu_.pop_ended(t); g >= 0; g = gpu_.pop_ended(t)) retire_gpu(g);
  bool any_end = false;
  for (int id : comm_)
    if (flow_done(jobs_[id])) any_end = true;
  if (any_end) {
    net_.for_each_flow([&](int id) {
      Job& j = jobs_[id];
      if (j.in_comm && flow_done(j)) sync(j, t);
    });
    net_.drop_if([&](int id) { return !jobs_[id].in_comm; });
    comm_.erase(std::remove_if(comm_.begin(), comm_.end(), [&](int id) { return !jobs_[id].in_comm; }), comm_.end());
  }
  // Default mode: a single-server job whose workers all wait syncs now (its all-reduce is free), so
  // its memory is released below at the same instant (compat syncs it in P5, releases next step).
  if (!single_ready_.empty()) {
    std::sort(single_ready_.begin(), single_ready_.end(),
              [&](int a, int b) { return jobs_[a].seq < jobs_[b].seq; });
    for (int id : single_ready_) sync(jobs_[id], t);
    single_ready_.clear();
  }
}

// P2: release finished jobs' memory.
[[gnu::always_inline]] inline void TaskModel::release_finished() {
  if (unreleased_finished_ > 0) {
    if (opt_.compat) {
      for (std::size_t i = 0; i < running_.size(); ++i) {  // i advances after a deletion too (item 5)
        Job& j = jobs_[running_[i]];
        if (j.finished) {
          release(j);
          running_.erase(running_.begin() + static_cast<long>(i));
        }
      }
    } else {
      for (int id : running_)
        if (jobs_[id].finished) release(jobs_[id]);
      running_.erase(std::remove_if(running_.begin(), running_.end(), [&](int id) { return jobs_[id].released; }),
                     running_.end());
    }
  }
}

// P3: arrivals join the end of the queue.
[[gnu::always_inline]] inline void TaskModel::admit_arrivals(Ns t) {
  while (next_arrival_ < delivered_ && jobs_[next_arrival_].arrival <= t) {
    queue_.push_back(static_cast<int>(next_arrival_++));
    queue_sorted_ = false;
    ++events_;
    changed_ = true;
  }
}

// P4: placement in queue-key order. Attempts are pure given memory, workloads and the queue, so a
// pass is skipped when none of them moved since the last one.
[[gnu::always_inline]] inline void TaskModel::place_queue(Ns t) {
  if (!queue_.empty() &&
      (!queue_sorted_ || placed_at_version_ != mem_version_ || placed_at_wl_ != wl_version_)) {
    // Versions as of before the pass: a placement in it moves them, so the next instant tries again
    // (compat needs that for the job skipped after a placed one).
    placed_at_version_ = mem_version_;
    placed_at_wl_ = wl_version_;
    if (!queue_sorted_) {
      const task::Key key = policy_.queue;
      std::stable_sort(queue_.begin(), queue_.end(),
                       [&](int a, int b) { return jobs_[a].v.key(key) < jobs_[b].v.key(key); });
      queue_sorted_ = true;
    }
    if (opt_.compat) {
      for (std::size_t i = 0; i < queue_.size(); ++i)  // a placed job's successor waits a step (item 9)
        if (try_place(jobs_[queue_[i]], t)) queue_.erase(queue_.begin() + static_cast<long>(i));
    } else {
      std::vector<int> left;
      for (int id : queue_)
        if (!try_place(jobs_[id], t)) left.push_back(id);
      queue_.swap(left);
    }
  }
}

// P5: all-reduces of jobs whose workers all finished backward. Event-driven, a stable admission
// rule is re-asked only when a job became ready or the flow set changed since the last pass.
[[gnu::always_inline]] inline void TaskModel::admit_flows(Ns t) {
  const double t_ms = ms_from(t);  // compat: whole ms, exact
  const bool p5 = opt_.compat || new_ready_ || net_.changed() || !policy_.admission->stable();
  new_ready_ = false;
  if (!ready_.empty() && p5) {
    cands_.clear();
    scratch_ = ready_;
    for (int id : scratch_) {
      Job& j = jobs_[id];
      if (frozen(j, t)) continue;  // jumped ahead: re-asking it now would refuse it (stable admission)
      if (j.v.servers.size() == 1) sync(j, t);  // free inside one server
      else cands_.push_back(id);
    }
    // Stable by key: ties keep placement order (A.11 item 15). Insertion sort: a handful of jobs.
    const task::Key key = policy_.comm;
    for (std::size_t i = 1; i < cands_.size(); ++i) {
      const int id = cands_[i];
      const double k = jobs_[id].v.key(key);
      std::size_t j = i;
      for (; j > 0 && jobs_[cands_[j - 1]].v.key(key) > k; --j) cands_[j] = cands_[j - 1];
      cands_[j] = id;
    }
    for (int id : cands_)
      if (policy_.admission->admit(jobs_[id].v, t_ms, view_)) start_flow(jobs_[id], t);
  }
}

void TaskModel::step(Ns t) {
  now_ = t;
  retire(t);
  release_finished();
  admit_arrivals(t);
  place_queue(t);
  admit_flows(t);
  // P6-P7: re-rate the flows (every step in compat, at every change of the flow set otherwise).
  if (opt_.compat || net_.changed())
    for (int id : comm_)
      if (!frozen(jobs_[id], t)) net_.rerate(jobs_[id].flow, jobs_[id].v.servers, t);  // a frozen flow keeps its speed
  net_.clear_changed();
  // P8: idle GPUs pick their next task.
  if (gpu_.any_dirty()) {
    gpu_.take_dirty(scratch_);
    for (int g : scratch_) dispatch(g, t);
  }
}

// Cached: the engine asks for it before and at every instant; it changes only at a step or an arrival.
TaskModel::Ns TaskModel::next_step() {
  if (next_valid_) return next_;
  next_valid_ = true;
  if (opt_.compat) return next_ = released_ < static_cast<std::int64_t>(jobs_.size()) ? compat_next_ : kNever;
  Ns t = next_end();
  if (next_arrival_ < delivered_) t = std::min(t, std::max(jobs_[next_arrival_].arrival, last_step_));
  return next_ = t;
}

TaskModel::Ns TaskModel::next_end() const {
  Ns t = gpu_.next_end(kNever);
  for (int id : comm_) t = std::min(t, jobs_[id].flow.end_ns);
  return t;
}

TaskModel::Ns TaskModel::next_timed() const {
  const Ns t = next_end();
  return next_arrival_ < jobs_.size() ? std::min(t, jobs_[next_arrival_].arrival) : t;
}

// Jobs arrive in their order (the engine delivers by submit time; ids are the order).
void TaskModel::arrive(JobState& job, Time /*now*/) {
  if (job.id() != static_cast<JobId>(delivered_)) throw InvariantError("task model: jobs must arrive in order");
  ++delivered_;
  next_valid_ = false;
}

// The engine instant of a model instant: the microsecond it falls in (the model's instants are never negative).
Time TaskModel::next_event_time() {
  const Ns t = next_step();
  return t >= kNever ? rm::kNever : t / 1000;
}

void TaskModel::record_series(Ns now) {
  const int queued = static_cast<int>(queue_.size()), running = static_cast<int>(running_.size());
  if (!series_.empty() && series_.back().queued == queued && series_.back().running == running) return;
  SeriesRow row;
  row.t = us_of(now);
  row.queued = queued;
  row.running = running;
  row.busy_gpus = gpu_.busy_count();
  series_.push_back(row);
}

// Every model instant in the engine's microseconds up to t (the nanoseconds [.., t us + 999 ns]), in order.
void TaskModel::advance_to(Time t) {
  const auto n = static_cast<std::int64_t>(jobs_.size());
  const Ns limit = t >= kNever / 1000 ? kNever - 1 : t * 1000 + 999;
  for (Ns s = next_step(); released_ < n && s <= limit; s = next_step()) {
    // A zero-size flow ends at the instant it starts, so time may stay put, but not forever.
    same_instant_ = s == last_step_ && !opt_.compat ? same_instant_ + 1 : 0;
    if (s < last_step_ || same_instant_ > 1000)
      throw InvariantError("task engine: time did not advance at t=" + std::to_string(ms_from(s)) + " ms");
    last_step_ = s;
    changed_ = false;
    next_valid_ = false;
    step(s);
    if (ff_) after_step(s);
    record_series(s);
    if (opt_.progress && released_ - last_report_ >= std::max<std::int64_t>(1, n / 100)) {
      last_report_ = released_;
      opt_.progress({static_cast<std::int64_t>(released_), static_cast<std::int64_t>(n), static_cast<double>(s) / 1e9, 0});
    }
    if (released_ == n) break;
    // Nothing timed left (no task, flow or arrival) and, in compat, nothing changed in this step (a
    // change there can still release or place next step): no job can ever progress again.
    const bool idle = opt_.compat ? !changed_ && next_timed() >= kNever : next_step() >= kNever && next_timed() >= kNever;
    if (idle)
      throw InvariantError("task engine: deadlock at t=" + std::to_string(ms_from(s)) + " ms with " +
                           std::to_string(n - released_) + " jobs left");
    if (opt_.compat) {
      compat_next_ = s + 1000000;  // 1 ms
      next_valid_ = false;
    }
  }
}

void TaskModel::end() {
  const auto n = static_cast<std::int64_t>(jobs_.size());
  if (released_ < n)
    throw InvariantError("task engine: deadlock at t=" + std::to_string(ms_from(last_step_)) + " ms with " +
                         std::to_string(n - released_) + " jobs left");
  total_time_ = opt_.compat ? ms_from(last_step_) + 1.0 : ms_from(last_step_);
  check_final();
}

void TaskModel::check_final() const {
  double want = 0, got = 0;
  for (const auto& j : jobs_) {
    if (!j.finished || !j.released) throw InvariantError("task engine: job " + j.spec->name + " never finished");
    const double work = static_cast<double>(j.v.n) * static_cast<double>(j.v.iters) * (j.v.fw + j.v.bw);
    want += work;
    if (std::abs(j.v.rem_service) > 1e-9 * (1 + work))
      throw InvariantError("task engine: job " + j.spec->name + " finished with service left");
  }
  got = gpu_active_ms();
  if (std::abs(want - got) > 1e-9 * (1 + want))
    throw InvariantError("task engine: GPU busy time " + std::to_string(got) + " ms != work " + std::to_string(want));
  for (int g = 0; g < gpu_.count(); ++g)
    if (book_->free_gpu_mem_mb()[static_cast<std::size_t>(g)] != gpu_.views()[static_cast<std::size_t>(g)].mem_total)
      throw InvariantError("task engine: GPU memory not returned");
  if (!net_.idle()) throw InvariantError("task engine: a flow outlived its job");
}

double TaskModel::avg_jct_ms() const {
  double sum = 0;
  for (const auto& j : jobs_) sum += ms_from(j.finish - j.arrival);
  return jobs_.empty() ? 0 : sum / static_cast<double>(jobs_.size());
}

double TaskModel::gpu_active_ms() const { return gpu_.active_ms(); }

RunRecord TaskModel::record() const {
  RunRecord r;
  for (const auto& j : jobs_) {
    JobRecord jr;
    jr.spec = j.spec;
    jr.first_start = us_of(j.placed_at);
    jr.finish = us_of(j.finish);
    jr.run_us = jr.finish - jr.first_start;
    // Alone on an idle cluster: its tasks back to back, plus one uncontended all-reduce per iteration when it
    // cannot fit one server.
    const double comm = j.v.n > gpu_.max_server_gpus() ? j.v.size * net_.beta() : 0.0;
    jr.ideal_us = us_of(ns_of(static_cast<double>(j.v.iters) * (j.v.fw + j.v.bw + comm)));
    jr.servers = static_cast<int>(j.v.servers.size());
    if (!j.v.servers.empty())
      jr.gpu_type = gpu_type_index(r, cluster_->servers[static_cast<std::size_t>(j.v.servers.front())].gpu_type);
    r.jobs.push_back(jr);
  }
  r.series = series_;
  r.total_gpus = gpu_.count();
  r.busy_gpu_us = static_cast<Time>(std::llround(gpu_active_ms() * 1000.0));
  r.events = events_;
  r.extra = {{"avg_jct_ms", avg_jct_ms()},
             {"makespan_ms", total_time_},
             {"authors_gpu_util", total_time_ > 0 ? gpu_active_ms() / gpu_.count() / total_time_ : 0.0},
             {"max_jobs_per_gpu", static_cast<double>(max_sharing_)},
             {"max_flows_per_nic", static_cast<double>(net_.max_flows())}};
  return r;
}

}  // namespace rm
