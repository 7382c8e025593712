// AdaDUAL communication admission (Wang et al. 2020, spec A.6.4): a new all-reduce of m MB may share
// a link with one running flow of r MB left only if that lowers the pair's total completion time,
// i.e. r / m >= theta = 2(beta + eta) / beta; it never makes three flows share a link.
//
// probe=readonly (default) reads the running flow's remaining size; probe=mutating reproduces the
// authors' get_rest_size, which credits the flow an extra step of progress on every test (A.9 Q1).
// flows=all (default) tests every distinct flow on the job's servers; flows=first tests only the flow
// on the first busy server in the job's server order, as the authors' code does (A.9 Q2, A.11 item 17).
// Under --compat wang2020 the defaults become probe=mutating, flows=first.
#include <algorithm>

#include "core/error.h"
#include "policy/task/task_placements.h"

namespace rm::task {
namespace {

class AdaDual : public CommAdmission {
 public:
  AdaDual(int mutating, int first, double theta) : mutating_(mutating), first_(first), theta_(theta) {}
  std::string name() const override {
    std::string s = "adadual";
    std::string sep = ":";
    if (mutating_ >= 0) s += sep + "probe=" + (mutating_ ? "mutating" : "readonly"), sep = ";";
    if (first_ >= 0) s += sep + "flows=" + (first_ ? "first" : "all"), sep = ";";
    return s;
  }

  // A waiting job's test only gets stricter as the running flow drains; the authors' probe, though,
  // changes state on every test.
  bool stable() const override { return mutating_ != 1; }

  bool admit(const TJob& j, double t, TaskView& v) override {
    const int c = busiest_link(j, v);
    if (c == 0) return true;
    if (c >= 2) return false;
    const bool mutating = mutating_ < 0 ? v.compat() : mutating_ == 1;
    const bool first = first_ < 0 ? v.compat() : first_ == 1;
    // theta exactly as the authors compute it: (2 * (beta + eta)) / beta.
    const double theta = theta_ > 0 ? theta_ : (2.0 * (v.beta() + v.eta())) / v.beta();
    seen_.clear();
    for (int s : j.servers) {
      const auto& flows = v.server_flows(s);
      if (flows.empty()) continue;
      const int x = flows.front();  // c == 1: the only flow on this NIC
      if (std::find(seen_.begin(), seen_.end(), x) != seen_.end()) continue;  // seen on another server
      seen_.push_back(x);
      const double rest = v.probe_rest(x, t, mutating);
      if (rest / j.size < theta) return false;
      if (first) return true;
    }
    return true;
  }

 private:
  int mutating_;  // -1 = follow --compat
  int first_;     // -1 = follow --compat
  double theta_;  // 0 = 2(beta + eta) / beta
  std::vector<int> seen_;
};

}  // namespace

std::unique_ptr<CommAdmission> make_adadual(PluginParams& p) {
  const std::string probe = p.get_string("probe", "auto");
  const std::string flows = p.get_string("flows", "auto");
  if (probe != "auto" && probe != "readonly" && probe != "mutating")
    throw InputError("--policy", 0, "adadual:probe", "must be readonly or mutating");
  if (flows != "auto" && flows != "all" && flows != "first")
    throw InputError("--policy", 0, "adadual:flows", "must be all or first");
  const double theta = p.get_double("theta", 0, 0, 1e9);
  if (theta < 0) throw InputError("--policy", 0, "adadual:theta", "must be > 0");
  return std::make_unique<AdaDual>(probe == "auto" ? -1 : probe == "mutating", flows == "auto" ? -1 : flows == "first",
                                   theta);
}

}  // namespace rm::task
