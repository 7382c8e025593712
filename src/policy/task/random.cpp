// Random placement (spec A.6.3): shuffle the eligible GPUs, take the first n. Seeded by --seed (the
// authors' generator was unseeded, so their random rows cannot be reproduced exactly).
#include "core/rng.h"
#include "policy/task/task_placements.h"

namespace rm::task {
namespace {

class RandomPlacement : public TaskPlacement {
 public:
  explicit RandomPlacement(std::uint64_t seed) : rng_(mix_seed(seed, 0x7a5c)) {}
  std::string name() const override { return "random"; }
  bool place(const TJob& j, const TaskView& v, std::vector<int>& out) override {
    const std::vector<double>& free = v.free_mem();
    std::vector<int> e;
    for (int i = 0; i < static_cast<int>(free.size()); ++i)
      if (free[i] >= j.mem) e.push_back(i);
    rng_.shuffle(e.begin(), e.end());  // like the authors' code: shuffled even when too few are eligible
    if (static_cast<int>(e.size()) < j.n) return false;
    out.assign(e.begin(), e.begin() + j.n);
    return true;
  }

 private:
  Rng rng_;
};

}  // namespace

std::unique_ptr<TaskPlacement> make_task_random(PluginParams& p) { return std::make_unique<RandomPlacement>(p.seed()); }

}  // namespace rm::task
