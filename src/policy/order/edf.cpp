// EDF: earliest deadline first (the trace's deadline_s; docs/formats.md). Jobs without a deadline come after every job
// with one, in submit order (the schedulers' tie-break). Non-preemptive by default, as fifo; +preempt makes it
// preemptive EDF.
#include <limits>

#include "policy/order/orders.h"

namespace rm {
namespace {
class Edf final : public QueueOrder {
 public:
  std::string name() const override { return "edf"; }
  bool key_fixed_while_waiting() const override { return true; }
  RunningKey running_key() const override { return RunningKey::Steps; }
  double key(const JobState& j, Time) const override {
    return j.spec->deadline_s >= 0 ? j.spec->deadline_s : std::numeric_limits<double>::infinity();
  }
};
}  // namespace
std::unique_ptr<QueueOrder> make_edf(PluginParams&) { return std::make_unique<Edf>(); }
}  // namespace rm
