#include "policy/composed_scheduler.h"

#include <algorithm>

#include "policy/allocation/allocations.h"

namespace rm {
namespace {
const JobState* pass_job(const std::pair<double, const JobState*>& p) { return p.second; }
template <class W>
const JobState* pass_job(const W& w) { return w.job; }
}  // namespace

ComposedScheduler::ComposedScheduler(std::string name, std::unique_ptr<QueueOrder> order,
                                     std::unique_ptr<Placement> placement, ComposedOptions opt,
                                     std::unique_ptr<Allocation> allocation)
    : name_(std::move(name)),
      order_(std::move(order)),
      placement_(std::move(placement)),
      opt_(opt),
      allocation_(std::move(allocation)) {}

Decisions ComposedScheduler::schedule(const SchedContext& ctx) {
  Decisions d;
  started_.clear();
  if (!bound_) {
    order_->bind(totals_of(ctx.cluster.spec()));
    bound_ = true;
  }
  // Nothing can change without free GPUs or preemption.
  if (!opt_.preemptive && ctx.cluster.free_gpus() == 0) return d;
  // Without a waiting job there is nothing to start and nobody to preempt for: skip the sort.
  const bool anyone_waiting =
      ctx.queued >= 0 ? ctx.queued > 0
                      : std::any_of(ctx.active.begin(), ctx.active.end(), [](const JobState* j) { return !j->running(); });
  const bool indexed = ctx.arrivals_appended && !opt_.preemptive && order_->key_fixed_while_waiting();
  if (anyone_waiting && indexed) {
    sync_index(ctx);
    schedule_nonpreemptive(ctx, d, index_);
    for (const JobState* j : started_) index_.erase({order_->key(*j, ctx.now), j->spec->submit, j->id(), j});
  } else if (anyone_waiting) {
    sorted_.clear();
    for (const JobState* j : ctx.active)
      if (opt_.preemptive || !j->running()) sorted_.emplace_back(order_->key(*j, ctx.now), j);
    std::stable_sort(sorted_.begin(), sorted_.end(), [](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first < b.first;
      if (a.second->spec->submit != b.second->spec->submit) return a.second->spec->submit < b.second->spec->submit;
      return a.second->id() < b.second->id();
    });
    if (opt_.preemptive) schedule_preemptive(ctx, d);
    else schedule_nonpreemptive(ctx, d, sorted_);
  }
  // Wake up when a running job's key changes (2D-LAS thresholds).
  auto wake = [&](const JobState& j) { d.wake_at = std::min(d.wake_at, order_->next_change(j, ctx.now)); };
  if (!order_->has_next_change()) return d;  // O(1) instead of a walk over every running job
  std::vector<JobId> stopped = d.preempt;
  std::sort(stopped.begin(), stopped.end());
  for (const JobState* j : ctx.active)
    if (j->running() && !std::binary_search(stopped.begin(), stopped.end(), j->id())) wake(*j);
  for (const JobState* j : started_) wake(*j);
  return d;
}

// Jobs arrive in id order and are appended to the active list, so those not yet in the index are at its end.
void ComposedScheduler::sync_index(const SchedContext& ctx) {
  auto it = ctx.active.end();
  while (it != ctx.active.begin() && (*std::prev(it))->id() >= next_id_) --it;
  for (; it != ctx.active.end(); ++it) {
    const JobState* j = *it;
    if (!j->running()) index_.insert({order_->key(*j, ctx.now), j->spec->submit, j->id(), j});
    next_id_ = j->id() + 1;
  }
}

template <class List>
void ComposedScheduler::schedule_nonpreemptive(const SchedContext& ctx, Decisions& d, const List& waiting) {
  FreeMap free(ctx.cluster);
  if (allocation_) {
    std::vector<const JobState*> running;
    for (const JobState* j : ctx.active)
      if (j->running()) running.push_back(j);
    free.add_peers(running);
  }
  for (const auto& w : waiting) {
    const JobState* j = pass_job(w);
    if (free.total_free() == 0) break;
    auto gpus = placement_->place(*j, free);
    if (gpus) {
      free.take(*gpus);
      StartDecision sd{j->id(), std::move(*gpus), {}};
      if (allocation_ && !allocation_->allocate(*j, sd, free)) {  // no CPUs/DRAM for it: it waits
        free.give(sd.gpus);
        if (!opt_.backfill) break;
        continue;
      }
      d.start.push_back(std::move(sd));
      started_.push_back(j);
    } else if (!opt_.backfill) {
      break;
    }
  }
  if (allocation_) finish_allocation(*allocation_, d, started_, free);
}

void ComposedScheduler::schedule_preemptive(const SchedContext& ctx, Decisions& d) {
  // 1. Choose who should run by GPU count, in priority order.
  int budget = ctx.cluster.total_gpus();
  std::vector<char> chosen(sorted_.size(), 0);
  for (std::size_t i = 0; i < sorted_.size(); ++i) {
    const int n = sorted_[i].second->spec->num_gpus;
    if (n <= budget) {
      chosen[i] = 1;
      budget -= n;
    } else if (!opt_.backfill) {
      break;
    }
  }
  // 2. Free the GPUs of running jobs that were not chosen, then place the chosen waiting jobs.
  FreeMap free(ctx.cluster);
  std::vector<const JobState*> victims;
  for (std::size_t i = 0; i < sorted_.size(); ++i)
    if (!chosen[i] && sorted_[i].second->running()) {
      victims.push_back(sorted_[i].second);
      free.give(sorted_[i].second->gpus);
      free.give_shares(sorted_[i].second->shares);
    }
  for (std::size_t i = 0; i < sorted_.size(); ++i) {
    const JobState* j = sorted_[i].second;
    if (!chosen[i] || j->running()) continue;
    auto gpus = placement_->place(*j, free);
    if (gpus) {
      free.take(*gpus);
      d.start.push_back({j->id(), std::move(*gpus)});
      started_.push_back(j);
    }
  }
  // 3. A victim whose GPUs nobody took keeps running: no preemption without a beneficiary.
  for (const JobState* v : victims) {
    bool untouched = true;
    for (const auto& g : v->gpus) untouched = untouched && free.is_free(g);
    if (untouched) {
      free.take(v->gpus);
      free.take_shares(v->shares);
    } else {
      d.preempt.push_back(v->id());
    }
  }
  // 4. CPUs and DRAM for the jobs that start, in priority order, from what the kept jobs leave. One that
  // gets none does not start this pass (its victims stay preempted: documented in docs/policies.md).
  if (allocation_) {
    std::vector<JobId> stopped = d.preempt;
    std::sort(stopped.begin(), stopped.end());
    std::vector<const JobState*> peers;  // the running jobs that keep running, in priority order
    for (const auto& [key, j] : sorted_)
      if (j->running() && !std::binary_search(stopped.begin(), stopped.end(), j->id())) peers.push_back(j);
    free.add_peers(peers);
    allocate_starts(*allocation_, d, started_, free);
  }
}

}  // namespace rm
