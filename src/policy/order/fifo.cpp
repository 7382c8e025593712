// FIFO: by submit time.
#include "policy/order/orders.h"

namespace rm {
namespace {
class Fifo final : public QueueOrder {
 public:
  std::string name() const override { return "fifo"; }
  // The submit time (the schedulers' tie-break is submit time too: the same order, decided sooner).
  bool key_fixed_while_waiting() const override { return true; }
  RunningKey running_key() const override { return RunningKey::Steps; }
  double key(const JobState& j, Time) const override { return j.arrival_s; }
  bool arrival_order() const override { return true; }
};
}  // namespace
std::unique_ptr<QueueOrder> make_fifo(PluginParams&) { return std::make_unique<Fifo>(); }
}  // namespace rm
