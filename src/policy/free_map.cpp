#include <algorithm>
#include <memory>

#include "core/error.h"
#include "policy/plugin.h"

namespace rm {

namespace {

// Overlays not in use, per thread: a FreeMap takes one (or makes one) and gives it back when it dies, so
// FreeMaps alive at the same time never share one.
std::vector<std::unique_ptr<FreeMap::Overlay>>& pool() {
  thread_local std::vector<std::unique_ptr<FreeMap::Overlay>> p;
  return p;
}

}  // namespace

FreeMap::FreeMap(const Cluster& c)
    : cluster_(&c),
      spec_(&c.spec()),
      offset_(&c.gpu_offsets()),
      owners_(&c.owners()),
      count_(&c.free_gpus_per_server()),
      cpus_(&c.free_cpus_per_server()),
      mem_(&c.free_mem_per_server()),
      servers_(c.num_servers()),
      total_(c.free_gpus()) {
  auto& p = pool();
  if (p.empty()) p.push_back(std::make_unique<Overlay>());
  o_ = p.back().release();
  p.pop_back();
  const std::size_t gpus = owners_->size(), servers = static_cast<std::size_t>(servers_);
  if (o_->free_gen.size() < gpus) {  // new entries get generation 0, older than any FreeMap's
    o_->free_gen.resize(gpus, 0);
    o_->free.resize(gpus);
  }
  if (o_->count_gen.size() < servers) {
    o_->count_gen.resize(servers, 0);
    o_->count.resize(servers);
    o_->res_gen.resize(servers, 0);
    o_->cpus.resize(servers);
    o_->mem.resize(servers);
  }
  gen_ = ++o_->gen;
}

const GpuTypes& FreeMap::types() const { return cluster_->types(); }

FreeMap::~FreeMap() { pool().emplace_back(o_); }

void FreeMap::set_count(int s, int v) {
  if (!touched(s)) {
    touched_.push_back(s);
    if ((*count_)[s] == 0) raised_.push_back(s);
  }
  o_->count_gen[s] = gen_;
  o_->count[s] = v;
}

void FreeMap::set_res(int s, double cpus, double mem) {
  o_->res_gen[s] = gen_;
  o_->cpus[s] = cpus;
  o_->mem[s] = mem;
}

int FreeMap::next_free_server(int from) const {
  const ServerBits& full = cluster_->servers_with_free(0);
  int best = full.next_absent(from);
  while (best < servers_ && free_on(best) == 0) best = full.next_absent(best + 1);
  for (int s : raised_)  // given GPUs back on a server the cluster has full
    if (s >= from && s < best && free_on(s) > 0) best = s;
  return best;
}

int FreeMap::fullest_holding(int n, const JobSpec& j) const {
  for (int c = n; c <= cluster_->max_server_gpus(); ++c) {
    int best = servers_;
    for (int s : touched_)
      if (s < best && free_on(s) == c && fits_memory(j, s)) best = s;
    const ServerBits& bits = cluster_->servers_with_free(c);
    for (int s = bits.next(0); s < best; s = bits.next(s + 1))
      if (!touched(s) && fits_memory(j, s)) {
        best = s;
        break;
      }
    if (best < servers_) return best;
  }
  return -1;
}

std::vector<GpuRef> FreeMap::take_from(int s, int n) const {
  std::vector<GpuRef> out;
  const int gpus = (*offset_)[s + 1] - (*offset_)[s];
  out.reserve(n);
  for (int g = 0; g < gpus && static_cast<int>(out.size()) < n; ++g)
    if (is_free({s, g})) out.push_back({s, g});
  return out;
}

void FreeMap::take(const std::vector<GpuRef>& gpus) {
  for (const auto& g : gpus) {
    if (!is_free(g)) throw InvariantError("placement chose a GPU that is not free");
    const int k = (*offset_)[g.server] + g.gpu;
    o_->free_gen[k] = gen_;
    o_->free[k] = 0;
    set_count(g.server, free_on(g.server) - 1);
    --total_;
  }
}

void FreeMap::take_shares(const std::vector<ServerShare>& sh) {
  for (const auto& x : sh) set_res(x.server, free_cpus(x.server) - x.cpus, free_mem_gb(x.server) - x.mem_gb);
}

void FreeMap::give_shares(const std::vector<ServerShare>& sh) {
  for (const auto& x : sh) set_res(x.server, free_cpus(x.server) + x.cpus, free_mem_gb(x.server) + x.mem_gb);
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
      set_res(s, free_cpus(s) + dc, free_mem_gb(s) + dm);
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
    if (is_free(g)) throw InvariantError("GPU given back twice");
    const int k = (*offset_)[g.server] + g.gpu;
    o_->free_gen[k] = gen_;
    o_->free[k] = 1;
    set_count(g.server, free_on(g.server) + 1);
    ++total_;
  }
}

}  // namespace rm
