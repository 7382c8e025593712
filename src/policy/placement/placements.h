// Placement plugins, one file each.
#pragma once
#include <memory>

#include "policy/params.h"
#include "policy/plugin.h"

namespace rm {

std::unique_ptr<Placement> make_first_fit(PluginParams& p);
std::unique_ptr<Placement> make_consolidated(PluginParams& p);
std::unique_ptr<Placement> make_random(PluginParams& p);

}  // namespace rm
