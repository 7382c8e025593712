// FTF: finish-time fairness (Themis, Mahajan et al. NSDI'20; Synergy spec S.6.1): the projected slowdown
// rho = ((now - submit) + remaining time) / total time. Preemptive. Two directions (docs/policies.md):
//   ftf (direction=synergy, the default): rho ascending, as Synergy's simulator sorts it (the least-wronged job
//       first; its goldens depend on it);
//   themis (ftf:direction=themis): rho descending, as Themis serves the job furthest behind its fair share first.
#include "core/error.h"
#include "policy/order/orders.h"

namespace rm {
namespace {
class Ftf final : public QueueOrder {
 public:
  explicit Ftf(bool themis) : themis_(themis) {}
  std::string name() const override { return themis_ ? "themis" : "ftf"; }
  double key(const JobState& j, Time now) const override {
    const double rho = ((to_seconds(now) - j.arrival_s) + j.remaining_time_s(now)) / j.total_time_s();
    return themis_ ? -rho : rho;
  }
  bool default_preemptive() const override { return true; }

 private:
  bool themis_;
};
}  // namespace
std::unique_ptr<QueueOrder> make_ftf(PluginParams& p) {
  const std::string d = p.get_string("direction", "synergy");
  if (d != "synergy" && d != "themis")
    throw InputError("--policy", 0, "ftf:direction=" + d, "must be synergy (rho ascending) or themis (rho descending)");
  return std::make_unique<Ftf>(d == "themis");
}
std::unique_ptr<QueueOrder> make_themis(PluginParams&) { return std::make_unique<Ftf>(true); }
}  // namespace rm
