// Synergy-TUNE (spec S.6.5, S.10 items 18-20): best-case demand if it fits; else the job's demand capped at
// its proportional share (sigma -> 1); else shrink peers on the servers it would use down to their
// proportional shares (their round's progress is re-credited at speed 1) and place it.
#include <algorithm>
#include <queue>

#include "core/error.h"
#include "synergy/state.h"

namespace rm::synergy {

namespace {

// Downgrade test of S.10 item 18: any component above the proportional share -> the proportional demand.
bool downgrade(const Job& j, const ResCluster& cl, Vec& d) {
  const Vec& f = cl.fair();
  bool above = false;
  for (int k = 0; k < 5; ++k) above |= d[k] > f[k] * j.g;
  if (above) d = {d[kGpu], f[kCpu] * j.g, f[kMem] * j.g, f[kSto] * j.g, 0.0};
  return above;
}

// UNDERUTILISED_SERVERS (S.10 item 19): server -> GPUs to take there, in visiting order.
std::vector<std::pair<int, int>> underutilised(ResCluster& cl, int g) {
  if (g > 1)
    for (int s = 0; s < cl.num_servers(); ++s)
      if (cl.gpus_per_server() - cl.server(s).used[kGpu] >= g) return {{s, g}};
  using Entry = std::pair<int, int>;  // (free GPUs of F on the server, server id)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  for (int s = 0; s < cl.num_servers(); ++s) heap.push({cl.server(s).free_gpus, s});
  std::vector<std::pair<int, int>> out;
  int left = g;
  while (left > 0 && !heap.empty()) {
    const auto [n, s] = heap.top();
    heap.pop();
    const int k = std::min(n, left);
    if (k > 0) out.push_back({s, k});
    left -= k;
  }
  return out;
}

// PEERS_TO_SHRINK (S.6.5): walk the server's round list (stable-sorted in place) until `need` is covered.
std::vector<Job*> peers_to_shrink(ResCluster& cl, int srv, Vec need) {
  bool any = false;
  for (double x : need) any |= x != 0;
  if (!any) return {};
  auto& L = cl.server(srv).round_jobs;
  std::stable_sort(L.begin(), L.end(), [](const Job* a, const Job* b) {
    const Vec ta = a->alloc_total(), tb = b->alloc_total();
    const auto key = [](const Job* j, const Vec& t) {
      return std::make_tuple(j->servers_spanned(), -(t[kCpu] / static_cast<double>(j->gpus.size())),
                             -(t[kMem] / static_cast<double>(j->gpus.size())));
    };
    return key(a, ta) < key(b, tb);
  });
  const Vec& f = cl.fair();
  std::vector<Job*> out;
  for (Job* p : L) {
    double kp = 0;
    for (int id : p->gpus) kp += id / cl.gpus_per_server() == srv;
    const double n = static_cast<double>(p->gpus.size());
    const double share = kp / n;
    const Vec t = p->alloc_total();
    const Vec alloc = {n, t[kCpu], t[kMem], t[kSto], 0.0};
    bool all_zero = true, all_pos = true;
    Vec diff;
    for (int k = 0; k < 5; ++k) {
      const double excess = std::max(0.0, alloc[k] * share - f[k] * kp);
      diff[k] = std::max(0.0, need[k] - excess);
      all_zero &= diff[k] == 0;
      all_pos &= diff[k] > 0;
    }
    if (all_zero) {
      out.push_back(p);
      return out;
    }
    if (all_pos) continue;
    out.push_back(p);
    need = diff;
  }
  return out;
}

// Re-allocate a peer on the same GPUs at (at most) its proportional share; progress re-credited at speed 1.
void shrink(PassCtx& ctx, Job& p) {
  ResCluster& cl = ctx.cl;
  const std::vector<int> gpus = p.gpus;
  cl.release(p);
  ctx.rollback(p);
  Vec d = best_case_demand(p);
  if (downgrade(p, cl, d)) p.sigma = 1;
  std::vector<std::pair<int, Vec>> res;
  for (int id : gpus) {
    const int s = id / cl.gpus_per_server();
    if (res.empty() || res.back().first != s) res.push_back({s, Vec{}});
    res.back().second[kGpu] += 1;
  }
  for (auto& [s, v] : res) {
    const double share = v[kGpu] / p.g;
    for (int k = 0; k < 4; ++k) v[k] = d[k] * share;
  }
  cl.assign(p, gpus, res);
  p.speed = ctx.matrix_speed ? speed_of(p, d, ctx, false) : 1.0;
  ctx.credit(p, !ctx.matrix_speed);
}

}  // namespace

bool allocate_tune(PassCtx& ctx, Job& j) {
  ResCluster& cl = ctx.cl;
  Vec d = best_case_demand(j);
  if (cl.first_fit(j, d, ctx.consolidated)) {
    j.speed = speed_of(j, d, ctx, true);
    ctx.credit(j, false);
    return true;
  }
  const bool down = downgrade(j, cl, d);
  if (down) j.sigma = 1;
  const auto placed = [&] {
    j.speed = speed_of(j, d, ctx, !down);
    ctx.credit(j, false);
    return true;
  };
  if (cl.first_fit(j, d, ctx.consolidated)) return placed();
  if (!ctx.allow_peers) return false;
  for (const auto& [srv, k] : underutilised(cl, j.g)) {
    const Vec free = cl.avail(srv);
    Vec need;
    const double frac = static_cast<double>(k) / j.g;
    for (int x = 0; x < 5; ++x) need[x] = std::max(0.0, d[x] * frac - free[x]);
    for (Job* p : peers_to_shrink(cl, srv, need)) shrink(ctx, *p);
  }
  if (cl.first_fit(j, d, ctx.consolidated)) return placed();
  if (ctx.compat)
    throw InvariantError("TUNE could not place job " + std::to_string(j.id) +
                         " after shrinking its peers (the authors' simulator exits here)");
  return false;
}

}  // namespace rm::synergy
