// Consolidated (the default placement of every job-level order): a job keeps its shape (docs/policies.md,
// "Locality"). A job that one server of its GPU type holds waits for one server; a larger job waits for the fewest
// servers it could have on an idle cluster (k_min: the type's largest servers first). Among the placements of that
// shape:
//   - one server: the fullest such server (best fit), ties to the lower index;
//   - k_min servers: the k_min emptiest servers (free GPUs descending, ties to the lower index); if they span racks
//     and some rack holds the job on k_min of its own servers, that rack's k_min emptiest instead (the rack whose
//     k_min-th server comes first in the same walk).
// consolidated:relax=S (Philly's delay scheduling, Jeon et al. ATC'19 section 3.2): a job that has waited S seconds
// since it was last queued takes the fewest servers free now instead. `spread-ok` is relax=0: that at once (the
// default before issue 41; a job may then be spread over as many servers as the free GPUs are scattered on).
#include <algorithm>
#include <array>
#include <map>

#include "core/error.h"
#include "policy/placement/placements.h"

namespace rm {
namespace {
class Consolidated final : public Placement {
 public:
  Consolidated(std::string name, double relax_s) : name_(std::move(name)), relax_(relax_s) {}
  std::string name() const override { return name_; }
  std::optional<std::vector<GpuRef>> place(const JobState& j, const FreeMap& free) override {
    const int n = j.spec->num_gpus;
    if (free.total_free() < n) return std::nullopt;
    if (const int best = free.fullest_holding(n, *j.spec); best >= 0)
      return fill_in_order(*j.spec, free, std::array{best});
    const int k_min = relaxed(j) ? 0 : fewest_servers(*j.spec, free);
    if (k_min == 1) return std::nullopt;  // one server holds it: it waits for one
    std::vector<int> order;  // as many of the emptiest servers as hold n GPUs
    int got = 0;
    free.by_free_descending(*j.spec, [&](int s) {
      order.push_back(s);
      return (got += free.free_on(s)) < n;
    });
    if (got < n || (k_min > 0 && static_cast<int>(order.size()) > k_min)) return std::nullopt;
    if (spans_racks(free.spec(), order)) one_rack(*j.spec, free, n, order);
    return fill_in_order(*j.spec, free, order);
  }
  void begin_pass(Time now) override { now_ = now; }
  int shape_servers(const JobState& j, const FreeMap& free) override { return relaxed(j) ? 0 : fewest_servers(*j.spec, free); }
  Time next_try(const JobState& j, Time now) const override {
    if (relax_ <= 0) return kNever;
    const Time at = j.queued_since + from_seconds(relax_);
    return at > now ? at : kNever;
  }

 private:
  // Whether j may take the fewest servers free now (spread-ok, or it has waited relax_ since it was last queued).
  bool relaxed(const JobState& j) const {
    return relax_ == 0 || (relax_ > 0 && now_ - j.queued_since >= from_seconds(relax_));
  }
  // The fewest servers of the GPU type `free` shows (place_on_one_type hides the others) whose GPUs have the
  // memory j needs that hold j on an idle cluster: its largest servers first. 0 if none can.
  int fewest_servers(const JobSpec& j, const FreeMap& free) {
    const int s0 = free.next_free_server(0);
    if (s0 >= free.num_servers()) return 0;
    const ClusterSpec& c = free.spec();
    const int type = free.types().of_server[static_cast<std::size_t>(s0)];
    if (sizes_of_ != &c || sizes_servers_ != c.servers.size()) {  // per type, its servers by GPUs descending
      sizes_of_ = &c;                                                // (ties by index), once per cluster
      sizes_servers_ = c.servers.size();
      sizes_.assign(static_cast<std::size_t>(free.types().count()), {});
      for (int s = 0; s < static_cast<int>(c.servers.size()); ++s)
        sizes_[static_cast<std::size_t>(free.types().of_server[static_cast<std::size_t>(s)])].push_back(s);
      for (auto& v : sizes_)
        std::stable_sort(v.begin(), v.end(), [&](int a, int b) { return c.servers[a].gpus > c.servers[b].gpus; });
    }
    int k = 0, got = 0;
    for (int s : sizes_[static_cast<std::size_t>(type)]) {
      if (!free.fits_memory(j, s)) continue;
      ++k;
      if ((got += c.servers[static_cast<std::size_t>(s)].gpus) >= j.num_gpus) return k;
    }
    return 0;
  }
  static bool spans_racks(const ClusterSpec& c, const std::vector<int>& servers) {
    for (int s : servers)
      if (c.servers[s].rack != c.servers[servers.front()].rack) return true;
    return false;
  }
  // Replaces `order` with k servers of one rack that hold n GPUs, if a rack has them.
  static void one_rack(const JobSpec& j, const FreeMap& free, int n, std::vector<int>& order) {
    const std::size_t k = order.size();
    std::map<int, std::pair<int, std::vector<int>>> racks;  // rack -> (GPUs, its emptiest servers so far)
    free.by_free_descending(j, [&](int s) {
      auto& [gpus, servers] = racks[free.spec().servers[s].rack];
      if (servers.size() == k) return true;  // this rack cannot do it in k
      servers.push_back(s);
      if ((gpus += free.free_on(s)) < n) return true;
      order = servers;
      return false;
    });
  }
  std::string name_;
  double relax_;  // seconds; < 0: never
  Time now_ = 0;
  std::vector<std::vector<int>> sizes_;
  const ClusterSpec* sizes_of_ = nullptr;
  std::size_t sizes_servers_ = 0;
};
}  // namespace
std::unique_ptr<Placement> make_consolidated(PluginParams& p) {
  const double relax = p.get_double("relax", -1, -1, 1e9);
  if (!(relax >= 0) && relax != -1)
    throw InputError("--policy", 0, "consolidated:relax", "must be seconds >= 0 (omit it to never relax)");
  return std::make_unique<Consolidated>("consolidated", relax);
}
std::unique_ptr<Placement> make_spread_ok(PluginParams&) { return std::make_unique<Consolidated>("spread-ok", 0); }
}  // namespace rm
