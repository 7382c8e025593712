// SJF in the GPU sense: fewest GPUs first (ties FIFO).
#include "policy/order/orders.h"

namespace rm {
namespace {
class Sjf final : public QueueOrder {
 public:
  std::string name() const override { return "sjf"; }
  bool key_fixed_while_waiting() const override { return true; }
  RunningKey running_key() const override { return RunningKey::Steps; }
  double key(const JobState& j, Time) const override { return j.spec->num_gpus; }
};
}  // namespace
std::unique_ptr<QueueOrder> make_sjf(PluginParams&) { return std::make_unique<Sjf>(); }
}  // namespace rm
