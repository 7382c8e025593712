// FIFO: by submit time (the tie-break does all the work).
#include "policy/order/orders.h"

namespace rm {
namespace {
class Fifo final : public QueueOrder {
 public:
  std::string name() const override { return "fifo"; }
  double key(const JobState&, Time) const override { return 0; }
};
}  // namespace
std::unique_ptr<QueueOrder> make_fifo(PluginParams&) { return std::make_unique<Fifo>(); }
}  // namespace rm
