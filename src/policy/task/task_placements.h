// Factories of the task model's placement and admission plugins (one file each).
#pragma once
#include <memory>

#include "policy/params.h"
#include "policy/task/task_plugin.h"

namespace rm::task {

std::unique_ptr<TaskPlacement> make_task_first_fit(PluginParams& p);
std::unique_ptr<TaskPlacement> make_task_random(PluginParams& p);
std::unique_ptr<TaskPlacement> make_lwf(PluginParams& p);

std::unique_ptr<CommAdmission> make_srsf_n(PluginParams& p);
std::unique_ptr<CommAdmission> make_adadual(PluginParams& p);

}  // namespace rm::task
