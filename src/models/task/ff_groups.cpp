#include "models/task/ff_groups.h"

#include <algorithm>

namespace rm {

FfGroups::FfGroups(const std::vector<TaskJob>& jobs, const GpuTasks& gpu)
    : jobs_(jobs), gpu_(gpu), members_(jobs.size()), gpu_group_(static_cast<std::size_t>(gpu.count()), -1) {}

// Classes of `ids` linked by a shared GPU or (both multi-server) a shared NIC, labelled 0, 1, ... in
// the order of their first member.
std::vector<int> FfGroups::link(const std::vector<int>& ids) {
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
    const TaskJob& j = jobs_[ids[k]];
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
void FfGroups::retire(FfGroup& c) {
  for (int g : c.gpus) gpu_group_[g] = -1;
  c.dead = true;
  ++dead_;
  c.jobs.clear();
  c.forget();
}

// New groups for `ids` (in placement order), one per class that link() finds.
void FfGroups::regroup(const std::vector<int>& ids) {
  const std::vector<int> lab = link(ids);
  std::vector<std::vector<int>> groups;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    if (lab[k] >= static_cast<int>(groups.size())) groups.resize(lab[k] + 1);
    groups[lab[k]].push_back(ids[k]);
  }
  for (const auto& g : groups) add(g);
}

int FfGroups::add(const std::vector<int>& ids) {
  const int ci = static_cast<int>(groups_.size());
  groups_.emplace_back();
  FfGroup& c = groups_.back();
  c.jobs = ids;
  for (int id : ids) {
    const TaskJob& j = jobs_[id];
    member(id).group = ci;
    c.gpus.insert(c.gpus.end(), j.v.gpus.begin(), j.v.gpus.end());
    if (j.v.servers.size() > 1) c.servers.insert(c.servers.end(), j.v.servers.begin(), j.v.servers.end());
  }
  for (auto* v : {&c.gpus, &c.servers}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  // It owns its jobs' GPUs that no other group owns; a worker of its jobs on another group's GPU waits
  // behind that group's cycle (a foreign worker).
  c.gpus.erase(std::remove_if(c.gpus.begin(), c.gpus.end(), [&](int g) { return gpu_group_[g] >= 0; }), c.gpus.end());
  for (int g : c.gpus) gpu_group_[g] = ci;
  return ci;
}

// A placement or a release (no group is frozen then: every jump ends by the horizon). A group that lost
// a job re-links what is left; a job placed and already running merges the groups it touches; one not
// running yet is detached, and the groups it touches start their records afresh (it competes there now).
// Every guard is dropped: one may rest on a group that changed.
void FfGroups::update(std::vector<int>& lost, const std::vector<int>& placed, Ns t) {
  std::sort(lost.begin(), lost.end());
  lost.erase(std::unique(lost.begin(), lost.end()), lost.end());
  for (int ci : lost) {
    FfGroup& c = groups_[ci];
    if (c.dead) continue;
    std::vector<int> keep;
    for (int id : c.jobs)
      if (!jobs_[id].finished) keep.push_back(id);
    retire(c);
    regroup(keep);
  }
  for (int id : placed) {
    const TaskJob& j = jobs_[id];
    if (j.finished || j.released) continue;
    FfMember& m = member(id);
    m.detached = true;
    if (m.ran) {
      m.woke = true;
      merge_around(id, t);
    } else {
      for (int ci : touching(j)) {
        FfGroup& c = groups_[ci];
        c.forget();
        c.self_guard = false;  // its guard is dropped below
      }
    }
  }
  for (FfGroup& c : groups_) {
    if (c.self_guard) continue;  // its cycle rests on nothing that changed
    c.guard = -1;
    c.forget();  // a cycle recorded before the change may have rested on what changed
  }
}

void FfGroups::compact() {
  if (groups_.size() < 64 || 2 * dead_ <= groups_.size()) return;
  const std::size_t live = groups_.size() - dead_;
  dead_ = 0;
  std::vector<FfGroup> kept;
  kept.reserve(live);
  for (FfGroup& c : groups_) {
    if (c.dead) continue;
    const int ci = static_cast<int>(kept.size());
    for (int id : c.jobs) member(id).group = ci;
    for (int g : c.gpus) gpu_group_[g] = ci;
    kept.push_back(std::move(c));
  }
  groups_.swap(kept);
}

std::vector<int> FfGroups::touching(const TaskJob& p) const {
  std::vector<int> out;
  for (int g : p.v.gpus)
    if (gpu_group_[g] >= 0) out.push_back(gpu_group_[g]);
  if (p.v.servers.size() > 1)
    for (std::size_t ci = 0; ci < groups_.size(); ++ci) {
      const FfGroup& c = groups_[ci];
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
void FfGroups::merge_around(int id, Ns t) {
  const TaskJob& p = jobs_[id];
  FfMember& pm = member(id);
  if (p.released || p.finished || !pm.woke) return;
  std::vector<int> olds = touching(p);
  if (pm.group >= 0) olds.push_back(pm.group);
  std::sort(olds.begin(), olds.end());
  olds.erase(std::unique(olds.begin(), olds.end()), olds.end());
  std::vector<int> ids{id};
  for (int ci : olds) {
    FfGroup& c = groups_[ci];
    if (c.dead || c.frozen_until > t) continue;
    for (int x : c.jobs)
      if (x != id) ids.push_back(x);
    retire(c);
  }
  std::sort(ids.begin(), ids.end(), [&](int a, int b) { return jobs_[a].seq < jobs_[b].seq; });
  pm.detached = pm.woke = false;
  add(ids);
}

void FfGroups::split(int ci, Ns since) {
  constexpr int kMaxStride = 16;  // anchor syncs between records of a group that does not recur
  FfGroup& c = groups_[ci];
  std::vector<int> keep;
  bool any = false;
  for (int id : c.jobs) {
    const TaskJob& j = jobs_[id];
    bool busy = j.in_comm || j.ready, waiting_task = false;
    for (std::size_t w = 0; w < j.v.gpus.size(); ++w) {
      const GpuTasks::Gpu& r = gpu_.at(j.v.gpus[w]);
      busy = busy || (r.busy && r.job == id);
      waiting_task = waiting_task || j.phase[w] != TaskJob::WAIT;
    }
    FfMember& m = member(id);
    if (!busy && waiting_task && m.last_run < since) {
      m.detached = true;
      m.group = -1;
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
  retire(c);
  regroup(keep);  // may reallocate groups_: c is not used after
}

}  // namespace rm
