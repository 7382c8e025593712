// Tetris (Synergy spec S.6.1): smallest sum over GPUs, CPUs and DRAM of (share of the cluster) x remaining
// time first: packs small, short jobs first. Preemptive. A resource the cluster does not book (no CPUs or DRAM in its
// spec) is a share of 0, not 0/0 (a NaN key orders nothing).
#include "policy/order/orders.h"

namespace rm {
namespace {
class Tetris final : public QueueOrder {
 public:
  std::string name() const override { return "tetris"; }
  void bind(const ClusterTotals& t) override { t_ = t; }
  double key(const JobState& j, Time now) const override {
    const double r = j.remaining_time_s(now);
    return ((0 + share(j.spec->num_gpus, t_.gpus) * r) + share(j.cpu_demand, t_.cpus) * r) + share(j.mem_demand, t_.mem_gb) * r;
  }
  bool default_preemptive() const override { return true; }
  // Fixed shares times the remaining time (srtf's key): put while the job waits, never rising while it runs.
  bool key_fixed_while_waiting() const override { return true; }
  RunningKey running_key() const override { return RunningKey::Falls; }

 private:
  ClusterTotals t_{1, 1, 1};
};
}  // namespace
std::unique_ptr<QueueOrder> make_tetris(PluginParams&) { return std::make_unique<Tetris>(); }
}  // namespace rm
