// Task-model policies by name (--exec task): presets, the authors' configuration strings
// "<queue>-<placement>-<key>-<thres>-<adaDual>" (spec A.6.5, A.11 item 25), and compositions
// "base+part+part" where a part is a placement (first-fit, random, lwf:kappa=K or lwfK), an admission
// (srsf-n:n=N, adadual[:probe=...;flows=...]) or a key (queue=ssf, comm=srsf, compute=srsf, keys=srsf).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "policy/registry.h"
#include "policy/task/task_plugin.h"

namespace rm::task {

// True if `spec` names a task-model policy (so --exec auto picks the task model).
bool is_task_policy(const std::string& spec);
// Throws InputError naming the bad part.
TaskPolicy make_task_policy(const std::string& spec, std::uint64_t seed);
const std::vector<PolicyInfo>& task_policy_catalogue();

}  // namespace rm::task
