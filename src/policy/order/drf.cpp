// DRF: smallest dominant share first, the job's largest share of the cluster's GPUs, CPUs or DRAM (its
// best-case demand where the backend knows one; Synergy spec S.6.1). A static key, non-preemptive. A resource the
// cluster does not book is a share of 0.
#include <algorithm>

#include "policy/order/orders.h"

namespace rm {
namespace {
class Drf final : public QueueOrder {
 public:
  std::string name() const override { return "drf"; }
  void bind(const ClusterTotals& t) override { t_ = t; }
  double key(const JobState& j, Time) const override {
    return std::max({share(j.spec->num_gpus, t_.gpus), share(j.cpu_demand, t_.cpus), share(j.mem_demand, t_.mem_gb)});
  }
  // The job's demand alone: fixed while it waits and while it runs (indexes kept across passes).
  bool key_fixed_while_waiting() const override { return true; }
  RunningKey running_key() const override { return RunningKey::Steps; }

 private:
  ClusterTotals t_{1, 1, 1};
};
}  // namespace
std::unique_ptr<QueueOrder> make_drf(PluginParams&) { return std::make_unique<Drf>(); }
}  // namespace rm
