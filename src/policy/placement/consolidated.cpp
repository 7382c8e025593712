// Consolidated: fewest servers. If one server can hold the job, the fullest such server (best fit,
// ties to the lower index); otherwise servers by free GPUs descending (ties lower index).
#include <algorithm>
#include <array>

#include "policy/placement/placements.h"

namespace rm {
namespace {
class Consolidated final : public Placement {
 public:
  std::string name() const override { return "consolidated"; }
  std::optional<std::vector<GpuRef>> place(const JobState& j, const FreeMap& free) override {
    const int n = j.spec->num_gpus;
    if (free.total_free() < n) return std::nullopt;
    int best = -1;
    for (int s = 0; s < free.num_servers(); ++s)
      if (free.free_on(s) >= n && free.fits_memory(*j.spec, s) && (best < 0 || free.free_on(s) < free.free_on(best)))
        best = s;
    if (best >= 0) return fill_in_order(*j.spec, free, std::array{best});
    std::vector<int> order;
    for (int s = 0; s < free.num_servers(); ++s)
      if (free.free_on(s) > 0 && free.fits_memory(*j.spec, s)) order.push_back(s);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return free.free_on(a) > free.free_on(b); });
    return fill_in_order(*j.spec, free, order);
  }
};
}  // namespace
std::unique_ptr<Placement> make_consolidated(PluginParams&) { return std::make_unique<Consolidated>(); }
}  // namespace rm
