// Consolidated (the default placement of every job-level order): fewest servers, then fewest racks.
//   - one server holds the job: the fullest such server (best fit), ties to the lower index;
//   - else the k emptiest servers, k the fewest that hold it (free GPUs descending, ties to the lower index);
//     if they span racks and some rack holds the job on k of its own servers, that rack's k emptiest instead
//     (the rack whose k-th server comes first in the same walk).
#include <algorithm>
#include <array>
#include <map>

#include "policy/placement/placements.h"

namespace rm {
namespace {
class Consolidated final : public Placement {
 public:
  std::string name() const override { return "consolidated"; }
  std::optional<std::vector<GpuRef>> place(const JobState& j, const FreeMap& free) override {
    const int n = j.spec->num_gpus;
    if (free.total_free() < n) return std::nullopt;
    if (const int best = free.fullest_holding(n, *j.spec); best >= 0)
      return fill_in_order(*j.spec, free, std::array{best});
    std::vector<int> order;  // as many of the emptiest servers as hold n GPUs
    int got = 0;
    free.by_free_descending(*j.spec, [&](int s) {
      order.push_back(s);
      return (got += free.free_on(s)) < n;
    });
    if (got >= n && spans_racks(free.spec(), order)) one_rack(*j.spec, free, n, order);
    return fill_in_order(*j.spec, free, order);
  }

 private:
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
};
}  // namespace
std::unique_ptr<Placement> make_consolidated(PluginParams&) { return std::make_unique<Consolidated>(); }
}  // namespace rm
