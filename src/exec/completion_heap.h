// Scheduled completions of running jobs with lazy invalidation: an entry is stale once the job's epoch
// has moved on (it was re-rated, preempted or finished). Shared by the job-level execution models.
#pragma once
#include <functional>
#include <queue>
#include <vector>

#include "sched/job_state.h"

namespace rm {

class CompletionHeap {
 public:
  // j completes at t unless its epoch changes first.
  void push(Time t, JobState& j) {
    heap_.push({t, j.id(), j.epoch, &j});
    if (heap_.size() > 2 * live_at_rebuild_ + 1024) rebuild();
  }
  // The earliest live completion, kNever if none.
  Time next() {
    while (!heap_.empty() && heap_.top().epoch != heap_.top().state->epoch) heap_.pop();
    return heap_.empty() ? kNever : heap_.top().t;
  }
  // Appends the jobs completing at t (== next()), in job-id order.
  void pop_at(Time t, std::vector<JobState*>& completed) {
    while (next() == t) {
      completed.push_back(heap_.top().state);
      heap_.pop();
    }
  }

 private:
  struct Entry {
    Time t;
    JobId job;
    std::uint64_t epoch;
    JobState* state;
    bool operator>(const Entry& o) const { return t != o.t ? t > o.t : job > o.job; }
  };
  // Stale entries (an epoch since bumped) leave when they reach the top; when they outnumber the live ones, the
  // heap is rebuilt of the live ones, so its size stays within twice the running jobs (amortised O(1) a push).
  void rebuild() {
    std::vector<Entry> live;
    while (!heap_.empty()) {
      if (heap_.top().epoch == heap_.top().state->epoch) live.push_back(heap_.top());
      heap_.pop();
    }
    live_at_rebuild_ = live.size();
    heap_ = decltype(heap_)(std::greater<>(), std::move(live));
  }
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap_;
  std::size_t live_at_rebuild_ = 0;
};

}  // namespace rm
