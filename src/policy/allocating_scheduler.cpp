#include "policy/allocating_scheduler.h"

#include <algorithm>

namespace rm {

Decisions AllocatingScheduler::schedule(const SchedContext& ctx) {
  Decisions d = inner_->schedule(ctx);
  if (d.start.empty()) return d;
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
  std::vector<StartDecision> kept;
  std::vector<const JobState*> kept_jobs;
  for (auto& sd : d.start) {
    const auto it = std::lower_bound(by_id.begin(), by_id.end(), std::make_pair(sd.job, static_cast<const JobState*>(nullptr)));
    if (it == by_id.end() || it->first != sd.job) continue;
    const JobState* j = it->second;
    free.take(sd.gpus);
    if (allocation_->allocate(*j, sd, free)) {
      kept.push_back(std::move(sd));
      kept_jobs.push_back(j);
    } else {
      free.give(sd.gpus);
    }
  }
  d.start = std::move(kept);
  for (std::size_t k = 0; k < d.start.size(); ++k) allocation_->upgrade(*kept_jobs[k], d.start[k], free);
  d.resize = free.resized();
  return d;
}

}  // namespace rm
