// Placement plugins, one file each.
#pragma once
#include <memory>

#include "policy/params.h"
#include "policy/plugin.h"

namespace rm {

// Takes free GPUs server by server in the given order (lowest GPU index first within a server),
// skipping servers without enough GPU memory, until the job has all it asked for.
template <class Servers>
std::optional<std::vector<GpuRef>> fill_in_order(const JobSpec& j, const FreeMap& free, const Servers& servers) {
  const int n = j.num_gpus;
  std::vector<GpuRef> out;
  for (int s : servers) {
    if (static_cast<int>(out.size()) >= n) break;
    if (free.free_on(s) == 0 || !free.fits_memory(j, s)) continue;
    for (const auto& g : free.take_from(s, n - static_cast<int>(out.size()))) out.push_back(g);
  }
  if (static_cast<int>(out.size()) < n) return std::nullopt;
  return out;
}

std::unique_ptr<Placement> make_first_fit(PluginParams& p);
std::unique_ptr<Placement> make_consolidated(PluginParams& p);
std::unique_ptr<Placement> make_random(PluginParams& p);

}  // namespace rm
