#include "core/error.h"
#include "policy/plugin.h"

namespace rm {

FreeMap::FreeMap(const Cluster& c) : spec_(&c.spec()) {
  free_.resize(c.num_servers());
  count_.resize(c.num_servers());
  for (int s = 0; s < c.num_servers(); ++s) {
    free_[s].resize(c.server(s).gpus);
    for (int g = 0; g < c.server(s).gpus; ++g) free_[s][g] = c.is_free({s, g});
    count_[s] = c.free_gpus(s);
    cpus_.push_back(c.free_cpus(s));
    mem_.push_back(c.free_mem_gb(s));
    total_ += count_[s];
  }
}

std::vector<GpuRef> FreeMap::take_from(int s, int n) const {
  std::vector<GpuRef> out;
  for (int g = 0; g < static_cast<int>(free_[s].size()) && static_cast<int>(out.size()) < n; ++g)
    if (free_[s][g]) out.push_back({s, g});
  return out;
}

void FreeMap::take(const std::vector<GpuRef>& gpus) {
  for (const auto& g : gpus) {
    if (!free_[g.server][g.gpu]) throw InvariantError("placement chose a GPU that is not free");
    free_[g.server][g.gpu] = 0;
    --count_[g.server];
    --total_;
  }
}

void FreeMap::take_shares(const std::vector<ServerShare>& sh) {
  for (const auto& x : sh) {
    cpus_[x.server] -= x.cpus;
    mem_[x.server] -= x.mem_gb;
  }
}

void FreeMap::give_shares(const std::vector<ServerShare>& sh) {
  for (const auto& x : sh) {
    cpus_[x.server] += x.cpus;
    mem_[x.server] += x.mem_gb;
  }
}

void FreeMap::give(const std::vector<GpuRef>& gpus) {
  for (const auto& g : gpus) {
    if (free_[g.server][g.gpu]) throw InvariantError("GPU given back twice");
    free_[g.server][g.gpu] = 1;
    ++count_[g.server];
    ++total_;
  }
}

}  // namespace rm
