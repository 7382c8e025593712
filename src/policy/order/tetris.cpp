// Tetris (Synergy spec S.6.1): smallest sum over GPUs, CPUs and DRAM of (share of the cluster) x remaining
// time first: packs small, short jobs first. Preemptive.
#include "policy/order/orders.h"

namespace rm {
namespace {
class Tetris final : public QueueOrder {
 public:
  std::string name() const override { return "tetris"; }
  void bind(const ClusterTotals& t) override { t_ = t; }
  double key(const JobState& j, Time now) const override {
    const double r = j.remaining_time_s(now);
    return ((0 + (j.spec->num_gpus / t_.gpus) * r) + (j.cpu_demand / t_.cpus) * r) + (j.mem_demand / t_.mem_gb) * r;
  }
  bool default_preemptive() const override { return true; }

 private:
  ClusterTotals t_{1, 1, 1};
};
}  // namespace
std::unique_ptr<QueueOrder> make_tetris(PluginParams&) { return std::make_unique<Tetris>(); }
}  // namespace rm
