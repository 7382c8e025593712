#include <algorithm>

#include "exec/comm_model.h"
#include "policy/planner/planner.h"

namespace rm::plan {

IterLaw physical_law(std::vector<const JobSpec*> specs, const ClusterSpec& cluster, double slot_s) {
  return [specs = std::move(specs), &cluster, slot_s](const PJob& j, const std::vector<int>& servers,
                                                        const std::vector<int>& split_on) {
    Span sp;
    sp.servers = servers;
    std::sort(sp.servers.begin(), sp.servers.end());
    return iteration_time_s(*specs[j.id], cluster, sp, [&](int s) { return split_on[s]; }) / slot_s;
  };
}

}  // namespace rm::plan
