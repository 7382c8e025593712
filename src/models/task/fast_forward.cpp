// Steady-state fast-forward of the task model's event-driven mode (issue 16, goal 3).
//
// Between placements and releases nothing but iterations happens, and a group of jobs that share GPUs
// or NICs settles into a cycle: the same tasks and flows, in the same order, at the same offsets, every
// period. The engine simulates the cycle once and jumps over whole periods, shifting times and crediting
// progress in closed form. docs/design.md ("Task model fast-forward") has the argument in full.
//
//  1. Groups. Placed jobs sharing a GPU, and multi-server jobs sharing a server (its NIC), are linked;
//     a group owns the GPUs of its jobs that no other group owns. A job that has not run for a while (a
//     starved job whose workers wait behind other jobs' tasks; one that never ran, at once) is detached:
//     it links nothing, so the jobs around it fall into groups that cycle independently (two 8-GPU jobs
//     with different iteration times on the two servers a starved 16-GPU job spans cycle separately;
//     together they would only recur at the least common multiple of their periods). A job's worker on
//     a GPU another group owns is a foreign worker; a job on a group's GPUs that is not in it, a foreign job.
//  2. Detection. At every sync of a group's anchor (its first job to sync; the next job to sync if the
//     anchor starves) the engine records the group's state relative to now: its jobs' worker phases and
//     flags, its GPUs' occupants and the foreign workers' phases there, flow order per NIC, pending task
//     and flow ends and flows' last re-rates minus now, flows' speeds and progress. Time is whole
//     nanoseconds, so a recurring state recurs exactly: when a record equals an earlier one (of up to
//     4,096, found by their hash), the period P is the time between the two and each job
//     advanced m_j iterations. Every 32 records without a match the group detaches its jobs that did not
//     run over them and splits, or, with none to detach, records every 2nd .. 16th sync.
//  3. Guarantee. Left alone, the group cycles for k_free periods: no job of it finishes (its last
//     iterations are simulated task by task) and every decision of the recorded period is taken the same
//     way: the priority keys of jobs that meet on a GPU (compute key) or a NIC (communication key) are
//     linear in the periods, so the ranges each key spans in one period keep a strict order at the first
//     and the last period, hence in all; a foreign job with a worker waiting here cannot sync, so its key
//     falls by at most the rest of its current iteration elsewhere. It stays alone until its guard: the
//     least of now + k_free P, the guards of the groups its foreign workers wait in, and, for a foreign
//     job whose workers here all wait for its sync (or a split job on its NICs), the time that job could
//     sync (the latest guard among the groups its unfinished workers wait in), unless it is harmless: each
//     GPU of the group it waits on never idled over the period and runs only jobs of lower keys than it
//     can reach (harmless()).
//  4. Horizon. It jumps K periods with now + K P <= guard and < horizon: the next arrival and the earliest
//     any other job could finish (its remaining iterations alone, after its group's guard when known).
//     No placement can touch it before then, and no job count changes, so the series rows read true GPU
//     states. With jobs waiting the placement plugin must be pure (a refused job stays refused until
//     memory is released); admission must be stable (a refused all-reduce stays refused until flows
//     change). Compat mode never jumps.
//  5. Jump. Pending ends move by K P; iterations, remaining service and time, GPU workloads, busy time
//     and the event count advance by K times their per-period amounts. The group is frozen until its new
//     time: the global admission and re-rating passes skip it (re-asking a stable rule would refuse
//     again; re-rating an unchanged speed changes nothing); its own events come next at their shifted
//     times. Its records shift too, so after the jump it is recognised one period later.
//  6. Changes. A job that runs a task on a GPU its group does not own (a detached job: anywhere) merges
//     the live groups it touches with its own; a frozen one stays apart (its guard covered this). A
//     placement or release (never while a group is frozen: jumps end by the horizon) re-links the group
//     that lost a job and merges or resets the groups a new job touches; guards resting on other groups
//     are dropped.
#include "models/task/fast_forward.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.h"
#include "models/task/task_time.h"

