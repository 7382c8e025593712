// The task model's policy (--exec task) built from a parsed PolicySpec of the Task family
// (policy/policy_spec.h: presets, the authors' "<queue>-<placement>-<key>-<thres>-<adaDual>" strings and
// "base+part+part" compositions are expanded there; the names live in the one registry, policy/registry.h).
#pragma once
#include <cstdint>
#include <string>

#include "policy/policy_spec.h"
#include "policy/task/task_plugin.h"

namespace rm::task {

// Throws InputError naming the bad parameter.
TaskPolicy make_task_policy(const PolicySpec& spec, std::uint64_t seed);
// parse_task_policy_spec, then make_task_policy (tests, benchmarks): the text is task parts over Ada-SRSF.
TaskPolicy make_task_policy(const std::string& text, std::uint64_t seed);
// True if `text` parses as a task-model policy (tests).
bool is_task_policy(const std::string& text);

}  // namespace rm::task
