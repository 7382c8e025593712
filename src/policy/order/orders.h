// Queue-order plugins, one file each.
#pragma once
#include <memory>

#include "policy/params.h"
#include "policy/plugin.h"

namespace rm {

std::unique_ptr<QueueOrder> make_fifo(PluginParams& p);
std::unique_ptr<QueueOrder> make_edf(PluginParams& p);
std::unique_ptr<QueueOrder> make_sjf(PluginParams& p);
std::unique_ptr<QueueOrder> make_shortest(PluginParams& p);
std::unique_ptr<QueueOrder> make_srtf(PluginParams& p);
std::unique_ptr<QueueOrder> make_srsf(PluginParams& p);
std::unique_ptr<QueueOrder> make_las2d(PluginParams& p);
std::unique_ptr<QueueOrder> make_las(PluginParams& p);
std::unique_ptr<QueueOrder> make_ftf(PluginParams& p);
std::unique_ptr<QueueOrder> make_themis(PluginParams& p);
std::unique_ptr<QueueOrder> make_drf(PluginParams& p);
std::unique_ptr<QueueOrder> make_tetris(PluginParams& p);
std::unique_ptr<QueueOrder> make_gittins(PluginParams& p);
std::unique_ptr<QueueOrder> make_gittins2d(PluginParams& p);
std::unique_ptr<QueueOrder> make_py_order(PluginParams& p);

// A job's share of a cluster total (drf, tetris): 0 of a resource the cluster does not book (total 0), not 0/0.
inline double share(double demand, double total) { return total > 0 ? demand / total : 0.0; }

// The first microsecond after `now` at which `j`'s attained GPU-seconds reach `threshold`, running from now on if
// it is not running yet (2d-las's queue changes, 2d-gittins's quanta).
Time first_time_attained(const JobState& j, Time now, double threshold);

}  // namespace rm
