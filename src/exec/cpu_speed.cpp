#include "exec/cpu_speed.h"

namespace rm {

double cpu_speed(const JobState& j, const std::vector<ServerShare>& shares, const ClusterSpec& c, bool matrix) {
  if (!j.cpu_profile || shares.empty()) return 1.0;
  const double g = j.spec->num_gpus;
  double cpus = 0, mem = 0;
  for (const auto& s : shares) {
    cpus += s.cpus;
    mem += s.mem_gb;
  }
  if (!matrix) {
    constexpr double eps = 1e-9;
    return cpus + eps >= j.cpu_demand && mem + eps >= j.mem_demand ? j.best_speedup : 1.0;
  }
  const ServerSpec& s0 = c.servers.at(shares.front().server);
  const double fair = j.cpu_profile->tput_at(static_cast<double>(s0.cpus) / s0.gpus, s0.dram_gb / s0.gpus);
  const double mine = j.cpu_profile->tput_at(cpus / g, mem / g);
  return fair > 0 && mine > 0 ? mine / fair : 1.0;
}

}  // namespace rm
