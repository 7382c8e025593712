// SRSF: smallest remaining service (remaining time x GPUs) first; preemptive.
#include "policy/order/orders.h"

namespace rm {
namespace {
class Srsf final : public QueueOrder {
 public:
  std::string name() const override { return "srsf"; }
  double key(const JobState& j, Time now) const override {
    return j.remaining_time_s(now) * j.spec->num_gpus;
  }
  bool default_preemptive() const override { return true; }
};
}  // namespace
std::unique_ptr<QueueOrder> make_srsf(PluginParams&) { return std::make_unique<Srsf>(); }
}  // namespace rm
