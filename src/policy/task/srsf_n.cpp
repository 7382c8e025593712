// SRSF(n) communication admission (spec A.6.4): an all-reduce starts only if every NIC it uses
// carries at most n-1 other flows. n = 1 never shares a link; n = 2 always accepts two-way sharing.
#include "core/error.h"
#include "policy/task/task_placements.h"

namespace rm::task {
namespace {

class SrsfN : public CommAdmission {
 public:
  explicit SrsfN(int n) : n_(n) {}
  std::string name() const override { return "srsf-n:n=" + std::to_string(n_); }
  bool admit(const TJob& j, double, TaskView& v) override { return busiest_link(j, v) <= n_ - 1; }

 private:
  int n_;
};

}  // namespace

std::unique_ptr<CommAdmission> make_srsf_n(PluginParams& p) {
  const double n = p.get_double("n", 1, 1, 1e6);
  if (!(n >= 1) || n != static_cast<int>(n)) throw InputError("--policy", 0, "srsf-n:n", "must be an integer >= 1");
  return std::make_unique<SrsfN>(static_cast<int>(n));
}

}  // namespace rm::task
