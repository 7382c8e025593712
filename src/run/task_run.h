// The task model's run under the one engine (the drivers' side of models/task/task_model.h).
#pragma once
#include <memory>
#include <vector>

#include "models/task/task_model.h"

namespace rm {

// Runs `model` over `jobs` under the one engine (engine/engine.h) and gives it back with the run's figures.
// Throws InvariantError on a broken invariant or a deadlock.
std::unique_ptr<TaskModel> run_task_model(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs,
                                          std::unique_ptr<TaskModel> model);

}  // namespace rm