namespace rm {
namespace {

constexpr TaskJob::Phase FF = TaskJob::FF, BP = TaskJob::BP, WAIT = TaskJob::WAIT;

constexpr std::int64_t kMany = std::numeric_limits<std::int64_t>::max() / 4;
constexpr int kSplitEvery = 32;            // records without a match after which a group may split
// Syncs of a group's other jobs without one of its anchor after which the anchor moves to the next
// job to sync (a starved anchor would never let the group record).
constexpr int kAnchorPatience = 1024;

// Periods k >= 1 for which two keys keep their order. A key is linear in the periods: it is x now and
// falls by dx per period (keys only fall), and it may sit up to rx lower at any time (a detached job's
// key, which falls by at most rx while the job cannot sync). Over the k-th period from now it spans
// [x - (k+1) dx - rx, x - k dx]; over the recorded period, [x - rx, x + dx].
std::int64_t order_periods(double a, double da, double ra, double b, double db, double rb) {
  if (da == 0 && db == 0 && ra == 0 && rb == 0) return kMany;  // constant keys: ties break the same way
  if (!(a + da < b - rb)) {
    if (!(b + db < a - ra)) return 0;  // the ranges overlap: the recorded order depends on the phase
    std::swap(a, b);
    std::swap(da, db);
    std::swap(ra, rb);
  }
  b -= rb;                     // a below b: a's top must stay below b's bottom
  if (da >= db) return kMany;  // the lower one falls at least as fast
  // The last period skipped, K - 1 from now: a - (K-1) da < b - K db.
  auto ok = [&](std::int64_t k) {
    return a - static_cast<double>(k - 1) * da < b - static_cast<double>(k) * db;
  };
  const double x = (b - a - da) / (db - da);
  if (!(x < 1e15)) return kMany;
  auto k = static_cast<std::int64_t>(std::floor(x));
  while (k > 0 && !ok(k)) --k;
  return std::max<std::int64_t>(0, k - 1);  // one period of margin for rounding
}

double key_drop(task::Key key, const task::TJob& v, std::int64_t m) {
  const double md = static_cast<double>(m);
  switch (key) {
    case task::Key::SRSF: return md * static_cast<double>(v.n) * (v.fw + v.bw);
    case task::Key::SRTF: return md * (v.fw + v.bw);
    default: return 0;
  }
}

// A lower bound on how long a placed job still runs (ns): its iterations after the current one, alone.
std::int64_t rest_bound(std::int64_t time_ns, std::int64_t iter_ns) {
  return std::max<std::int64_t>(0, time_ns - iter_ns);
}

// t + k p, saturating at `never`.
std::int64_t after_periods(std::int64_t t, std::int64_t k, std::int64_t p, std::int64_t never) {
  return k >= (never - t) / p ? never : t + k * p;
}

}  // namespace

FastForward::FastForward(std::vector<TaskJob>& jobs, GpuTasks& gpu, const FlowNetwork& net,
                         const task::TaskPolicy& policy)
    : jobs_(jobs), gpu_(gpu), net_(net), policy_(policy), groups_(jobs, gpu) {}

// The group's anchor is the first of its jobs to sync; a starved anchor passes to the next job to sync.
void FastForward::synced(int id) {
  const int ci = groups_.member(id).group;
  if (ci < 0) return;
  FfGroup& c = groups_[ci];
  if (c.anchor < 0) c.anchor = id;
  if (c.anchor == id) {
    c.other_syncs = 0;
  } else if (++c.other_syncs > kAnchorPatience) {  // records start afresh at this job
    c.forget();
    c.anchor = id;
    c.other_syncs = 0;
    c.stride = 1;
    c.skipped = 0;
  }
  if (c.anchor == id && !c.synced) {
    c.synced = true;
    synced_groups_.push_back(ci);
  }
}

void FastForward::released(int id) {
  FfMember& m = groups_.member(id);
  if (m.group >= 0) lost_.push_back(m.group);
  else
    for (int c : groups_.touching(jobs_[id])) lost_.push_back(c);
  m.group = -1;
  m.detached = m.woke = false;
}

// The group's state at t, relative to t (step 2 above).
void FastForward::record(const FfGroup& c, Ns t, CycleRecord& s) const {
  s.t = t;
  for (int id : c.jobs) {
    const TaskJob& j = jobs_[id];
    s.iter.push_back(j.iter);
    s.disc.push_back(j.waiting);
    s.disc.push_back(j.in_comm + 2 * j.ready);
    for (TaskJob::Phase p : j.phase) s.disc.push_back(p);
    if (j.in_comm) {
      s.rel.push_back(j.flow.end_ns - t);
      s.rel.push_back(j.flow.last_ns - t);
      s.flow.push_back(j.flow.speed);
      s.flow.push_back(j.flow.transferred);
    }
  }
  const int self = group_of(c);
  for (int g : c.gpus) {
    const GpuTasks::Gpu& r = gpu_.at(g);
    s.disc.push_back(r.busy ? r.job : -1);
    if (r.busy) {
      s.disc.push_back(r.worker);
      s.rel.push_back(r.end - t);
    }
    for (const auto& [id, w] : r.jobs)  // the detached jobs' workers here
      if (groups_.member(id).group != self) s.disc.push_back(jobs_[id].phase[w]);
  }
  for (int srv : c.servers) {  // flow start order on each NIC (AdaDUAL reads the first)
    const std::vector<int>& on = net_.flows_on(srv);
    s.disc.push_back(static_cast<std::int32_t>(on.size()));
    s.disc.insert(s.disc.end(), on.begin(), on.end());
  }
  s.seal();
}

FastForward::Credit FastForward::after_step(Ns t, const Around& around) {
  Credit credit;
  if (!placed_.empty() || !lost_.empty()) {
    for (const FfGroup& c : groups_.all())
      if (!c.dead && c.frozen_until > t)
        throw InvariantError("task engine: a placement or release at t=" + std::to_string(t) +
                             " ns reached a group fast-forwarded to " + std::to_string(c.frozen_until) + " ns");
    groups_.update(lost_, placed_, t);
    lost_.clear();
    placed_.clear();
  }
  for (int id : woken_) groups_.merge_around(id, t);
  woken_.clear();
  for (std::size_t n = 0; n < synced_groups_.size(); ++n) {
    const int ci = synced_groups_[n];
    groups_[ci].synced = false;
    if (groups_[ci].dead) continue;
    FfGroup& c = groups_[ci];
    if (++c.skipped < c.stride) continue;
    c.skipped = 0;
    CycleRecord now;
    record(c, t, now);
    const std::ptrdiff_t found = c.records.find(now);
    const std::size_t matched = found < 0 ? c.records.size() : static_cast<std::size_t>(found);
    if (matched < c.records.size()) {
      for (std::size_t i = 0; i < matched; ++i) c.records.drop_oldest();  // before the cycle
      c.unmatched = 0;
      c.records.add(std::move(now));
      try_jump(c, c.records.back(), around, credit);
      continue;
    }
    c.guard = -1;
    c.records.add(std::move(now));
    if (++c.unmatched % kSplitEvery == 0) groups_.split(ci, c.records[c.records.size() - kSplitEvery].t);
  }
  synced_groups_.clear();
  groups_.compact();
  return credit;
}

// The position of group job `id` in c.jobs (placement order).
std::size_t FastForward::index_in(const FfGroup& c, int id) const {
  const auto it = std::lower_bound(c.jobs.begin(), c.jobs.end(), jobs_[id].seq,
                                   [&](int x, std::int64_t seq) { return jobs_[x].seq < seq; });
  return static_cast<std::size_t>(it - c.jobs.begin());
}

// How far a detached job's compute key may fall while it cannot sync because a worker of it waits on
// c's GPUs: the rest of its current iteration on its other GPUs.
double FastForward::key_slack(const TaskJob& p, const FfGroup& c) const {
  if (policy_.compute != task::Key::SRSF) return 0;  // SRTF falls at syncs; the others are constant
  double r = 0;
  const int self = group_of(c);
  for (std::size_t w = 0; w < p.v.gpus.size(); ++w)
    if (groups_.gpu_group(p.v.gpus[w]) != self)
      r += p.phase[w] == FF ? p.v.fw + p.v.bw : p.phase[w] == BP ? p.v.bw : 0;
  return r;
}

std::int64_t FastForward::key_periods(const FfGroup& c, const std::vector<std::int64_t>& m) const {
  const int self = group_of(c);
  std::int64_t k = kMany;
  struct K { double x, dx, rx; };
  std::vector<K> keys;
  auto pairs = [&]() {
    for (std::size_t a = 0; a < keys.size(); ++a)
      for (std::size_t b = a + 1; b < keys.size(); ++b)
        k = std::min(k, order_periods(keys[a].x, keys[a].dx, keys[a].rx, keys[b].x, keys[b].dx, keys[b].rx));
  };
  auto of = [&](int id, task::Key key) {
    return K{jobs_[id].v.key(key), key_drop(key, jobs_[id].v, m[index_in(c, id)]), 0};
  };
  for (int g : c.gpus) {  // dispatch: the compute key of the jobs on a GPU
    keys.clear();
    for (const auto& [id, w] : gpu_.at(g).jobs) {
      const TaskJob& j = jobs_[id];
      if (groups_.member(id).group == self) keys.push_back(of(id, policy_.compute));
      else if (j.phase[w] != WAIT)  // a detached job's waiting worker: its key is all that can move
        keys.push_back(K{j.v.key(policy_.compute), 0, key_slack(j, c)});
    }
    pairs();
  }
  for (int s : c.servers) {  // admission order: the communication key of the split jobs on a NIC
    keys.clear();
    for (int id : c.jobs)
      if (jobs_[id].v.servers.size() > 1 &&
          std::find(jobs_[id].v.servers.begin(), jobs_[id].v.servers.end(), s) != jobs_[id].v.servers.end())
        keys.push_back(of(id, policy_.comm));
    pairs();
  }
  return k;
}

// No sync of detached job p (all of its workers done) before this: each worker still to run waits
// behind a group whose cycle is known to hold until its guard, or may run now.
FastForward::Ns FastForward::sync_bound(const TaskJob& p, Ns t) const {
  Ns b = t;
  for (std::size_t w = 0; w < p.v.gpus.size(); ++w) {
    if (p.phase[w] == WAIT) continue;
    const int y = groups_.gpu_group(p.v.gpus[w]);
    if (y >= 0 && groups_[y].guard > t) b = std::max(b, groups_[y].guard);
  }
  return b;
}

FastForward::Ns FastForward::horizon(const FfGroup& c, Ns t, const Around& around) const {
  Ns h = around.next_arrival;
  for (const FfGroup& d : groups_.all())
    if (!d.dead && &d != &c && d.guard > t) h = std::min(h, d.earliest_change);
  for (int id : around.running) {
    const TaskJob& j = jobs_[id];
    if (j.finished) continue;
    const FfMember& jm = groups_.member(id);
    if (jm.group >= 0 && (&groups_[jm.group] == &c || groups_[jm.group].guard > t)) continue;
    Ns b = t + rest_bound(j.time_ns, j.iter_ns());
    if (jm.detached) b = std::max(b, sync_bound(j, t));  // it must sync first
    h = std::min(h, b);
  }
  return h;
}

// A detached job p whose workers on c's GPUs all wait for its sync cannot disturb c's cycle where each of
// those GPUs never idled over the recorded period and the keys of c's jobs that ran there stay below
// p's lowest key: once p syncs, its workers there wait behind c's jobs for good, so it syncs at most
// once more, its key falling by at most the rest of its current iteration and one more on its other
// GPUs (SRSF), or one iteration (SRTF).
bool FastForward::harmless(const TaskJob& p, const FfGroup& c, const std::vector<std::int64_t>& m, Ns since) const {
  if (p.v.servers.size() > 1)  // its all-reduce would start on c's NICs
    for (int s : p.v.servers)
      if (std::binary_search(c.servers.begin(), c.servers.end(), s)) return false;
  const int self = group_of(c);
  const task::Key key = policy_.compute;
  const double iter = p.v.fw + p.v.bw;
  double slack = 0;
  if (key == task::Key::SRTF) slack = iter;
  if (key == task::Key::SRSF) {
    slack = key_slack(p, c);
    for (int g : p.v.gpus) slack += groups_.gpu_group(g) != self ? iter : 0;
  }
  const double low = p.v.key(key) - slack;
  for (int g : p.v.gpus) {
    if (groups_.gpu_group(g) != self) continue;
    if (!gpu_.at(g).busy || gpu_.at(g).busy_since >= since) return false;  // it idled in the period
    for (const auto& [q, w] : gpu_.at(g).jobs) {
      if (groups_.member(q).group != self) continue;
      const TaskJob& jq = jobs_[q];
      const std::size_t k = index_in(c, q);
      if (m[k] > 0 && !(jq.v.key(key) + key_drop(key, jq.v, m[k]) < low)) return false;
    }
  }
  return true;
}

// The guard lowered to the syncs of detached jobs that touch group c and could change its decisions.
FastForward::Ns FastForward::outside_guard(const FfGroup& c, const std::vector<std::int64_t>& m, Ns ref_t, Ns t,
                                           Ns guard, const Around& around) {
  const int self = group_of(c);
  seen_.clear();
  auto outside = [&](int id) {
    if (std::find(seen_.begin(), seen_.end(), id) != seen_.end()) return;
    seen_.push_back(id);
    const TaskJob& p = jobs_[id];
    for (std::size_t x = 0; x < p.v.gpus.size(); ++x)
      if (p.phase[x] != WAIT && groups_.gpu_group(p.v.gpus[x]) == self) return;
    if (harmless(p, c, m, ref_t)) return;
    guard = std::min(guard, sync_bound(p, t));
  };
  for (int g : c.gpus)
    for (const auto& [id, w] : gpu_.at(g).jobs)
      if (groups_.member(id).group != self) outside(id);
  if (!c.servers.empty())
    for (int id : around.running) {
      const TaskJob& p = jobs_[id];
      if (groups_.member(id).group == self || p.finished || p.v.servers.size() < 2) continue;
      for (int s : p.v.servers)
        if (std::binary_search(c.servers.begin(), c.servers.end(), s)) {
          outside(id);
          break;
        }
    }
  return guard;
}

void FastForward::set_earliest_change(FfGroup& c, const std::vector<std::int64_t>& m, Ns t, Ns period,
                                      Ns guard) const {
  // No job of the group finishes before its guard, nor sooner after it than its remaining iterations alone.
  if (guard >= kNever) {
    c.earliest_change = kNever;
  } else {
    const std::int64_t guard_periods = (guard - t + period - 1) / period;
    Ns change = kNever;
    for (std::size_t i = 0; i < c.jobs.size(); ++i) {
      const TaskJob& j = jobs_[c.jobs[i]];
      const Ns iter_ns = j.iter_ns();
      change = std::min(change, rest_bound(j.time_ns - guard_periods * m[i] * iter_ns, iter_ns));
    }
    c.earliest_change = guard + change;
  }
}

// Jumps group c k periods ahead (m[i] iterations of its job i per period): iterations, remaining service and
// time, GPU workloads and busy times, flows and heap entries shifted, in exact sums (default mode only).
void FastForward::apply_jump(FfGroup& c, const CycleRecord& ref, Ns t, Ns period, std::int64_t k,
                             const std::vector<std::int64_t>& m) {
  const Ns shift = k * period;
  for (std::size_t i = 0; i < c.jobs.size(); ++i) {
    TaskJob& j = jobs_[c.jobs[i]];
    if (j.in_comm) {
      j.flow.last_ns += shift;
      j.flow.end_ns += shift;
      j.flow.end = task_time::ms_from(j.flow.end_ns);
    }
    if (m[i] == 0) continue;
    const std::int64_t its = k * m[i], iter_ns = j.iter_ns();
    j.iter += its;
    task_time::add(false, j.v.rem_service, j.service_ns, 0, -its * j.v.n * iter_ns);
    task_time::add(false, j.v.rem_time, j.time_ns, 0, -its * iter_ns);
    for (int g : j.v.gpus) {
      gpu_.add_active(g, 0, its * iter_ns);
      gpu_.add_workload(g, 0, -its * (iter_ns + j.comm_ns));
    }
  }
  for (int g : c.gpus) {
    GpuTasks::Gpu& r = gpu_.at(g);
    if (r.busy) r.end += shift;
    if (r.busy_since >= ref.t) r.busy_since += shift;  // it idles in every period
  }
  // One heap entry per busy GPU, at its end: re-time them all, heapify in linear time.
  gpu_.retime_ends();
  c.frozen_until = t + shift;
  c.records.shift(k, period, m);
}

bool FastForward::try_jump(FfGroup& c, const CycleRecord& now, const Around& around, Credit& credit) {
  const CycleRecord& ref = c.records.front();
  const Ns t = now.t, period = t - ref.t;
  c.guard = -1;
  if (period <= 0) return false;
  auto after = [&](std::int64_t k) { return after_periods(t, k, period, kNever); };
  for (int g : c.gpus)  // a detached job that ran next to it: wait for the merge
    for (const auto& [id, w] : gpu_.at(g).jobs)
      if (groups_.member(id).woke) return false;
  if (!around.queue.empty() && !policy_.placement->pure(false)) return false;
  std::vector<std::int64_t> m(c.jobs.size());
  const int self = group_of(c);
  std::int64_t per_period = 0, events = 0;
  std::int64_t k_free = kMany;
  for (std::size_t i = 0; i < c.jobs.size(); ++i) {
    const TaskJob& j = jobs_[c.jobs[i]];
    m[i] = now.iter[i] - ref.iter[i];
    if (m[i] < 0) return false;
    if (m[i] == 0) continue;
    per_period += m[i];
    events += m[i] * (2 * j.v.n + (j.v.servers.size() > 1));
    k_free = std::min(k_free, (j.v.iters - j.iter) / m[i] - 1);  // the last period and iteration run live
  }
  if (per_period == 0) return false;
  // A job of the group with a worker on another group's GPU (a foreign worker) cannot have advanced:
  // that worker waits there; the group's cycle holds while it waits, until that group's guard.
  Ns foreign = kNever;
  for (std::size_t i = 0; i < c.jobs.size(); ++i) {
    const TaskJob& j = jobs_[c.jobs[i]];
    for (std::size_t w = 0; w < j.v.gpus.size(); ++w) {
      const int y = groups_.gpu_group(j.v.gpus[w]);
      if (y == self) continue;
      if (m[i] > 0) return false;
      if (j.phase[w] != WAIT) foreign = std::min(foreign, y >= 0 && groups_[y].guard > t ? groups_[y].guard : t);
    }
  }
  // The key orders hold until an absolute time, the same at every later match of the same cycle (a
  // foreign job's slack only shrinks), so it is computed once per cycle.
  if (c.key_until <= t) c.key_until = after(key_periods(c, m));
  if (c.key_until < kNever) k_free = std::min(k_free, (c.key_until - t) / period);
  if (k_free < 1) return false;
  // A detached job whose workers on the group's GPUs all wait for its sync would restart them when it
  // syncs, and a split one would start its all-reduce on the group's NICs; one with a worker still to
  // run here cannot sync while the cycle holds (key_periods).
  Ns guard = std::min(foreign, after(k_free));
  guard = outside_guard(c, m, ref.t, t, guard, around);
  c.guard = guard;
  c.self_guard = guard == after(k_free);
  set_earliest_change(c, m, t, period, guard);
  if (guard - t < period) return false;  // not a whole period: spare the horizon
  // An arrival or a finish at the horizon's instant comes before the group's dispatches there (P3 before
  // P8), so the jump stops short of it: the group's decisions at its new time must be those recorded.
  const Ns hz = horizon(c, t, around);
  std::int64_t k = k_free;
  if (guard < kNever) k = std::min(k, (guard - t) / period);
  if (hz < kNever) k = std::min(k, (hz - t - 1) / period);
  if (k < 1) return false;

  apply_jump(c, ref, t, period, k, m);
  credit.events += k * events;
  ++credit.jumps;
  ++stats_.jumps;
  stats_.periods += k;
  stats_.iterations += k * per_period;
  stats_.skipped_ms += task_time::ms_from(k * period);
  return true;
}

}  // namespace rm
