// SJF-BCO re-planned at every scheduling point, as a job-level scheduler (ours; the paper is offline).
#pragma once
#include <memory>

#include "policy/params.h"
#include "policy/plugin.h"

namespace rm::plan {

// Parameters: kappa (0 = loop), lambda (1), u (1).
std::unique_ptr<Scheduler> make_sjf_bco_online(PluginParams& p);

}  // namespace rm::plan
