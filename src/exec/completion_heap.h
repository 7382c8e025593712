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
  void push(Time t, JobState& j) { heap_.push({t, j.id(), j.epoch, &j}); }
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
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap_;
};

}  // namespace rm
