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
  // Remaining work only shrinks while the job runs, and stays put while it waits.
  bool key_fixed_while_waiting() const override { return true; }
  RunningKey running_key() const override { return RunningKey::Falls; }
};
}  // namespace
std::unique_ptr<QueueOrder> make_srsf(PluginParams&) { return std::make_unique<Srsf>(); }
}  // namespace rm
