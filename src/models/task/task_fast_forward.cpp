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
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "models/task/task_model.h"

namespace rm {
namespace {

constexpr std::int64_t kMany = std::numeric_limits<std::int64_t>::max() / 4;
constexpr std::size_t kMaxRecords = 4096;  // records kept per group: periods of up to 4095 records
constexpr int kSplitEvery = 32;            // records without a match after which a group may split
constexpr int kMaxStride = 16;             // anchor syncs between records of a group that does not recur

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

// Classes of `ids` linked by a shared GPU or (both multi-server) a shared NIC, labelled 0, 1, ... in
// the order of their first member.
std::vector<int> TaskModel::link(const std::vector<int>& ids) {
  std::vector<int> parent(ids.size());
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  auto unite = [&](int a, int b) {
    a = find(a), b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  };
  link_gpu_.resize(static_cast<std::size_t>(gpu_.count()), -1);
  link_nic_.resize(static_cast<std::size_t>(gpu_.servers()), -1);
  for (std::size_t k = 0; k < ids.size(); ++k) {
    parent[k] = static_cast<int>(k);
    const Job& j = jobs_[ids[k]];
    for (int g : j.v.gpus) {
      if (link_gpu_[g] < 0) link_gpu_[g] = static_cast<int>(k);
      else unite(link_gpu_[g], static_cast<int>(k));
    }
    if (j.v.servers.size() > 1)
      for (int s : j.v.servers) {
        if (link_nic_[s] < 0) link_nic_[s] = static_cast<int>(k);
        else unite(link_nic_[s], static_cast<int>(k));
      }
  }
  for (int id : ids) {
    for (int g : jobs_[id].v.gpus) link_gpu_[g] = -1;
    for (int s : jobs_[id].v.servers) link_nic_[s] = -1;
  }
  std::vector<int> label(ids.size()), index(ids.size(), -1);
  int n = 0;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const int root = find(static_cast<int>(k));
    if (index[root] < 0) index[root] = n++;
    label[k] = index[root];
  }
  return label;
}

// A group ends: its GPUs are nobody's until the groups replacing it take them.
void TaskModel::retire_group(Comp& c) {
  for (int g : c.gpus) gpu_comp_[g] = -1;
  c.dead = true;
  ++dead_;
  c.jobs.clear();
  clear_records(c);
}

void TaskModel::add_record(Comp& c, Snap&& s) {
  c.by_hash[s.hash].push_back(c.base + static_cast<std::int64_t>(c.hist.size()));
  c.hist.push_back(std::move(s));
  if (c.hist.size() > kMaxRecords) drop_oldest_record(c);
}

void TaskModel::drop_oldest_record(Comp& c) {
  const auto it = c.by_hash.find(c.hist.front().hash);
  it->second.erase(it->second.begin());  // the oldest with that hash
  if (it->second.empty()) c.by_hash.erase(it);
  c.hist.pop_front();
  ++c.base;
}

// Forgets the recorded cycle and what was derived from it: the anchor (the next job to sync) and the
// key-order bound.
void TaskModel::clear_records(Comp& c) {
  c.hist.clear();
  c.by_hash.clear();
  c.base = 0;
  c.unmatched = 0;
  c.anchor = -1;
  c.key_until = -1;
}

// The latest record equal to `now` (same discrete state, pending times within tol), or -1.
std::ptrdiff_t TaskModel::find_record(const Comp& c, const Snap& now) const {
  const auto it = c.by_hash.find(now.hash);
  if (it == c.by_hash.end()) return -1;
  for (auto n = it->second.rbegin(); n != it->second.rend(); ++n) {
    const Snap& h = c.hist[static_cast<std::size_t>(*n - c.base)];
    if (h.disc == now.disc && h.rel == now.rel && h.flow == now.flow) return static_cast<std::ptrdiff_t>(*n - c.base);
  }
  return -1;
}

// New groups for `ids` (in placement order), one per class that link() finds.
void TaskModel::regroup(const std::vector<int>& ids) {
  const std::vector<int> lab = link(ids);
  std::vector<std::vector<int>> groups;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    if (lab[k] >= static_cast<int>(groups.size())) groups.resize(lab[k] + 1);
    groups[lab[k]].push_back(ids[k]);
  }
  for (const auto& g : groups) add_group(g);
}

