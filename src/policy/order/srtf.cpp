// SRTF: shortest remaining time (on the ideal placement) first; preemptive.
#include "policy/order/orders.h"

namespace rm {
namespace {
class Srtf final : public QueueOrder {
 public:
  std::string name() const override { return "srtf"; }
  double key(const JobState& j, Time now) const override { return j.remaining_time_s(now); }
  bool default_preemptive() const override { return true; }
  // Remaining work only shrinks while the job runs, and stays put while it waits.
  bool key_fixed_while_waiting() const override { return true; }
  RunningKey running_key() const override { return RunningKey::Falls; }
};
}  // namespace
std::unique_ptr<QueueOrder> make_srtf(PluginParams&) { return std::make_unique<Srtf>(); }
}  // namespace rm
