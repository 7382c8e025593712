#include "models/task/task_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "models/task/task_time.h"

namespace rm {
namespace {

using task_time::ms_from;
using task_time::ns_of;
Time us_of(std::int64_t ns) { return (ns + (ns >= 0 ? 500 : -500)) / 1000; }  // nearest microsecond

}  // namespace

TaskModel::TaskModel(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs, task::TaskPolicy& policy,
                     TaskOptions opt)
    : opt_(std::move(opt)), cluster_(&cluster), step_(cluster, jobs, policy, opt_.compat, opt_.fast_forward) {}

const TaskModel::FastForwardStats& TaskModel::fast_forward_stats() const {
  static const FastForwardStats none;
  return step_.fast_forward() ? step_.fast_forward()->stats() : none;
}

// Cached: the engine asks for it before and at every instant; it changes only at a step or an arrival.
TaskModel::Ns TaskModel::next_step() {
  if (next_valid_) return next_;
  next_valid_ = true;
  if (opt_.compat)
    return next_ = step_.counts().released < static_cast<std::int64_t>(step_.jobs().size()) ? compat_next_ : kNever;
  Ns t = step_.next_end();
  const Ns arrival = step_.next_delivered_arrival();
  if (arrival < kNever) t = std::min(t, std::max(arrival, last_step_));
  return next_ = t;
}

TaskModel::Ns TaskModel::next_timed() const { return std::min(step_.next_end(), step_.next_arrival()); }

// Jobs arrive in their order (the engine delivers by submit time; ids are the order).
void TaskModel::arrive(JobState& job, Time /*now*/) {
  step_.deliver(static_cast<std::size_t>(job.id()));
  next_valid_ = false;
}

// The engine instant of a model instant: the microsecond it falls in (the model's instants are never negative).
Time TaskModel::next_event_time() {
  const Ns t = next_step();
  return t >= kNever ? rm::kNever : t / 1000;
}

void TaskModel::record_series(Ns now) {
  const TaskStep::Counts c = step_.counts();
  if (!series_.empty() && series_.back().queued == c.queued && series_.back().running == c.running) return;
  SeriesRow row;
  row.t = us_of(now);
  row.queued = c.queued;
  row.running = c.running;
  row.busy_gpus = step_.gpus().busy_count();
  series_.push_back(row);
}

// Every model instant in the engine's microseconds up to t (the nanoseconds [.., t us + 999 ns]), in order.
void TaskModel::advance_to(Time t) {
  const auto n = static_cast<std::int64_t>(step_.jobs().size());
  const Ns limit = t >= rm::kNever / 1000 ? kNever - 1 : t * 1000 + 999;
  auto released = [&] { return step_.counts().released; };
  for (Ns s = next_step(); released() < n && s <= limit; s = next_step()) {
    // A zero-size flow ends at the instant it starts, so time may stay put, but not forever.
    same_instant_ = s == last_step_ && !opt_.compat ? same_instant_ + 1 : 0;
    if (s < last_step_ || same_instant_ > 1000)
      throw InvariantError("task engine: time did not advance at t=" + std::to_string(ms_from(s)) + " ms");
    last_step_ = s;
    next_valid_ = false;
    step_.step(s);
    record_series(s);
    const std::int64_t done = released();
    if (opt_.progress && done - last_report_ >= std::max<std::int64_t>(1, n / 100)) {
      last_report_ = done;
      opt_.progress({done, n, static_cast<double>(s) / 1e9, 0});
    }
    if (done == n) break;
    // Nothing timed left (no task, flow or arrival) and, in compat, nothing changed in this step (a
    // change there can still release or place next step): no job can ever progress again.
    const bool idle =
        opt_.compat ? !step_.changed() && next_timed() >= kNever : next_step() >= kNever && next_timed() >= kNever;
    if (idle)
      throw InvariantError("task engine: deadlock at t=" + std::to_string(ms_from(s)) + " ms with " +
                           std::to_string(n - done) + " jobs left");
    if (opt_.compat) {
      compat_next_ = s + 1000000;  // 1 ms
      next_valid_ = false;
    }
  }
}

void TaskModel::end() {
  const auto n = static_cast<std::int64_t>(step_.jobs().size());
  const std::int64_t done = step_.counts().released;
  if (done < n)
    throw InvariantError("task engine: deadlock at t=" + std::to_string(ms_from(last_step_)) + " ms with " +
                         std::to_string(n - done) + " jobs left");
  total_time_ = opt_.compat ? ms_from(last_step_) + 1.0 : ms_from(last_step_);
  check_final();
}

void TaskModel::check_final() const {
  double want = 0;
  for (const auto& j : step_.jobs()) {
    if (!j.finished || !j.released) throw InvariantError("task engine: job " + j.spec->name + " never finished");
    const double work = static_cast<double>(j.v.n) * static_cast<double>(j.v.iters) * (j.v.fw + j.v.bw);
    want += work;
    if (std::abs(j.v.rem_service) > 1e-9 * (1 + work))
      throw InvariantError("task engine: job " + j.spec->name + " finished with service left");
  }
  const double got = gpu_active_ms();
  if (std::abs(want - got) > 1e-9 * (1 + want))
    throw InvariantError("task engine: GPU busy time " + std::to_string(got) + " ms != work " + std::to_string(want));
  const GpuTasks& gpus = step_.gpus();
  for (int g = 0; g < gpus.count(); ++g)
    if (step_.book().free_gpu_mem_mb()[static_cast<std::size_t>(g)] != gpus.views()[static_cast<std::size_t>(g)].mem_total)
      throw InvariantError("task engine: GPU memory not returned");
  if (!step_.net().idle()) throw InvariantError("task engine: a flow outlived its job");
}

double TaskModel::avg_jct_ms() const {
  double sum = 0;
  for (const auto& j : step_.jobs()) sum += ms_from(j.finish - j.arrival);
  return step_.jobs().empty() ? 0 : sum / static_cast<double>(step_.jobs().size());
}

RunRecord TaskModel::record() const {
  RunRecord r;
  const GpuTasks& gpus = step_.gpus();
  for (const auto& j : step_.jobs()) {
    JobRecord jr;
    jr.spec = j.spec;
    jr.first_start = us_of(j.placed_at);
    jr.finish = us_of(j.finish);
    jr.run_us = jr.finish - jr.first_start;
    // Alone on an idle cluster: its tasks back to back, plus one uncontended all-reduce per iteration when it
    // cannot fit one server.
    const double comm = j.v.n > gpus.max_server_gpus() ? j.v.size * step_.net().beta() : 0.0;
    jr.ideal_us = us_of(ns_of(static_cast<double>(j.v.iters) * (j.v.fw + j.v.bw + comm)));
    jr.servers = static_cast<int>(j.v.servers.size());
    if (!j.v.servers.empty())
      jr.gpu_type =
          gpu_type_index(r, cluster_->servers[static_cast<std::size_t>(j.v.servers.front())].gpu_type);
    r.jobs.push_back(jr);
  }
  r.series = series_;
  r.total_gpus = gpus.count();
  r.busy_gpu_us = static_cast<Time>(std::llround(gpu_active_ms() * 1000.0));
  r.events = step_.counts().events;
  r.extra = {{"avg_jct_ms", avg_jct_ms()},
             {"makespan_ms", total_time_},
             {"authors_gpu_util", total_time_ > 0 ? gpu_active_ms() / gpus.count() / total_time_ : 0.0},
             {"max_jobs_per_gpu", static_cast<double>(max_gpu_sharing())},
             {"max_flows_per_nic", static_cast<double>(step_.net().max_flows())}};
  return r;
}

}  // namespace rm