int TaskModel::add_group(const std::vector<int>& ids) {
  const int ci = static_cast<int>(comps_.size());
  comps_.emplace_back();
  Comp& c = comps_.back();
  c.jobs = ids;
  for (int id : ids) {
    Job& j = jobs_[id];
    j.comp = ci;
    c.gpus.insert(c.gpus.end(), j.v.gpus.begin(), j.v.gpus.end());
    if (j.v.servers.size() > 1) c.servers.insert(c.servers.end(), j.v.servers.begin(), j.v.servers.end());
  }
  for (auto* v : {&c.gpus, &c.servers}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  // It owns its jobs' GPUs that no other group owns; a worker of its jobs on another group's GPU waits
  // behind that group's cycle (a foreign worker).
  c.gpus.erase(std::remove_if(c.gpus.begin(), c.gpus.end(), [&](int g) { return gpu_comp_[g] >= 0; }), c.gpus.end());
  for (int g : c.gpus) gpu_comp_[g] = ci;
  return ci;
}

// A placement or a release (no group is frozen then: every jump ends by the horizon). A group that lost
// a job re-links what is left; a job placed and already running merges the groups it touches; one not
// running yet is detached, and the groups it touches start their records afresh (it competes there now).
// Every guard is dropped: one may rest on a group that changed.
void TaskModel::structural_update(Ns t) {
  std::sort(lost_.begin(), lost_.end());
  lost_.erase(std::unique(lost_.begin(), lost_.end()), lost_.end());
  for (int ci : lost_) {
    Comp& c = comps_[ci];
    if (c.dead) continue;
    std::vector<int> keep;
    for (int id : c.jobs)
      if (!jobs_[id].finished) keep.push_back(id);
    retire_group(c);
    regroup(keep);
  }
  lost_.clear();
  for (int id : placed_) {
    Job& j = jobs_[id];
    if (j.finished || j.released) continue;
    j.detached = true;
    if (j.ran) {
      j.woke = true;
      merge_around(id, t);
    } else {
      for (int ci : touching(j)) {
        Comp& c = comps_[ci];
        clear_records(c);
        c.self_guard = false;  // its guard is dropped below
      }
    }
  }
  placed_.clear();
  for (Comp& c : comps_) {
    if (c.self_guard) continue;  // its cycle rests on nothing that changed
    c.guard = -1;
    clear_records(c);  // a cycle recorded before the change may have rested on what changed
  }
}

// Drops the dead groups once they outnumber the live ones.
void TaskModel::compact_groups() {
  if (comps_.size() < 64 || 2 * dead_ <= comps_.size()) return;
  const std::size_t live = comps_.size() - dead_;
  dead_ = 0;
  std::vector<Comp> kept;
  kept.reserve(live);
  for (Comp& c : comps_) {
    if (c.dead) continue;
    const int ci = static_cast<int>(kept.size());
    for (int id : c.jobs) jobs_[id].comp = ci;
    for (int g : c.gpus) gpu_comp_[g] = ci;
    kept.push_back(std::move(c));
  }
  comps_.swap(kept);
}

// The groups a job's GPUs and (multi-server) NICs are in.
std::vector<int> TaskModel::touching(const Job& p) const {
  std::vector<int> out;
  for (int g : p.v.gpus)
    if (gpu_comp_[g] >= 0) out.push_back(gpu_comp_[g]);
  if (p.v.servers.size() > 1)
    for (std::size_t ci = 0; ci < comps_.size(); ++ci) {
      const Comp& c = comps_[ci];
      if (c.dead) continue;
      for (int s : p.v.servers)
        if (std::binary_search(c.servers.begin(), c.servers.end(), s)) out.push_back(static_cast<int>(ci));
    }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// A job ran a task on a GPU its group does not own (a detached job: on any GPU): it links the groups it
// touches again. The live ones merge with its group; a frozen one stays apart, the job's workers on its
// GPUs waiting behind its cycle (its guard saw to that), until it thaws and runs one of them.
void TaskModel::merge_around(int id, Ns t) {
  Job& p = jobs_[id];
  if (p.released || p.finished || !p.woke) return;
  std::vector<int> olds = touching(p);
  if (p.comp >= 0) olds.push_back(p.comp);
  std::sort(olds.begin(), olds.end());
  olds.erase(std::unique(olds.begin(), olds.end()), olds.end());
  std::vector<int> ids{id};
  for (int ci : olds) {
    Comp& c = comps_[ci];
    if (c.dead || c.frozen_until > t) continue;
    for (int x : c.jobs)
      if (x != id) ids.push_back(x);
    retire_group(c);
  }
  std::sort(ids.begin(), ids.end(), [&](int a, int b) { return jobs_[a].seq < jobs_[b].seq; });
  p.detached = p.woke = false;
  add_group(ids);
}

// A group that does not recur detaches the jobs that did not run over its records, and splits.
void TaskModel::split(Comp& c, Ns since) {
  std::vector<int> keep;
  bool any = false;
  for (int id : c.jobs) {
    Job& j = jobs_[id];
    bool busy = j.in_comm || j.ready, waiting_task = false;
    for (std::size_t w = 0; w < j.v.gpus.size(); ++w) {
      const GpuTasks::Gpu& r = gpu_.at(j.v.gpus[w]);
      busy = busy || (r.busy && r.job == id);
      waiting_task = waiting_task || j.phase[w] != WAIT;
    }
    if (!busy && waiting_task && j.last_run < since) {
      j.detached = true;
      j.comp = -1;
      any = true;
    } else {
      keep.push_back(id);
    }
  }
  if (!any) {  // nothing to detach: a cycle too long or none; record it less often (still every cycle of
                // up to 32 strides shows up, as a multiple of itself)
    c.stride = std::min(c.stride * 2, kMaxStride);
    return;
  }
  retire_group(c);
  regroup(keep);  // may reallocate comps_: c is not used after
}

void TaskModel::snapshot(const Comp& c, Ns t, Snap& s) const {
  s.t = t;
  for (int id : c.jobs) {
    const Job& j = jobs_[id];
    s.iter.push_back(j.iter);
    s.disc.push_back(j.waiting);
    s.disc.push_back(j.in_comm + 2 * j.ready);
    for (Phase p : j.phase) s.disc.push_back(p);
    if (j.in_comm) {
      s.rel.push_back(j.flow.end_ns - t);
      s.rel.push_back(j.flow.last_ns - t);
      s.flow.push_back(j.flow.speed);
      s.flow.push_back(j.flow.transferred);
    }
  }
  const int self = jobs_[c.jobs.front()].comp;
  for (int g : c.gpus) {
    const GpuTasks::Gpu& r = gpu_.at(g);
    s.disc.push_back(r.busy ? r.job : -1);
    if (r.busy) {
      s.disc.push_back(r.worker);
      s.rel.push_back(r.end - t);
    }
    for (const auto& [id, w] : r.jobs)  // the detached jobs' workers here
      if (jobs_[id].comp != self) s.disc.push_back(jobs_[id].phase[w]);
  }
  for (int srv : c.servers) {  // flow start order on each NIC (AdaDUAL reads the first)
    const std::vector<int>& on = net_.flows_on(srv);
    s.disc.push_back(static_cast<std::int32_t>(on.size()));
    s.disc.insert(s.disc.end(), on.begin(), on.end());
  }
  // FNV-1a over every value (records compare exactly, so equal records hash alike).
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&](std::uint64_t x) { h = (h ^ x) * 1099511628211ULL; };
  for (std::int32_t x : s.disc) mix(static_cast<std::uint32_t>(x));
  for (Ns x : s.rel) mix(static_cast<std::uint64_t>(x));
  for (double x : s.flow) mix(std::bit_cast<std::uint64_t>(x));
  s.hash = h;
}

void TaskModel::after_step(Ns t) {
  if (!placed_.empty() || !lost_.empty()) {
    for (const Comp& c : comps_)
      if (!c.dead && c.frozen_until > t)
        throw InvariantError("task engine: a placement or release at t=" + std::to_string(t) +
                             " ns reached a group fast-forwarded to " + std::to_string(c.frozen_until) + " ns");
    structural_update(t);
  }
  for (int id : woken_) merge_around(id, t);
  woken_.clear();
  for (std::size_t n = 0; n < synced_comps_.size(); ++n) {
    const int ci = synced_comps_[n];
    comps_[ci].synced = false;
    if (comps_[ci].dead) continue;
    Comp& c = comps_[ci];
    if (++c.skipped < c.stride) continue;
    c.skipped = 0;
    Snap now;
    snapshot(c, t, now);
    const std::ptrdiff_t found = find_record(c, now);
    const std::size_t matched = found < 0 ? c.hist.size() : static_cast<std::size_t>(found);
    if (matched < c.hist.size()) {
      for (std::size_t i = 0; i < matched; ++i) drop_oldest_record(c);  // before the cycle
      c.unmatched = 0;
      add_record(c, std::move(now));
      try_jump(c, c.hist.back());
      continue;
    }
    c.guard = -1;
    add_record(c, std::move(now));
    if (++c.unmatched % kSplitEvery == 0) {
      split(c, c.hist[c.hist.size() - kSplitEvery].t);
    }
  }
  synced_comps_.clear();
  compact_groups();
}

// The position of group job `id` in c.jobs (placement order).
std::size_t TaskModel::index_in(const Comp& c, int id) const {
  const auto it = std::lower_bound(c.jobs.begin(), c.jobs.end(), jobs_[id].seq,
                                   [&](int x, std::int64_t seq) { return jobs_[x].seq < seq; });
  return static_cast<std::size_t>(it - c.jobs.begin());
}

// How far a detached job's compute key may fall while it cannot sync because a worker of it waits on
// c's GPUs: the rest of its current iteration on its other GPUs.
double TaskModel::key_slack(const Job& p, const Comp& c) const {
  if (policy_.compute != task::Key::SRSF) return 0;  // SRTF falls at syncs; the others are constant
  double r = 0;
  const int self = jobs_[c.jobs.front()].comp;
  for (std::size_t w = 0; w < p.v.gpus.size(); ++w)
    if (gpu_comp_[p.v.gpus[w]] != self) r += p.phase[w] == FF ? p.v.fw + p.v.bw : p.phase[w] == BP ? p.v.bw : 0;
  return r;
}

std::int64_t TaskModel::key_periods(const Comp& c, const std::vector<std::int64_t>& m) const {
  const int self = jobs_[c.jobs.front()].comp;
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
      const Job& j = jobs_[id];
      if (j.comp == self) keys.push_back(of(id, policy_.compute));
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
TaskModel::Ns TaskModel::sync_bound(const Job& p, Ns t) const {
  Ns b = t;
  for (std::size_t w = 0; w < p.v.gpus.size(); ++w) {
    if (p.phase[w] == WAIT) continue;
    const int y = gpu_comp_[p.v.gpus[w]];
    if (y >= 0 && comps_[y].guard > t) b = std::max(b, comps_[y].guard);
  }
  return b;
}

TaskModel::Ns TaskModel::horizon(const Comp& c, Ns t) const {
  Ns h = next_arrival_ < jobs_.size() ? jobs_[next_arrival_].arrival : kNever;
  for (const Comp& d : comps_)
    if (!d.dead && &d != &c && d.guard > t) h = std::min(h, d.earliest_change);
  for (int id : running_) {
    const Job& j = jobs_[id];
    if (j.finished) continue;
    if (j.comp >= 0 && (&comps_[j.comp] == &c || comps_[j.comp].guard > t)) continue;
    Ns b = t + rest_bound(j.time_ns, j.fw_ns + j.bw_ns);
    if (j.detached) b = std::max(b, sync_bound(j, t));  // it must sync first
    h = std::min(h, b);
  }
  return h;
}

// A detached job p whose workers on c's GPUs all wait for its sync cannot disturb c's cycle where each of
// those GPUs never idled over the recorded period and the keys of c's jobs that ran there stay below
// p's lowest key: once p syncs, its workers there wait behind c's jobs for good, so it syncs at most
// once more, its key falling by at most the rest of its current iteration and one more on its other
// GPUs (SRSF), or one iteration (SRTF).
bool TaskModel::harmless(const Job& p, const Comp& c, const std::vector<std::int64_t>& m, Ns since) const {
  if (p.v.servers.size() > 1)  // its all-reduce would start on c's NICs
    for (int s : p.v.servers)
      if (std::binary_search(c.servers.begin(), c.servers.end(), s)) return false;
  const int self = jobs_[c.jobs.front()].comp;
  const task::Key key = policy_.compute;
  const double iter = p.v.fw + p.v.bw;
  double slack = 0;
  if (key == task::Key::SRTF) slack = iter;
  if (key == task::Key::SRSF) {
    slack = key_slack(p, c);
    for (int g : p.v.gpus) slack += gpu_comp_[g] != self ? iter : 0;
  }
  const double low = p.v.key(key) - slack;
  for (int g : p.v.gpus) {
    if (gpu_comp_[g] != self) continue;
    if (!gpu_.at(g).busy || gpu_.at(g).busy_since >= since) return false;  // it idled in the period
    for (const auto& [q, w] : gpu_.at(g).jobs) {
      const Job& jq = jobs_[q];
      if (jq.comp != self) continue;
      const std::size_t k = index_in(c, q);
      if (m[k] > 0 && !(jq.v.key(key) + key_drop(key, jq.v, m[k]) < low)) return false;
    }
  }
  return true;
}

// The guard lowered to the syncs of detached jobs that touch group c and could change its decisions.
TaskModel::Ns TaskModel::outside_guard(const Comp& c, const std::vector<std::int64_t>& m, Ns ref_t, Ns t, Ns guard) {
  const int self = jobs_[c.jobs.front()].comp;
  std::vector<int>& seen = scratch_;
  seen.clear();
  auto outside = [&](int id) {
    if (std::find(seen.begin(), seen.end(), id) != seen.end()) return;
    seen.push_back(id);
    const Job& p = jobs_[id];
    for (std::size_t x = 0; x < p.v.gpus.size(); ++x)
      if (p.phase[x] != WAIT && gpu_comp_[p.v.gpus[x]] == self) return;
    if (harmless(p, c, m, ref_t)) return;
    guard = std::min(guard, sync_bound(p, t));
  };
  for (int g : c.gpus)
    for (const auto& [id, w] : gpu_.at(g).jobs)
      if (jobs_[id].comp != self) outside(id);
  if (!c.servers.empty())
    for (int id : running_) {
      const Job& p = jobs_[id];
      if (p.comp == self || p.finished || p.v.servers.size() < 2) continue;
      for (int s : p.v.servers)
        if (std::binary_search(c.servers.begin(), c.servers.end(), s)) {
          outside(id);
          break;
        }
    }
  return guard;
}

void TaskModel::set_earliest_change(Comp& c, const std::vector<std::int64_t>& m, Ns t, Ns period, Ns guard) {
  // No job of the group finishes before its guard, nor sooner after it than its remaining iterations alone.
  if (guard >= kNever) {
    c.earliest_change = kNever;
  } else {
    const std::int64_t guard_periods = (guard - t + period - 1) / period;
    Ns change = kNever;
    for (std::size_t i = 0; i < c.jobs.size(); ++i) {
      const Job& j = jobs_[c.jobs[i]];
      const Ns iter_ns = j.fw_ns + j.bw_ns;
      change = std::min(change, rest_bound(j.time_ns - guard_periods * m[i] * iter_ns, iter_ns));
    }
    c.earliest_change = guard + change;
  }

}

// Jumps group c k periods ahead (m[i] iterations of its job i per period): iterations, remaining service and
// time, GPU workloads and busy times, flows and heap entries shifted, in exact sums.
void TaskModel::apply_jump(Comp& c, const Snap& ref, Ns t, Ns period, std::int64_t k, const std::vector<std::int64_t>& m,
                            std::int64_t events, std::int64_t per_period) {
  const Ns shift = k * period;
  for (std::size_t i = 0; i < c.jobs.size(); ++i) {
    Job& j = jobs_[c.jobs[i]];
    if (j.in_comm) {
      j.flow.last_ns += shift;
      j.flow.end_ns += shift;
      j.flow.end = ms_from(j.flow.end_ns);
    }
    if (m[i] == 0) continue;
    const std::int64_t its = k * m[i], iter_ns = j.fw_ns + j.bw_ns;
    j.iter += its;
    add_exact(j.v.rem_service, j.service_ns, 0, -its * j.v.n * iter_ns);  // (default mode only)
    add_exact(j.v.rem_time, j.time_ns, 0, -its * iter_ns);
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
  events_ += k * events;
  ++wl_version_;
  c.frozen_until = t + shift;
  for (Snap& s : c.hist) {
    s.t += shift;
    for (std::size_t i = 0; i < m.size(); ++i) s.iter[i] += k * m[i];
  }
  ++ff_stats_.jumps;
  ff_stats_.periods += k;
  ff_stats_.iterations += k * per_period;
  ff_stats_.skipped_ms += ms_from(shift);
}

bool TaskModel::try_jump(Comp& c, const Snap& now) {
  const Snap& ref = c.hist.front();
  const Ns t = now.t, period = t - ref.t;
  c.guard = -1;
  if (period <= 0) return false;
  auto after = [&](std::int64_t k) { return after_periods(t, k, period, kNever); };
  for (int g : c.gpus)  // a detached job that ran next to it: wait for the merge
    for (const auto& [id, w] : gpu_.at(g).jobs)
      if (jobs_[id].woke) return false;
  if (!queue_.empty() && !policy_.placement->pure(opt_.compat)) return false;
  std::vector<std::int64_t> m(c.jobs.size());
  const int self = jobs_[c.jobs.front()].comp;
  std::int64_t per_period = 0, events = 0;
  std::int64_t k_free = kMany;
  for (std::size_t i = 0; i < c.jobs.size(); ++i) {
    const Job& j = jobs_[c.jobs[i]];
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
    const Job& j = jobs_[c.jobs[i]];
    for (std::size_t w = 0; w < j.v.gpus.size(); ++w) {
      const int y = gpu_comp_[j.v.gpus[w]];
      if (y == self) continue;
      if (m[i] > 0) return false;
      if (j.phase[w] != WAIT) foreign = std::min(foreign, y >= 0 && comps_[y].guard > t ? comps_[y].guard : t);
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
  guard = outside_guard(c, m, ref.t, t, guard);
  c.guard = guard;
  c.self_guard = guard == after(k_free);
  set_earliest_change(c, m, t, period, guard);
  if (guard - t < period) return false;  // not a whole period: spare the horizon
  // An arrival or a finish at the horizon's instant comes before the group's dispatches there (P3 before
  // P8), so the jump stops short of it: the group's decisions at its new time must be those recorded.
  const Ns hz = horizon(c, t);
  std::int64_t k = k_free;
  if (guard < kNever) k = std::min(k, (guard - t) / period);
  if (hz < kNever) k = std::min(k, (hz - t - 1) / period);
  if (k < 1) return false;

  apply_jump(c, ref, t, period, k, m, events, per_period);
  return true;
}

}  // namespace rm
