// Synergy-TUNE (spec S.6.5) on the job-level engine, in two steps per decision pass. First every job that
// starts gets, on each server of its placement, min(best case, GPU-proportional share); where even that is
// not free, running peers there that hold more than their proportional share are shrunk toward it (resize
// decisions, newest peers first). Then, in priority order, each starting job is topped up to its best case
// from what is still free. So nobody is left below min(best case, proportional), no GPU idles for want of
// CPUs (the floors always fit), and spare CPUs and DRAM go to the jobs that profit: TUNE's guarantees, with
// peers shrunk at the decision that needs it instead of at a round boundary.
// On the round model, the authors' TUNE (spec S.6.5, S.10 items 18-20): best-case demand if it fits; else the
// job's demand capped at its proportional share (sigma -> 1); else shrink peers on the servers it would use
// down to their proportional shares (their round's progress is re-credited at speed 1) and place it.
#include <algorithm>
#include <queue>
#include <tuple>

#include "core/error.h"
#include "policy/allocation/allocations.h"
#include "policy/allocation/round_pass.h"

namespace rm {

bool tune_floor(const JobState& j, StartDecision& d, FreeMap& free) {
  std::vector<ServerShare> sh;
  for (const auto& x : share_needs(j, d.gpus, free.spec())) {
    const double need_c = std::min(x.best_cpus, x.prop_cpus), need_m = std::min(x.best_mem, x.prop_mem);
    const double short_c = need_c - free.free_cpus(x.server), short_m = need_m - free.free_mem_gb(x.server);
    if (short_c > 0 || short_m > 0) free.shrink_peers(x.server, std::max(0.0, short_c), std::max(0.0, short_m));
    sh.push_back({x.server, need_c, need_m});
  }
  return commit_shares(std::move(sh), d, free);
}

void top_up(StartDecision& d, const std::vector<ServerShare>& target, FreeMap& free) {
  for (std::size_t i = 0; i < target.size() && i < d.shares.size(); ++i) {
    ServerShare& sh = d.shares[i];
    const double add_c = std::clamp(target[i].cpus - sh.cpus, 0.0, std::max(0.0, free.free_cpus(sh.server)));
    const double add_m = std::clamp(target[i].mem_gb - sh.mem_gb, 0.0, std::max(0.0, free.free_mem_gb(sh.server)));
    free.take_shares({{sh.server, add_c, add_m}});
    sh.cpus += add_c;
    sh.mem_gb += add_m;
  }
}

}  // namespace rm

