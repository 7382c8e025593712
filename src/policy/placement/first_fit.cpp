// First-fit: walk servers in index order, take their free GPUs (lowest index first) until the job
// has all it asked for. May split a job over servers even when one server could hold it.

#include "policy/placement/placements.h"

namespace rm {
namespace {
class FirstFit final : public Placement {
 public:
  std::string name() const override { return "first-fit"; }
  std::optional<std::vector<GpuRef>> place(const JobState& j, const FreeMap& free) override {
    if (free.total_free() < j.spec->num_gpus) return std::nullopt;
    return fill_in_order(*j.spec, free, free_servers(free));
  }
};
}  // namespace
std::unique_ptr<Placement> make_first_fit(PluginParams&) { return std::make_unique<FirstFit>(); }
}  // namespace rm
