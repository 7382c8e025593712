#include "policy/composed_scheduler.h"

#include <algorithm>
#include <climits>
#include <queue>

#include "policy/allocation/allocations.h"
#include "policy/placement/placements.h"

namespace rm {

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
  if (ctx.arrivals_appended) order_->observe(ctx.finished);
  placement_->begin_pass(ctx.now);
  if (allocation_) allocation_->begin_pass(ctx.now);
  // Waiting jobs can be indexed across passes when their keys stand still while they wait; running ones too,
  // for a preemptive pass, when their keys move in a known way (docs/design.md, "Scale").
  const bool keyed = ctx.arrivals_appended && !opt_.full_sort && order_->key_fixed_while_waiting();
  const bool indexed_preemptive =
      opt_.preemptive && keyed && !allocation_ && order_->running_key() != QueueOrder::RunningKey::Moves;
  if (indexed_preemptive || (keyed && !opt_.preemptive))
    arrivals_.insert(arrivals_.end(), ctx.arrived.begin(), ctx.arrived.end());
  if (indexed_preemptive) {
    schedule_preemptive_indexed(ctx, d);
    return d;
  }
  // Nothing can change without free GPUs or preemption.
  if (!opt_.preemptive && ctx.cluster.free_gpus() == 0) return d;
  // Without a waiting job there is nothing to start and nobody to preempt for: skip the sort.
  const bool anyone_waiting =
      ctx.queued >= 0 ? ctx.queued > 0
                      : std::any_of(ctx.active.begin(), ctx.active.end(), [](const JobState* j) { return !j->running(); });
  if (anyone_waiting && keyed && !opt_.preemptive) {
    sync_waiting(ctx);
    WaitingIndex::Walk walk(waiting_);
    schedule_nonpreemptive(ctx, d, [&](int budget) {
      const PassKey* k = walk.next(budget);
      return k ? k->job : nullptr;
    });
    for (const JobState* j : started_) waiting_.erase(*j, order_->key(*j, ctx.now));
  } else if (anyone_waiting) {
    sorted_.clear();
    for (const JobState* j : ctx.active)
      if (opt_.preemptive || !j->running()) sorted_.push_back(pass_key(*j, order_->key(*j, ctx.now)));
    std::sort(sorted_.begin(), sorted_.end());  // a total order (ids differ): as the stable sort was
    if (opt_.preemptive) {
      schedule_preemptive(ctx, d);
    } else {
      std::size_t i = 0;
      schedule_nonpreemptive(ctx, d, [&](int) { return i < sorted_.size() ? sorted_[i++].job : nullptr; });
    }
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

// The engine hands over each pass's arrivals; a pass that returns early leaves them for the next one.
void ComposedScheduler::sync_waiting(const SchedContext& ctx) {
  for (const JobState* j : arrivals_) waiting_.insert(*j, order_->key(*j, ctx.now));
  arrivals_.clear();
}

template <class Source>
void ComposedScheduler::schedule_nonpreemptive(const SchedContext& ctx, Decisions& d, Source&& next) {
  FreeMap free(ctx.cluster);
  if (allocation_) {
    std::vector<const JobState*> running;
    for (const JobState* j : ctx.active)
      if (j->running()) running.push_back(j);
    free.add_peers(running);
  }
  // With backfill, a job asking for more GPUs than are free cannot be placed: the source may pass over it (unless
  // it is to get a reservation).
  const bool keep = opt_.reserve != Reservation::None && ctx.arrivals_appended;
  if (keep)  // those started by earlier passes and still running (non-preemptive: only finishes stop them)
    std::erase_if(bf_running_, [](const JobState* j) { return !j->running(); });
  Backfill bf(opt_.reserve, ctx, free.total_free(), keep ? &bf_running_ : nullptr);
  std::vector<GpuRef> held;  // EASY: the free GPUs of the servers the head's shape waits for
  bool head_held = false;
  while (const JobState* j = next(opt_.backfill && !bf.wants_every_job() ? free.total_free() + static_cast<int>(held.size())
                                                                          : INT_MAX)) {
    if (free.total_free() + static_cast<int>(held.size()) == 0 || bf.exhausted()) break;
    const int n = j->spec->num_gpus;
    const double dur = bf.on() ? j->remaining_time_s(ctx.now) : 0;
    // Not now: without backfill the pass ends; with reservations the job gets one (or the pass ends past the depth).
    const auto wait = [&] {
      if (!opt_.backfill) return true;
      if (!bf.on()) return false;
      const bool first = opt_.reserve == Reservation::Easy && !head_held;
      const bool stop = !bf.blocked(n, dur);
      if (first) {  // the head's reservation: hold its shape's servers too
        head_held = true;
        if (const double t = hold_head_shape(ctx, bf, d, *j, free, held); t >= 0) bf.delay_shadow(t, n);
      }
      return stop;
    };
    if (bf.on() && (n > free.total_free() + static_cast<int>(held.size()) || !bf.admits(n, dur))) {
      if (wait()) break;
      continue;
    }
    // A job that ends by the head's shadow time may use the held GPUs; the rest stay held for the head.
    const bool may_use_held = !held.empty() && bf.now_s() + dur <= bf.shadow_s() + 1e-9;
    if (may_use_held) free.give(held);
    auto gpus = place_on_one_type(*placement_, *j, free);
    if (may_use_held) {
      std::vector<GpuRef> still;
      for (const GpuRef& g : held)
        if (!gpus || std::find(gpus->begin(), gpus->end(), g) == gpus->end()) still.push_back(g);
      held = std::move(still);
      free.take(held);
    }
    if (gpus) {
      free.take(*gpus);
      StartDecision sd{j->id(), std::move(*gpus), {}};
      if (allocation_ && !allocation_->allocate(*j, sd, free)) {  // no CPUs/DRAM for it: it waits
        free.give(sd.gpus);
        if (wait()) break;
        continue;
      }
      d.start.push_back(std::move(sd));
      started_.push_back(j);
      bf.started(n, dur);
    } else {
      d.wake_at = std::min(d.wake_at, placement_->next_try(*j, ctx.now));  // consolidated:relax=S
      if (wait()) break;
    }
  }
  free.give(held);
  if (keep) bf_running_.insert(bf_running_.end(), started_.begin(), started_.end());
  if (allocation_) finish_allocation(*allocation_, d, started_, free);
}

double ComposedScheduler::hold_head_shape(const SchedContext& ctx, const Backfill& bf, const Decisions& d,
                                          const JobState& j, FreeMap& free, std::vector<GpuRef>& held) {
  const int k = placement_->shape_servers(j, free);
  if (k <= 0) return -1;
  const ClusterSpec& c = free.spec();
  const GpuTypes& types = free.types();
  const int pinned = j.spec->gpu_type.empty() ? -1 : types.index(j.spec->gpu_type);
  const double now = to_seconds(ctx.now);
  // Per server: the running jobs' GPUs there and their expected ends, read as the reservation reads them.
  std::vector<std::vector<std::pair<double, int>>> ends(c.servers.size());
  bf.for_each_running([&](const JobState& r) {
    const double left = Backfill::expected_left_s(r, ctx.now);
    for (const GpuRef& g : r.gpus) {
      auto& e = ends[static_cast<std::size_t>(g.server)];
      if (e.empty() || e.back().first != now + left) e.push_back({now + left, 0});
      ++e.back().second;
    }
  });
  for (std::size_t i = 0; i < d.start.size() && i < started_.size(); ++i)  // this pass's starts, as the reservation
    for (const GpuRef& g : d.start[i].gpus)                                // counts them: their expected run times
      ends[static_cast<std::size_t>(g.server)].push_back({now + started_[i]->remaining_time_s(ctx.now), 1});
  const int n = j.spec->num_gpus;
  std::vector<int> chosen;
  double shadow = -1;
  const auto freed_by = [&](int s, double t) {  // GPUs of server s the running jobs free by t
    int f = 0;
    for (const auto& [end, g] : ends[static_cast<std::size_t>(s)])
      if (end <= t + 1e-9) f += g;
    return f;
  };
  if (k == 1) {  // the server where n GPUs are free first
    for (int s = 0; s < static_cast<int>(c.servers.size()); ++s) {
      if (c.servers[s].gpus < n || !free.fits_memory(*j.spec, s)) continue;
      if (pinned >= 0 && types.of_server[static_cast<std::size_t>(s)] != pinned) continue;
      auto e = ends[static_cast<std::size_t>(s)];
      std::sort(e.begin(), e.end());
      int f = free.free_on(s);
      double t = f >= n ? now : -1;
      for (std::size_t i = 0; t < 0 && i < e.size(); ++i)
        if ((f += e[i].second) >= n) t = e[i].first;
      if (t >= 0 && (shadow < 0 || t < shadow)) shadow = t, chosen = {s};
    }
  } else {  // the k servers that are whole first
    std::vector<std::pair<double, int>> whole;
    for (int s = 0; s < static_cast<int>(c.servers.size()); ++s) {
      if (!free.fits_memory(*j.spec, s) || (pinned >= 0 && types.of_server[static_cast<std::size_t>(s)] != pinned))
        continue;
      double t = now;
      for (const auto& [end, g] : ends[static_cast<std::size_t>(s)]) t = std::max(t, end);
      whole.push_back({t, s});
    }
    std::sort(whole.begin(), whole.end());
    int got = 0;
    for (const auto& [t, s] : whole) {
      if (got >= n) break;
      chosen.push_back(s);
      got += c.servers[s].gpus;
      shadow = t;
    }
    if (got < n) return -1;
  }
  // Hold only what the head needs of its servers' free GPUs: at the shadow they have free now + freed by then, and
  // the rest (their slack) may go to later jobs.
  int slack = -n;
  for (int s : chosen) slack += free.free_on(s) + freed_by(s, shadow);
  for (int s : chosen) {
    const int f = free.free_on(s), spare = std::min(f, std::max(0, slack));
    slack -= spare;
    if (f - spare <= 0) continue;
    const auto all = free.take_from(s, f);
    const std::vector<GpuRef> g(all.begin() + spare, all.end());  // the spare ones stay free (lowest indexes)
    free.take(g);
    held.insert(held.end(), g.begin(), g.end());
  }
  return shadow;
}

void ComposedScheduler::schedule_preemptive(const SchedContext& ctx, Decisions& d) {
  // 1. Choose who should run by GPU count, in priority order.
  int budget = ctx.cluster.total_gpus();
  std::vector<char> chosen(sorted_.size(), 0);
  for (std::size_t i = 0; i < sorted_.size(); ++i) {
    const int n = sorted_[i].job->width();
    if (n <= budget) {
      chosen[i] = 1;
      budget -= n;
    } else if (!opt_.backfill) {
      break;
    }
  }
  std::vector<const JobState*> victims, starters;
  for (std::size_t i = 0; i < sorted_.size(); ++i) {
    const JobState* j = sorted_[i].job;
    if (!chosen[i] && j->running()) victims.push_back(j);
    if (chosen[i] && !j->running()) starters.push_back(j);
  }
  preempt_and_start(ctx, d, victims, starters);
}

// Steps 2 and 3 of a preemptive pass, and 4 where CPUs and DRAM are allocated (then `sorted_` holds every
// active job in pass order).
void ComposedScheduler::preempt_and_start(const SchedContext& ctx, Decisions& d,
                                          const std::vector<const JobState*>& victims,
                                          const std::vector<const JobState*>& starters) {
  // 2. Free the GPUs of running jobs that were not chosen, then place the chosen waiting jobs.
  FreeMap free(ctx.cluster);
  for (const JobState* v : victims) {
    free.give(v->gpus);
    free.give_shares(v->shares);
  }
  for (const JobState* j : starters) {
    auto gpus = place_on_one_type(*placement_, *j, free);
    if (gpus) {
      free.take(*gpus);
      d.start.push_back({j->id(), std::move(*gpus), {}});
      started_.push_back(j);
    } else {
      d.wake_at = std::min(d.wake_at, placement_->next_try(*j, ctx.now));
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
    for (const PassKey& k : sorted_)
      if (const JobState* j = k.job; j->running() && !std::binary_search(stopped.begin(), stopped.end(), j->id())) peers.push_back(j);
    free.add_peers(peers);
    allocate_starts(*allocation_, d, started_, free);
  }
}

// The preemptive pass of schedule_preemptive, decided from the indexes: the same decisions, at the cost of
// the running jobs after the boundary (step 1 below; the others are chosen whatever happens) and of the
// waiting jobs the walk reaches.
// The indexes brought to `now`: finished jobs out, preempted ones back, arrivals in, 2D-LAS threshold crossings.
void ComposedScheduler::refresh_indexes(const SchedContext& ctx) {
  const Time now = ctx.now;
  const auto change_of = [&](const JobState& j) { return order_->has_next_change() ? order_->next_change(j, now) : kNever; };
  for (const JobState* j : ctx.finished)
    if (running_.contains(*j)) running_.erase(*j);
  for (const JobState* j : requeue_) waiting_.insert(*j, order_->key(*j, now));
  requeue_.clear();
  sync_waiting(ctx);
  due_.clear();
  running_.take_due(now, due_);  // 2D-LAS: jobs that crossed a threshold
  for (const JobState* j : due_) running_.rekey(*j, order_->key(*j, now), change_of(*j));

}

// Step 1 of the indexed pass when the free GPUs do not cover every waiting job: who should run, by GPU count
// in pass order, keying only the running jobs after the boundary.
void ComposedScheduler::choose_indexed(const SchedContext& ctx, std::vector<const JobState*>& victims,
                                       std::vector<const JobState*>& starters) {
  const Time now = ctx.now;
  auto change_of = [&](const JobState& j) { return order_->has_next_change() ? order_->next_change(j, now) : kNever; };
  // 1. Who should run, by GPU count in pass order. A running job before the first waiting job is chosen, and
  // so is every job before a boundary b when the running jobs after b hold at least the GPUs the waiting
  // jobs before b ask for beyond the free ones (each finds its GPUs left). So only the tail after b needs
  // its order: it is found from the top of the snapshot order, each job keyed now (a snapshot is its key
  // for Steps, an upper bound of it for Falls), until the next snapshot b satisfies that.
  const PassKey first = waiting_.first();
  const long free_now = ctx.cluster.free_gpus();
  std::priority_queue<PassKey, std::vector<PassKey>, std::less<>> above;  // keyed, not yet in the tail
  std::vector<PassKey> tail, refresh;
  long tail_gpus = 0;
  PassKey boundary = first;
  running_.from_top(first, [&](const PassKey& snap) {
    const PassKey k = pass_key(*snap.job, order_->key(*snap.job, now));
    if (k.key != snap.key) refresh.push_back(k);
    above.push(k);
    // Everyone not yet keyed comes before `snap`; so does the tail's complement.
    while (!above.empty() && !(above.top() < snap)) {
      tail.push_back(above.top());
      tail_gpus += above.top().job->width();
      above.pop();
    }
    if (tail_gpus >= waiting_.gpus_below(snap) - free_now) {
      boundary = snap;
      return false;
    }
    return true;
  });
  if (boundary.id == first.id)  // the walk reached the first waiting job: the tail is whoever comes after it
    for (; !above.empty() && first < above.top(); above.pop()) {
      tail.push_back(above.top());
      tail_gpus += above.top().job->width();
    }
  for (const PassKey& k : refresh) running_.rekey(*k.job, k.key, change_of(*k.job));
  std::sort(tail.begin(), tail.end());
  const int used = ctx.cluster.total_gpus() - ctx.cluster.free_gpus();
  long budget = ctx.cluster.total_gpus() - (used - tail_gpus);
  WaitingIndex::Walk walk(waiting_);
  const PassKey* w = walk.next();
  for (; w && *w < boundary; w = walk.next()) {  // chosen, whatever comes after
    starters.push_back(w->job);
    budget -= w->job->spec->num_gpus;
  }
  auto next_waiting = [&] { return walk.next(opt_.backfill ? static_cast<int>(budget) : INT_MAX); };
  std::size_t ci = 0;
  while (ci < tail.size() || w) {
    const bool running_next = ci < tail.size() && (!w || tail[ci] < *w);
    const JobState* j = running_next ? tail[ci++].job : w->job;
    const int n = j->width();
    if (n <= budget) {
      budget -= n;
      if (!running_next) starters.push_back(j);
    } else {
      if (running_next) victims.push_back(j);
      if (!opt_.backfill) break;
    }
    if (!running_next) w = next_waiting();
  }
  for (; ci < tail.size(); ++ci) victims.push_back(tail[ci].job);
}

void ComposedScheduler::schedule_preemptive_indexed(const SchedContext& ctx, Decisions& d) {
  const Time now = ctx.now;
  auto change_of = [&](const JobState& j) { return order_->has_next_change() ? order_->next_change(j, now) : kNever; };
  refresh_indexes(ctx);
  std::vector<const JobState*> victims, starters;
  if (!waiting_.empty() && waiting_.gpus() <= ctx.cluster.free_gpus()) {
    // The free GPUs are enough for every waiting job, so each is chosen, and so is every running job (the
    // budget left at its turn is at least its GPUs): nobody is preempted, whatever the keys.
    WaitingIndex::Walk walk(waiting_);
    while (const PassKey* w = walk.next()) starters.push_back(w->job);
  } else if (!waiting_.empty()) {
    choose_indexed(ctx, victims, starters);
  }
  if (!starters.empty() || !victims.empty()) {
    // 2, 3. Place the chosen waiting jobs where the victims' GPUs allow.
    preempt_and_start(ctx, d, victims, starters);
    for (const JobState* j : started_) {
      const double key = order_->key(*j, now);
      waiting_.erase(*j, key);
      running_.insert(*j, key, change_of(*j));
    }
    for (JobId id : d.preempt)
      for (const JobState* v : victims)
        if (v->id() == id) {
          running_.erase(*v);
          requeue_.push_back(v);
        }
  }
  if (order_->has_next_change()) d.wake_at = std::min(d.wake_at, running_.next_change());
}

}  // namespace rm