namespace rm::synergy {
namespace {

// Downgrade test of S.10 item 18: any component above the proportional share -> the proportional demand.
bool downgrade(const Job& j, const RoundPass& pass, Vec& d) {
  const Vec& f = pass.fair();
  bool above = false;
  for (int k = 0; k < 5; ++k) above |= d[k] > f[k] * j.g;
  if (above) d = {d[kGpu], f[kCpu] * j.g, f[kMem] * j.g, f[kSto] * j.g, 0.0};
  return above;
}

// UNDERUTILISED_SERVERS (S.10 item 19): server -> GPUs to take there, in visiting order.
std::vector<std::pair<int, int>> underutilised(const RoundPass& pass, int g) {
  if (g > 1)
    for (int s = 0; s < pass.num_servers(); ++s)
      if (pass.free_gpus(s) >= g) return {{s, g}};
  using Entry = std::pair<int, int>;  // (free GPUs on the server, server id)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  for (int s = 0; s < pass.num_servers(); ++s) heap.push({pass.free_gpus(s), s});
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

// The order PEERS_TO_SHRINK walks a server's round list in: fewest servers spanned, then most CPUs and DRAM
// per GPU.
void sort_peers(std::vector<Job*>& L) {
  std::stable_sort(L.begin(), L.end(), [](const Job* a, const Job* b) {
    const Vec ta = a->alloc_total(), tb = b->alloc_total();
    const auto key = [](const Job* j, const Vec& t) {
      return std::make_tuple(j->servers_spanned(), -(t[kCpu] / static_cast<double>(j->gpus.size())),
                             -(t[kMem] / static_cast<double>(j->gpus.size())));
    };
    return key(a, ta) < key(b, tb);
  });
}

// PEERS_TO_SHRINK (S.6.5): walk the server's round list (stable-sorted in place) until `need` is covered.
std::vector<Job*> peers_to_shrink(RoundPass& pass, int srv, Vec need) {
  bool any = false;
  for (double x : need) any |= x != 0;
  if (!any) return {};
  auto& L = pass.round_jobs(srv);
  sort_peers(L);
  const Vec& f = pass.fair();
  std::vector<Job*> out;
  for (Job* p : L) {
    double kp = 0;
    for (int id : p->gpus) kp += id / pass.gpus_per_server() == srv;
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
void shrink(RoundPass& pass, Job& p) {
  const std::vector<int> gpus = p.gpus;
  pass.release(p);
  pass.rollback(p);
  Vec d = best_case_demand(p);
  if (downgrade(p, pass, d)) p.sigma = 1;
  std::vector<std::pair<int, Vec>> res;
  for (int id : gpus) {
    const int s = id / pass.gpus_per_server();
    if (res.empty() || res.back().first != s) res.push_back({s, Vec{}});
    res.back().second[kGpu] += 1;
  }
  for (auto& [s, v] : res) {
    const double share = v[kGpu] / p.g;
    for (int k = 0; k < 4; ++k) v[k] = d[k] * share;
  }
  pass.assign(p, gpus, res);
  p.speed = pass.matrix_speed ? speed_of(p, d, pass, false) : 1.0;
  pass.credit(p, !pass.matrix_speed);
}

}  // namespace

bool tune_round(RoundPass& pass, Job& j) {
  Vec d = best_case_demand(j);
  if (pass.first_fit(j, d)) {
    j.speed = speed_of(j, d, pass, true);
    pass.credit(j, false);
    return true;
  }
  const bool down = downgrade(j, pass, d);
  if (down) j.sigma = 1;
  const auto placed = [&] {
    j.speed = speed_of(j, d, pass, !down);
    pass.credit(j, false);
    return true;
  };
  if (pass.first_fit(j, d)) return placed();
  if (!pass.allow_peers) return false;
  for (const auto& [srv, k] : underutilised(pass, j.g)) {
    const Vec free = pass.avail(srv);
    Vec need;
    const double frac = static_cast<double>(k) / j.g;
    for (int x = 0; x < 5; ++x) need[x] = std::max(0.0, d[x] * frac - free[x]);
    for (Job* p : peers_to_shrink(pass, srv, need)) shrink(pass, *p);
  }
  if (pass.first_fit(j, d)) return placed();
  if (pass.compat)
    throw InvariantError("TUNE could not place job " + std::to_string(j.id) +
                         " after shrinking its peers (the authors' simulator exits here)");
  return false;
}

}  // namespace rm::synergy

namespace rm {
namespace {
class Tune final : public Allocation {
 public:
  std::string name() const override { return "tune"; }
  bool runs_in_rounds() const override { return true; }
  bool allocate(const JobState& j, StartDecision& d, FreeMap& free) override { return tune_floor(j, d, free); }
  void upgrade(const JobState& j, StartDecision& d, FreeMap& free) override {
    std::vector<ServerShare> best;
    for (const auto& x : share_needs(j, d.gpus, free.spec())) best.push_back({x.server, x.best_cpus, x.best_mem});
    top_up(d, best, free);
  }
  bool round_allocate(synergy::RoundPass& pass, synergy::Job& j) override { return synergy::tune_round(pass, j); }
  RoundTraits round_traits() const override {
    RoundTraits t;
    t.deficit_first = true;
    return t;
  }
};
}  // namespace
std::unique_ptr<Allocation> make_tune_allocation(PluginParams&) { return std::make_unique<Tune>(); }
}  // namespace rm
