// First-fit by memory ("bp" in the authors' code, spec A.6.3): the first n eligible GPUs in the fixed
// server-major order. With shared GPUs this piles jobs onto the lowest-numbered GPUs.
#include "cluster/first_fit_walk.h"
#include "policy/task/task_placements.h"

namespace rm::task {
namespace {

class FirstFit : public TaskPlacement {
 public:
  std::string name() const override { return "first-fit"; }
  bool pure(bool) const override { return true; }
  bool place(const TJob& j, const TaskView& v, std::vector<int>& out) override {
    if (v.eligible_count(j.mem) < j.n) return false;
    out.clear();
    const std::vector<double>& free = v.free_mem();
    // The one first-fit walk over the GPUs in their server-major order (cluster/first_fit_walk.h).
    first_fit_walk(ServerRange{1}, j.n, [&](int) { return static_cast<int>(free.size()); }, [&](int, int i) {
      if (free[i] < j.mem) return FitStep::kSkip;
      out.push_back(i);
      return FitStep::kTake;
    });
    return true;
  }
};

}  // namespace

std::unique_ptr<TaskPlacement> make_task_first_fit(PluginParams&) { return std::make_unique<FirstFit>(); }

}  // namespace rm::task
