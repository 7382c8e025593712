#include "policy/planner/plan_scheduler.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace rm::plan {

PlanScheduler::PlanScheduler(std::string name, const Plan& plan, const ClusterSpec& cluster, double slot_s)
    : name_(std::move(name)) {
  std::vector<GpuRef> refs;
  for (int s = 0; s < static_cast<int>(cluster.servers.size()); ++s)
    for (int g = 0; g < cluster.servers[s].gpus; ++g) refs.push_back({s, g});
  for (std::size_t id = 0; id < plan.jobs.size(); ++id) {
    Step st{static_cast<JobId>(id), from_seconds(plan.jobs[id].start * slot_s), {}};
    for (int g : plan.jobs[id].gpus) st.gpus.push_back(refs.at(g));
    steps_.push_back(std::move(st));
  }
  // Start order: planned time; ties keep the planner's own order (SJF, then id) via its start sequence.
  std::stable_sort(steps_.begin(), steps_.end(), [&](const Step& a, const Step& b) {
    if (a.start != b.start) return a.start < b.start;
    const auto& ja = plan.jobs[a.job];
    const auto& jb = plan.jobs[b.job];
    return ja.gpus.size() != jb.gpus.size() ? ja.gpus.size() < jb.gpus.size() : a.job < b.job;
  });
}

Decisions PlanScheduler::schedule(const SchedContext& ctx) {
  Decisions d;
  FreeMap free(ctx.cluster);
  constexpr Time kSlack = 10;  // us: completions are rounded up to the microsecond
  while (next_ < steps_.size()) {
    const Step& st = steps_[next_];
    if (ctx.now + kSlack < st.start) {
      d.wake_at = st.start;
      break;
    }
    bool ok = true;
    for (const auto& g : st.gpus) ok = ok && free.is_free(g);
    if (!ok) break;  // strict order: wait for this job's GPUs
    free.take(st.gpus);
    d.start.push_back({st.job, st.gpus, {}});
    ++next_;
  }
  return d;
}

}  // namespace rm::plan
