// First-fit: walk servers in index order, take their free GPUs (lowest index first) until the job
// has all it asked for. May split a job over servers even when one server could hold it.
#include "policy/placement/placements.h"

namespace rm {
namespace {
class FirstFit final : public Placement {
 public:
  std::string name() const override { return "first-fit"; }
  std::optional<std::vector<GpuRef>> place(const JobState& j, const FreeMap& free) override {
    const int n = j.spec->num_gpus;
    if (free.total_free() < n) return std::nullopt;
    std::vector<GpuRef> out;
    for (int s = 0; s < free.num_servers() && static_cast<int>(out.size()) < n; ++s) {
      if (free.free_on(s) == 0 || !free.fits_memory(*j.spec, s)) continue;
      for (const auto& g : free.take_from(s, n - static_cast<int>(out.size()))) out.push_back(g);
    }
    if (static_cast<int>(out.size()) < n) return std::nullopt;
    return out;
  }
};
}  // namespace
std::unique_ptr<Placement> make_first_fit(PluginParams&) { return std::make_unique<FirstFit>(); }
}  // namespace rm
