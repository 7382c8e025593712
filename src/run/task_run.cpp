#include "run/task_run.h"

#include "engine/engine.h"
#include "sched/job_feed.h"

namespace rm {

std::unique_ptr<TaskModel> run_task_model(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs,
                                          std::unique_ptr<TaskModel> model) {
  VectorFeed feed(jobs);
  Engine engine(cluster, feed, nullptr, std::move(model));
  engine.run();
  return std::unique_ptr<TaskModel>(static_cast<TaskModel*>(engine.take_exec().release()));
}

}  // namespace rm
