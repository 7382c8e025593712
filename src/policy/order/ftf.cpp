// FTF: finish-time fairness (Themis; Synergy spec S.6.1): the projected slowdown
// key ((now - submit) + remaining time) / total time, sorted ascending as Synergy does. Preemptive.
#include "policy/order/orders.h"

namespace rm {
namespace {
class Ftf final : public QueueOrder {
 public:
  std::string name() const override { return "ftf"; }
  double key(const JobState& j, Time now) const override {
    return ((to_seconds(now) - j.arrival_s) + j.remaining_time_s(now)) / j.total_time_s();
  }
  bool default_preemptive() const override { return true; }
};
}  // namespace
std::unique_ptr<QueueOrder> make_ftf(PluginParams&) { return std::make_unique<Ftf>(); }
}  // namespace rm
