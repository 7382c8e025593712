// The resource side of the round simulator: servers with used/hold counters and the FIRST_FIT placement
// primitive of the Synergy simulator (spec S.6.2, S.10 items 12-13), plus consolidated placement.
#include "core/error.h"
#include "synergy/state.h"

namespace rm::synergy {

ResCluster::ResCluster(int servers, int gpus_per_server, const Vec& per_server)
    : servers_(servers), gps_(gpus_per_server), P_(per_server) {
  for (int k = 0; k < 5; ++k) {
    f_[k] = P_[k] / gps_;
    tot_[k] = P_[k] * servers;
  }
  for (auto& s : servers_) {
    s.cap = P_;
    s.gpu_free.assign(gps_, true);
    s.free_gpus = gps_;
  }
  free_ = servers * gps_;
}

Vec ResCluster::avail(int s) const {
  Vec a;
  for (int k = 0; k < 5; ++k) a[k] = servers_[s].cap[k] - servers_[s].used[k];
  return a;
}

bool ResCluster::fits(const Server& sv, const Vec& u) const {
  for (int k = 0; k < 5; ++k)
    if (!((sv.cap[k] - sv.used[k]) - sv.hold[k] >= u[k])) return false;
  return true;
}

void ResCluster::check(int s) const {
  const Server& sv = servers_[s];
  for (int k = 0; k < 5; ++k)
    if (sv.used[k] < -1e-9 || sv.used[k] > sv.cap[k] + 1e-9)
      throw InvariantError("server " + std::to_string(s) + " over-committed in dimension " + std::to_string(k));
}

bool ResCluster::first_fit(Job& j, const Vec& d, bool consolidated) {
  const int g = static_cast<int>(d[kGpu]);
  if (g <= 0 || g > free_) return false;
  Vec u;
  for (int k = 0; k < 5; ++k) u[k] = d[k] / d[kGpu];
  std::vector<int> order;  // servers in visiting order
  if (consolidated) {
    // Whole job on the feasible server with the fewest free GPUs (ties: lowest id); else first-fit.
    int best = -1;
    for (int s = 0; s < num_servers(); ++s) {
      const Server& sv = servers_[s];
      if (sv.free_gpus < g) continue;
      bool ok = true;
      for (int k = 0; k < 5 && ok; ++k) ok = (sv.cap[k] - sv.used[k]) >= u[k] * g;
      if (ok && (best < 0 || sv.free_gpus < servers_[best].free_gpus)) best = s;
    }
    if (best >= 0) order.push_back(best);
  }
  for (int s = 0; s < num_servers(); ++s) order.push_back(s);
  std::vector<int> chosen;
  std::vector<std::pair<int, Vec>> res;
  for (int s : order) {
    Server& sv = servers_[s];
    if (sv.free_gpus == 0) continue;
    bool any = false;
    for (int i = 0; i < gps_ && static_cast<int>(chosen.size()) < g; ++i) {
      if (!sv.gpu_free[i]) continue;
      const int id = s * gps_ + i;
      bool dup = false;
      for (int c : chosen) dup |= c == id;
      if (dup) continue;
      if (!fits(sv, u)) break;  // holds only grow: the rest of this server fails too
      chosen.push_back(id);
      for (int k = 0; k < 5; ++k) sv.hold[k] += u[k];
      if (!any) res.push_back({s, Vec{}});
      any = true;
      for (int k = 0; k < 5; ++k) res.back().second[k] += u[k];
    }
    if (static_cast<int>(chosen.size()) == g) break;
  }
  for (auto& sv : servers_) sv.hold = Vec{};
  if (static_cast<int>(chosen.size()) < g) return false;
  std::sort(chosen.begin(), chosen.end());
  std::sort(res.begin(), res.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  commit(j, std::move(chosen), std::move(res), true);
  return true;
}

void ResCluster::commit(Job& j, std::vector<int> gpus, std::vector<std::pair<int, Vec>> res, bool append) {
  if (!j.gpus.empty()) throw InvariantError("job " + std::to_string(j.id) + " allocated twice");
  for (int id : gpus) {
    Server& sv = servers_[id / gps_];
    if (!sv.gpu_free[id % gps_]) throw InvariantError("GPU " + std::to_string(id) + " double-booked");
    sv.gpu_free[id % gps_] = false;
    --sv.free_gpus;
    --free_;
  }
  for (auto& [s, v] : res) {
    v[kNet] = 0;  // the network is never consumed (S.10 item 12)
    for (int k = 0; k < 4; ++k) servers_[s].used[k] += v[k];
    check(s);
    if (append) servers_[s].round_jobs.push_back(&j);
  }
  j.gpus = std::move(gpus);
  j.res = std::move(res);
}

void ResCluster::assign(Job& j, const std::vector<int>& gpus, const std::vector<std::pair<int, Vec>>& res) {
  commit(j, gpus, res, false);
}

void ResCluster::resize(Job& j, int server, const Vec& v) {
  for (auto& [s, r] : j.res)
    if (s == server) {
      for (int k = 1; k < 4; ++k) servers_[s].used[k] += v[k] - r[k];
      for (int k = 1; k < 4; ++k) r[k] = v[k];
      check(s);
      return;
    }
  throw InvariantError("resize: job " + std::to_string(j.id) + " holds nothing on server " + std::to_string(server));
}

void ResCluster::release(Job& j) {
  for (int id : j.gpus) {
    Server& sv = servers_[id / gps_];
    if (sv.gpu_free[id % gps_]) throw InvariantError("GPU " + std::to_string(id) + " released twice");
    sv.gpu_free[id % gps_] = true;
    ++sv.free_gpus;
    ++free_;
  }
  for (const auto& [s, v] : j.res) {
    for (int k = 0; k < 4; ++k) servers_[s].used[k] -= v[k];
    check(s);
  }
  j.gpus.clear();
  j.res.clear();
}

void ResCluster::new_round() {
  for (auto& s : servers_) s.round_jobs.clear();
}

}  // namespace rm::synergy
