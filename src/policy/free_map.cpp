#include <algorithm>

#include "core/error.h"
#include "policy/plugin.h"

namespace rm {

FreeMap::FreeMap(const Cluster& c)
    : spec_(&c.spec()),
      offset_(&c.gpu_offsets()),
      count_(c.free_gpus_per_server()),
      cpus_(c.free_cpus_per_server()),
      mem_(c.free_mem_per_server()),
      total_(c.free_gpus()) {
  const std::vector<JobId>& own = c.owners();
  free_.resize(own.size());
  for (size_t k = 0; k < own.size(); ++k) free_[k] = own[k] == kNoJob;
}

std::vector<GpuRef> FreeMap::take_from(int s, int n) const {
  std::vector<GpuRef> out;
  const int base = (*offset_)[s], gpus = (*offset_)[s + 1] - base;
  out.reserve(n);
  for (int g = 0; g < gpus && static_cast<int>(out.size()) < n; ++g)
    if (free_[base + g]) out.push_back({s, g});
  return out;
}

void FreeMap::take(const std::vector<GpuRef>& gpus) {
  for (const auto& g : gpus) {
    char& f = free_[(*offset_)[g.server] + g.gpu];
    if (!f) throw InvariantError("placement chose a GPU that is not free");
    f = 0;
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

void FreeMap::add_peers(const std::vector<const JobState*>& running) {
  for (const JobState* j : running)
    if (!j->shares.empty()) peers_.push_back({j, j->shares, false});
}

void FreeMap::shrink_peers(int s, double cpus, double mem) {
  const ServerSpec& sv = spec_->servers[s];
  const double per_c = sv.gpus > 0 ? static_cast<double>(sv.cpus) / sv.gpus : 0;
  const double per_m = sv.gpus > 0 ? sv.dram_gb / sv.gpus : 0;
  for (auto it = peers_.rbegin(); it != peers_.rend() && (cpus > 1e-12 || mem > 1e-12); ++it)
    for (auto& sh : it->shares) {
      if (sh.server != s) continue;
      int g = 0;
      for (const auto& x : it->job->gpus) g += x.server == s;
      const double dc = std::min(std::max(0.0, cpus), std::max(0.0, sh.cpus - g * per_c));
      const double dm = std::min(std::max(0.0, mem), std::max(0.0, sh.mem_gb - g * per_m));
      if (dc <= 0 && dm <= 0) continue;
      sh.cpus -= dc;
      sh.mem_gb -= dm;
      cpus_[s] += dc;
      mem_[s] += dm;
      cpus -= dc;
      mem -= dm;
      it->changed = true;
    }
}

std::vector<ResizeDecision> FreeMap::resized() const {
  std::vector<ResizeDecision> out;
  for (const auto& p : peers_)
    if (p.changed) out.push_back({p.job->id(), p.shares});
  return out;
}

void FreeMap::give(const std::vector<GpuRef>& gpus) {
  for (const auto& g : gpus) {
    char& f = free_[(*offset_)[g.server] + g.gpu];
    if (f) throw InvariantError("GPU given back twice");
    f = 1;
    ++count_[g.server];
    ++total_;
  }
}

}  // namespace rm
