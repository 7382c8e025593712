// Random: n GPUs drawn uniformly from the free GPUs the job may use, from a generator seeded by --seed.
#include "core/rng.h"
#include "policy/placement/placements.h"

namespace rm {
namespace {
class RandomPlacement final : public Placement {
 public:
  explicit RandomPlacement(std::uint64_t seed) : rng_(mix_seed(seed, 0x52414e44)) {}
  std::string name() const override { return "random"; }
  std::optional<std::vector<GpuRef>> place(const JobState& j, const FreeMap& free) override {
    const int n = j.spec->num_gpus;
    if (free.total_free() < n) return std::nullopt;
    std::vector<GpuRef> pool;
    for (int s = 0; s < free.num_servers(); ++s)
      if (free.free_on(s) > 0 && free.fits_memory(*j.spec, s))
        for (const auto& g : free.take_from(s, free.free_on(s))) pool.push_back(g);
    if (static_cast<int>(pool.size()) < n) return std::nullopt;
    // Partial Fisher-Yates: the first n entries become a uniform sample.
    for (int i = 0; i < n; ++i) std::swap(pool[i], pool[i + rng_.below(pool.size() - i)]);
    pool.resize(n);
    return pool;
  }

 private:
  Rng rng_;
};
}  // namespace
std::unique_ptr<Placement> make_random(PluginParams& p) { return std::make_unique<RandomPlacement>(p.seed()); }
}  // namespace rm
