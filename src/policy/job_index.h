// The composed scheduler's indexes of waiting and running jobs, kept across passes so that a pass costs what it
// touches, not the number of jobs (docs/design.md, "Scale"). Both order jobs by the pass order: key, then
// submit time, then id (QueueOrder's tie-break).
#pragma once
#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>

#include <climits>
#include <cstdint>
#include <map>
#include <queue>
#include <set>
#include <vector>

#include "sched/job_state.h"

namespace rm {

struct PassKey {
  double key;
  Time submit;
  JobId id;
  const JobState* job;
  bool operator<(const PassKey& o) const {
    if (key != o.key) return key < o.key;
    if (submit != o.submit) return submit < o.submit;
    return id < o.id;
  }
};
inline PassKey pass_key(const JobState& j, double key) { return {key, j.spec->submit, j.id(), &j}; }

// An ordered set of pass keys that keeps the nodes of erased keys for the next insertions (C++17 node handles):
// jobs enter and leave the indexes at every event, and a node allocation each time was a fifth of the loop.
class KeySet {
 public:
  using Set = std::set<PassKey>;
  using Node = Set::node_type;
  // Whether k was added (false: an equal key is there).
  bool insert(const PassKey& k, std::vector<Node>& spare);
  // Whether k was there.
  bool erase(const PassKey& k, std::vector<Node>& spare);
  const Set& set() const { return set_; }

 private:
  Set set_;
};

// A pb_ds tree node update keeping the GPUs asked for in each subtree, so that the GPUs of the jobs before a
// given pass key are summed in O(log n) (GCC's policy-based data structures, part of libstdc++).
template <class NodeCItr, class NodeItr, class Cmp, class Alloc>
struct GpuSums {
  using metadata_type = long;
  void operator()(NodeItr it, NodeCItr end) {
    long s = (**it).job->spec->num_gpus;
    if (it.get_l_child() != end) s += it.get_l_child().get_metadata();
    if (it.get_r_child() != end) s += it.get_r_child().get_metadata();
    const_cast<long&>(it.get_metadata()) = s;
  }
  long gpus_below(const PassKey& k) const {
    long s = 0;
    for (NodeCItr it = node_begin(), end = node_end(); it != end;) {
      if (**it < k) {
        if (it.get_l_child() != end) s += it.get_l_child().get_metadata();
        s += (**it).job->spec->num_gpus;
        it = it.get_r_child();
      } else {
        it = it.get_l_child();
      }
    }
    return s;
  }
  virtual NodeCItr node_begin() const = 0;
  virtual NodeCItr node_end() const = 0;
  virtual ~GpuSums() = default;
};

// Waiting jobs, whose keys do not change while they wait (QueueOrder::key_fixed_while_waiting), in one ordered
// set per GPU count: a walk in pass order can pass over every job asking for more GPUs than are left in O(1)
// per GPU count, where a single list would visit each of them (backfilling behind a long queue of big jobs).
class WaitingIndex {
 public:
  void insert(const JobState& j, double key);
  void erase(const JobState& j, double key);  // the key it was inserted with
  bool empty() const { return sums_.empty(); }
  std::size_t size() const { return sums_.size(); }
  long gpus() const { return gpus_; }  // asked for by all of them
  long gpus_below(const PassKey& k) const { return sums_.gpus_below(k); }  // by those before k in pass order
  // The first waiting job in pass order (the index must not be empty).
  const PassKey& first() const;

  // The waiting jobs in pass order, seen through a budget that may only shrink from call to call:
  // next(b) is the next job asking for at most b GPUs (those asking more are passed over for good), or null.
  // The index must not change during a walk.
  class Walk {
   public:
    explicit Walk(const WaitingIndex& w);
    const PassKey* next(int budget = INT_MAX);

   private:
    struct Cursor {
      int gpus;
      std::set<PassKey>::const_iterator at, end;
    };
    std::vector<Cursor> cursors_;  // by GPU count, ascending
  };

 private:
  std::map<int, KeySet> by_gpus_;
  std::vector<KeySet::Node> spare_;
  __gnu_pbds::tree<PassKey, __gnu_pbds::null_type, std::less<PassKey>, __gnu_pbds::rb_tree_tag, GpuSums> sums_;
  long gpus_ = 0;
};

// Running jobs by a snapshot of their key, for preemptive orders whose running keys move in a known way
// (QueueOrder::RunningKey): for Falls the snapshot is an upper bound of the key (refreshed lazily, by
// rekey()), for Steps it is the key itself until the job's next_change(), when refresh_due() takes it.
class RunningIndex {
 public:
  void insert(const JobState& j, double key, Time change);
  void erase(const JobState& j);
  bool contains(const JobState& j) const;
  void rekey(const JobState& j, double key, Time change);
  // The jobs whose change time has come (<= now), each once, in no particular order; removes their change.
  void take_due(Time now, std::vector<const JobState*>& out);
  // The earliest pending change (kNever if none).
  Time next_change();
  // Jobs from the largest snapshot down, while the snapshot is not below `floor` and f (given the snapshot)
  // returns true.
  template <class F>
  void from_top(const PassKey& floor, F&& f) const {
    for (auto it = set_.set().end(); it != set_.set().begin();) {
      --it;
      if (*it < floor || !f(*it)) break;
    }
  }
  std::size_t size() const { return set_.set().size(); }

 private:
  struct Slot {
    const JobState* job = nullptr;
    double key = 0;
    std::uint32_t stamp = 0;
    bool in = false;
  };
  Slot& slot(JobId id);
  KeySet set_;
  std::vector<KeySet::Node> spare_;
  std::vector<Slot> slots_;  // by job id
  struct Change {
    Time at;
    JobId id;
    std::uint32_t stamp;
    bool operator>(const Change& o) const { return at != o.at ? at > o.at : id > o.id; }
  };
  std::priority_queue<Change, std::vector<Change>, std::greater<>> changes_;
};

}  // namespace rm
