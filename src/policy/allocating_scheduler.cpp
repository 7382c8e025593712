#include "policy/allocating_scheduler.h"

#include <algorithm>

#include "core/error.h"
#include "policy/allocation/allocations.h"

namespace rm {

Decisions AllocatingScheduler::schedule(const SchedContext& ctx) {
  Decisions d = inner_->schedule(ctx);
  if (d.start.empty()) return d;
  allocation_->begin_pass(ctx.now);
  FreeMap free(ctx.cluster);
  std::vector<JobId> stopped = d.preempt;
  std::sort(stopped.begin(), stopped.end());
  std::vector<const JobState*> peers;
  for (const JobState* j : ctx.active) {
    if (!j->running()) continue;
    if (std::binary_search(stopped.begin(), stopped.end(), j->id())) {
      free.give(j->gpus);
      free.give_shares(j->shares);
    } else {
      peers.push_back(j);
    }
  }
  free.add_peers(peers);
  std::vector<std::pair<JobId, const JobState*>> by_id;  // the active jobs, by id
  for (const JobState* a : ctx.active) by_id.push_back({a->id(), a});
  std::sort(by_id.begin(), by_id.end());
  std::vector<const JobState*> jobs;
  std::vector<StartDecision> known;
  for (auto& sd : d.start) {
    const auto it = std::lower_bound(by_id.begin(), by_id.end(), std::make_pair(sd.job, static_cast<const JobState*>(nullptr)));
    if (it == by_id.end() || it->first != sd.job) throw InvariantError("a scheduler started a job that is not active");
    free.take(sd.gpus);
    known.push_back(std::move(sd));
    jobs.push_back(it->second);
  }
  d.start = std::move(known);
  allocate_starts(*allocation_, d, jobs, free);
  return d;
}

}  // namespace rm
