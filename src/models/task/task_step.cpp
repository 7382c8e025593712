#include "models/task/task_step.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"

namespace rm {
namespace {

// The authors' LWF workload charges communication at the 1 GbE beta (spec A.6.2, A.9 Q7).
constexpr double kLwfBetaCompat = 7.8125;

// Milliseconds from seconds, cleaned of binary noise (0.036 s -> 36 ms exactly).
double ms_of(double s) { return std::round(s * 1000.0 * 1e6) / 1e6; }

bool whole(double x) { return std::floor(x) == x; }

using task_time::ms_from;
using task_time::ns_of;
constexpr TaskJob::Phase FF = TaskJob::FF, BP = TaskJob::BP, WAIT = TaskJob::WAIT;

}  // namespace

TaskStep::TaskStep(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs, task::TaskPolicy& policy, bool compat,
                   bool fast_forward)
    : compat_(compat), policy_(policy), gpu_(cluster, compat), net_(cluster, compat) {
  lwf_beta_ = policy_.placement->workload_beta() > 0 ? policy_.placement->workload_beta()
                                                      : (compat_ ? kLwfBetaCompat : net_.beta());

  jobs_.resize(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const JobSpec& s = jobs[i];
    TaskJob& j = jobs_[i];
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
    if (compat_) {
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
    if (!compat_) {
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
  if (fast_forward && !compat_ && policy_.admission->stable()) ff_.emplace(jobs_, gpu_, net_, policy_);
}

void TaskStep::deliver(std::size_t id) {
  if (id != delivered_) throw InvariantError("task model: jobs must arrive in order");
  ++delivered_;
}

// Keeps `list` in placement order, the authors' `running` order (A.11 item 15).
void TaskStep::insert_by_seq(std::vector<int>& list, const TaskJob& j) {
  auto pos = std::upper_bound(list.begin(), list.end(), j.seq,
                              [&](std::int64_t s, int id) { return s < jobs_[id].seq; });
  list.insert(pos, j.v.id);
}

void TaskStep::set_ready(TaskJob& j, bool on) {
  if (j.ready == on) return;
  j.ready = on;
  if (on) {
    insert_by_seq(ready_, j);
    new_ready_ = true;
  } else {
    ready_.erase(std::find(ready_.begin(), ready_.end(), j.v.id));
  }
}

// P1, compute: the task on g ends; its worker moves FF -> BP or BP -> waiting for the all-reduce.
// (GpuTasks::pop_ended has marked it idle and to be offered a task.)
void TaskStep::retire_gpu(int g) {
  const GpuTasks::Gpu& r = gpu_.at(g);
  TaskJob& j = jobs_[r.job];
  TaskJob::Phase& ph = j.phase[r.worker];
  if (ph == FF) {
    gpu_.add_workload(g, -j.v.fw, -j.fw_ns);
    add_exact(j.v.rem_service, j.service_ns, -j.v.fw, -j.fw_ns);
    ph = BP;
  } else {
    gpu_.add_workload(g, -j.v.bw, -j.bw_ns);
    add_exact(j.v.rem_service, j.service_ns, -j.v.bw, -j.bw_ns);
    ph = WAIT;
    if (++j.waiting == j.v.n) {
      if (!compat_ && j.v.servers.size() == 1) single_ready_.push_back(j.v.id);  // synced this instant
      else set_ready(j, true);
    }
  }
  ++wl_version_;
  changed_ = true;
}

// The all-reduce of the current iteration is done (A.11 item 7).
void TaskStep::sync(TaskJob& j, Ns t) {
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
  if (ff_) ff_->synced(j.v.id);
  if (j.iter < j.v.iters) {
    ++j.iter;
  } else {
    j.finished = true;
    j.finish = t;
    ++unreleased_finished_;
  }
  changed_ = true;
}

void TaskStep::release(TaskJob& j) {
  for (std::size_t i = 0; i < j.v.gpus.size(); ++i) {
    const int g = j.v.gpus[i];
    book_->give_gpu_mem(j.v.id, g, j.v.mem);
    gpu_.release(g, j.v.id, static_cast<int>(i));
  }
  net_.release(j.v.servers);
  j.released = true;
  if (ff_) ff_->released(j.v.id);
  ++released_;
  --unreleased_finished_;
  ++mem_version_;
  changed_ = true;
}

// Placement and its side effects, in the order of A.11 item 10.
bool TaskStep::try_place(TaskJob& j, Ns t) {
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
  if (ff_) ff_->placed(j.v.id);
  ++mem_version_;
  ++wl_version_;
  ++events_;
  changed_ = true;
  return true;
}

void TaskStep::start_flow(TaskJob& j, Ns t) {
  net_.start(j.flow, j.v.id, j.v.size, j.v.servers, t);
  j.in_comm = true;
  set_ready(j, false);
  insert_by_seq(comm_, j);
  ++events_;
  changed_ = true;
}

// P8: an idle GPU runs the next task of the first job with the smallest compute key.
void TaskStep::dispatch(int g, Ns t) {
  const GpuTasks::Gpu& r = gpu_.at(g);
  if (r.busy) return;
  const task::Key key = policy_.compute;
  int best = -1;
  double best_key = 0;
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    const TaskJob& j = jobs_[r.jobs[i].first];
    if (j.finished || j.phase[r.jobs[i].second] == WAIT) continue;
    const double k = j.v.key(key);
    if (best < 0 || k < best_key) best = static_cast<int>(i), best_key = k;
  }
  if (best < 0) return;
  const auto [job, worker] = r.jobs[best];
  TaskJob& j = jobs_[job];
  if (ff_) ff_->ran(job, g, t);
  const double dur = j.phase[worker] == FF ? j.v.fw : j.v.bw;
  const Ns dur_ns = j.phase[worker] == FF ? j.fw_ns : j.bw_ns;
  gpu_.run(g, job, worker, t, dur, dur_ns);
  ++events_;
  changed_ = true;
}

// P1: retire compute, then all-reduces (and, by default, single-server jobs whose workers all wait).
[[gnu::always_inline]] inline void TaskStep::retire(Ns t) {
  const double t_ms = ms_from(t);  // compat: whole ms, exact
  auto flow_done = [&](const TaskJob& j) { return compat_ ? t_ms >= j.flow.end : t >= j.flow.end_ns; };
  for (int g = gpu_.pop_ended(t); g >= 0; g = gpu_.pop_ended(t)) retire_gpu(g);
  bool any_end = false;
  for (int id : comm_)
    if (flow_done(jobs_[id])) any_end = true;
  if (any_end) {
    net_.for_each_flow([&](int id) {
      TaskJob& j = jobs_[id];
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
[[gnu::always_inline]] inline void TaskStep::release_finished() {
  if (unreleased_finished_ > 0) {
    if (compat_) {
      for (std::size_t i = 0; i < running_.size(); ++i) {  // i advances after a deletion too (item 5)
        TaskJob& j = jobs_[running_[i]];
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
[[gnu::always_inline]] inline void TaskStep::admit_arrivals(Ns t) {
  while (next_arrival_ < delivered_ && jobs_[next_arrival_].arrival <= t) {
    queue_.push_back(static_cast<int>(next_arrival_++));
    queue_sorted_ = false;
    ++events_;
    changed_ = true;
  }
}

// P4: placement in queue-key order. Attempts are pure given memory, workloads and the queue, so a
// pass is skipped when none of them moved since the last one.
[[gnu::always_inline]] inline void TaskStep::place_queue(Ns t) {
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
    if (compat_) {
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
[[gnu::always_inline]] inline void TaskStep::admit_flows(Ns t) {
  const double t_ms = ms_from(t);  // compat: whole ms, exact
  const bool p5 = compat_ || new_ready_ || net_.changed() || !policy_.admission->stable();
  new_ready_ = false;
  if (!ready_.empty() && p5) {
    cands_.clear();
    scratch_ = ready_;
    for (int id : scratch_) {
      TaskJob& j = jobs_[id];
      if (frozen(id, t)) continue;  // jumped ahead: re-asking it now would refuse it (stable admission)
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

// P6-P7: re-rate the flows (every step in compat, at every change of the flow set otherwise).
[[gnu::always_inline]] inline void TaskStep::rerate_flows(Ns t) {
  if (compat_ || net_.changed())
    for (int id : comm_)
      if (!frozen(id, t)) net_.rerate(jobs_[id].flow, jobs_[id].v.servers, t);  // a frozen flow keeps its speed
  net_.clear_changed();
}

// P8: idle GPUs pick their next task.
[[gnu::always_inline]] inline void TaskStep::dispatch_idle(Ns t) {
  if (gpu_.any_dirty()) {
    gpu_.take_dirty(scratch_);
    for (int g : scratch_) dispatch(g, t);
  }
}

void TaskStep::step(Ns t) {
  now_ = t;
  changed_ = false;
  retire(t);
  release_finished();
  admit_arrivals(t);
  place_queue(t);
  admit_flows(t);
  rerate_flows(t);
  dispatch_idle(t);
  if (ff_) {
    const FastForward::Credit credit = ff_->after_step(t, {queue_, running_, next_arrival()});
    events_ += credit.events;
    wl_version_ += static_cast<std::uint64_t>(credit.jumps);
  }
}

}  // namespace rm
