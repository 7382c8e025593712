// LAS: least attained service (GPU-seconds) first, continuous: Synergy's LAS (spec S.6.1) and the classic
// definition. Preemptive; re-evaluated at every event or round (2d-las is Tiresias' discretised version).
#include "policy/order/orders.h"

namespace rm {
namespace {
class Las final : public QueueOrder {
 public:
  std::string name() const override { return "las"; }
  double key(const JobState& j, Time now) const override { return j.attained_gpu_s(now); }
  bool key_fixed_while_waiting() const override { return true; }  // a waiting job attains nothing
  bool default_preemptive() const override { return true; }
  bool fair_share() const override { return true; }
};
}  // namespace
std::unique_ptr<QueueOrder> make_las(PluginParams&) { return std::make_unique<Las>(); }
}  // namespace rm
