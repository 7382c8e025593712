// Shortest job (total duration on the ideal placement) first; a static key, non-preemptive.
#include "policy/order/orders.h"

namespace rm {
namespace {
class Shortest final : public QueueOrder {
 public:
  std::string name() const override { return "shortest"; }
  bool key_fixed_while_waiting() const override { return true; }
  RunningKey running_key() const override { return RunningKey::Steps; }
  double key(const JobState& j, Time) const override { return j.total_time_s(); }
};
}  // namespace
std::unique_ptr<QueueOrder> make_shortest(PluginParams&) { return std::make_unique<Shortest>(); }
}  // namespace rm
