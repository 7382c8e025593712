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
    if (const int best = free.fullest_holding(n, *j.spec); best >= 0)
      return fill_in_order(*j.spec, free, std::array{best});
    std::vector<int> order;  // as many of the emptiest servers as hold n GPUs
    int got = 0;
    free.by_free_descending(*j.spec, [&](int s) {
      order.push_back(s);
      return (got += free.free_on(s)) < n;
    });
    return fill_in_order(*j.spec, free, order);
  }
};
}  // namespace
std::unique_ptr<Placement> make_consolidated(PluginParams&) { return std::make_unique<Consolidated>(); }
}  // namespace rm
