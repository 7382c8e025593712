// The fast-forward's groups (fast_forward.cpp, steps 1 and 6): placed jobs linked by a shared GPU or (both
// multi-server) a shared NIC, each group owning the GPUs of its jobs that no other group owns, and what the
// fast-forward keeps of each job (its group, whether it is detached). This unit forms, merges, splits and retires
// groups as jobs are placed, released, run where their group does not own the GPU, or starve; the detection and
// the jump (fast_forward.cpp) read and annotate the groups.
#pragma once
#include <cstdint>
#include <vector>

#include "models/task/cycle_records.h"
#include "models/task/gpu_tasks.h"
#include "models/task/task_job.h"

namespace rm {

struct FfGroup {
  using Ns = std::int64_t;
  std::vector<int> jobs, gpus, servers;  // jobs in placement order; GPUs and NICs (multi-server) sorted
  int anchor = -1;
  int stride = 1, skipped = 0;  // records every stride-th sync of the anchor
  int other_syncs = 0;          // syncs of its other jobs since the anchor's last
  bool synced = false, dead = false;
  Ns frozen_until = -1;         // jumped ahead to this time: global passes skip it until then
  Ns guard = -1;                // its cycle is known to hold until then (-1: unknown)
  Ns key_until = -1;            // the recorded cycle's key orders hold until then (-1: not computed)
  bool self_guard = false;      // the guard rests on no other group's (it outlives changes elsewhere)
  Ns earliest_change = 0;       // while guard > now: no job of it finishes before this
  CycleRecords records;         // at the anchor's syncs
  int unmatched = 0;            // records since the last match or reset

  // Forgets the recorded cycle and what was derived from it: the anchor (the next job to sync) and the
  // key-order bound.
  void forget() {
    records.clear();
    unmatched = 0;
    anchor = -1;
    key_until = -1;
  }
};

struct FfMember {  // what the fast-forward keeps of a job
  int group = -1;
  bool ran = false, detached = false;  // detached: placed but linking no group (it has not run for a while)
  bool woke = false;                   // detached, ran since, not yet re-linked
  std::int64_t last_run = -1;          // when a task of it last ran
};

class FfGroups {
 public:
  using Ns = std::int64_t;
  FfGroups(const std::vector<TaskJob>& jobs, const GpuTasks& gpu);

  std::vector<FfGroup>& all() { return groups_; }
  const std::vector<FfGroup>& all() const { return groups_; }
  FfGroup& operator[](int ci) { return groups_[static_cast<std::size_t>(ci)]; }
  const FfGroup& operator[](int ci) const { return groups_[static_cast<std::size_t>(ci)]; }
  FfMember& member(int id) { return members_[static_cast<std::size_t>(id)]; }
  const FfMember& member(int id) const { return members_[static_cast<std::size_t>(id)]; }
  int gpu_group(int g) const { return gpu_group_[static_cast<std::size_t>(g)]; }

  // A placement or a release changed the groups `lost` (they lost a job) and placed the jobs `placed`.
  void update(std::vector<int>& lost, const std::vector<int>& placed, Ns t);
  // A detached job that ran (woke) links the live groups it touches again.
  void merge_around(int id, Ns t);
  // A group that does not recur detaches its jobs that did not run since `since`, and splits.
  void split(int ci, Ns since);
  // Drops the dead groups once they outnumber the live ones.
  void compact();
  // The groups a job's GPUs and (multi-server) NICs are in.
  std::vector<int> touching(const TaskJob& p) const;

 private:
  std::vector<int> link(const std::vector<int>& ids);
  int add(const std::vector<int>& ids);
  void retire(FfGroup& c);
  void regroup(const std::vector<int>& ids);

  const std::vector<TaskJob>& jobs_;
  const GpuTasks& gpu_;
  std::vector<FfGroup> groups_;
  std::vector<FfMember> members_;  // per job
  std::vector<int> gpu_group_;     // the group owning each GPU, or -1
  std::vector<int> link_gpu_, link_nic_;
  std::size_t dead_ = 0;  // dead groups in groups_
};

}  // namespace rm
