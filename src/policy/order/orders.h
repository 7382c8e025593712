// Queue-order plugins, one file each.
#pragma once
#include <memory>

#include "policy/params.h"
#include "policy/plugin.h"

namespace rm {

std::unique_ptr<QueueOrder> make_fifo(PluginParams& p);
std::unique_ptr<QueueOrder> make_sjf(PluginParams& p);
std::unique_ptr<QueueOrder> make_shortest(PluginParams& p);
std::unique_ptr<QueueOrder> make_srtf(PluginParams& p);
std::unique_ptr<QueueOrder> make_srsf(PluginParams& p);
std::unique_ptr<QueueOrder> make_las2d(PluginParams& p);
std::unique_ptr<QueueOrder> make_las(PluginParams& p);
std::unique_ptr<QueueOrder> make_ftf(PluginParams& p);
std::unique_ptr<QueueOrder> make_drf(PluginParams& p);
std::unique_ptr<QueueOrder> make_tetris(PluginParams& p);

}  // namespace rm
