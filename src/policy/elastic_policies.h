// Elastic whole schedulers on the job-level engine (issue 43; docs/elastic.md): they give running elastic jobs
// other GPU counts through Decisions::reallocate. Rigid jobs take part at the count they ask for.
#pragma once
#include <memory>

#include "policy/params.h"
#include "policy/plugin.h"

namespace rm {

// Optimus+Oracle (policy/optimus.cpp): round= seconds (60).
std::unique_ptr<Scheduler> make_optimus(PluginParams& p);

}  // namespace rm
