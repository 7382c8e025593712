// place_on_one_type (placements.h): any placement, on a cluster of several GPU types, one type at a time.
#include "policy/placement/placements.h"

namespace rm {

std::optional<std::vector<GpuRef>> place_on_one_type(Placement& p, const JobState& j, FreeMap& free) {
  const GpuTypes& types = free.types();
  if (types.count() <= 1) return p.place(j, free);
  const int pinned = j.spec->gpu_type.empty() ? -1 : types.index(j.spec->gpu_type);
  std::vector<GpuRef> hidden;
  for (int t : types.by_speed) {
    if (pinned >= 0 && t != pinned) continue;
    hidden.clear();
    for (int s = free.next_free_server(0); s < free.num_servers(); s = free.next_free_server(s + 1))
      if (types.of_server[static_cast<std::size_t>(s)] != t)
        for (int g = 0; g < free.spec().servers[static_cast<std::size_t>(s)].gpus; ++g)
          if (free.is_free({s, g})) hidden.push_back({s, g});
    if (free.total_free() - static_cast<int>(hidden.size()) < j.spec->num_gpus) continue;
    free.take(hidden);
    auto gpus = p.place(j, free);
    free.give(hidden);
    if (gpus) return gpus;
  }
  return std::nullopt;
}

}  // namespace rm
