// The resource side of the round simulator: servers with used/hold counters and the FIRST_FIT placement
// primitive of the Synergy simulator (spec S.6.2, S.10 items 12-13), plus consolidated placement.
#include <algorithm>
#include <array>

#include "core/error.h"
#include "policy/placement/first_fit_walk.h"
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
    if (sv.used[k] < -1e-6 || sv.used[k] > sv.cap[k] + 1e-6)
      throw InvariantError("server " + std::to_string(s) + " dimension " + std::to_string(k) + ": used " +
                           std::to_string(sv.used[k]) + " outside [0, " + std::to_string(sv.cap[k]) + "]");
}

bool ResCluster::first_fit(Job& j, const Vec& d, bool consolidated) {
  const int g = static_cast<int>(d[kGpu]);
  if (g <= 0 || g > free_) return false;
  Vec u;
  for (int k = 0; k < 5; ++k) u[k] = d[k] / d[kGpu];
  int first = -1;  // consolidated: the feasible server with the fewest free GPUs (ties: lowest id) first
  if (consolidated) {
    for (int s = 0; s < num_servers(); ++s) {
      const Server& sv = servers_[s];
      if (sv.free_gpus < g) continue;
      bool ok = true;
      for (int k = 0; k < 5 && ok; ++k) ok = (sv.cap[k] - sv.used[k]) >= u[k] * g;
      if (ok && (first < 0 || sv.free_gpus < servers_[first].free_gpus)) first = s;
    }
  }
  chosen_.clear();
  res_.clear();
  int last = -1;  // the server res_.back() is for
  const auto gpus_of = [this](int) { return gps_; };
  const auto visit = [&](int s, int i) __attribute__((always_inline)) {
    Server& sv = servers_[s];
    if (i == 0 && sv.free_gpus == 0) return FitStep::kLeaveServer;
    if (!sv.gpu_free[i]) return FitStep::kSkip;
    const int id = s * gps_ + i;
    if (std::find(chosen_.begin(), chosen_.end(), id) != chosen_.end()) return FitStep::kSkip;
    if (!fits(sv, u)) return FitStep::kLeaveServer;  // holds only grow: the rest of this server fails too
    chosen_.push_back(id);
    for (int k = 0; k < 5; ++k) sv.hold[k] += u[k];
    if (last != s) res_.push_back({s, Vec{}});
    last = s;
    for (int k = 0; k < 5; ++k) res_.back().second[k] += u[k];
    return FitStep::kTake;
  };
  int taken = 0;
  if (first >= 0) taken = first_fit_walk(std::array{first}, g, gpus_of, visit);
  taken += first_fit_walk(ServerRange{num_servers()}, g - taken, gpus_of, visit);
  for (const auto& [s, v] : res_) servers_[s].hold = Vec{};
  if (taken < g) return false;
  std::sort(chosen_.begin(), chosen_.end());
  std::sort(res_.begin(), res_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  commit(j, chosen_, res_, true);
  return true;
}

void ResCluster::commit(Job& j, const std::vector<int>& gpus, const std::vector<std::pair<int, Vec>>& res,
                        bool append) {
  if (!j.gpus.empty()) throw InvariantError("job " + std::to_string(j.id) + " allocated twice");
  for (int id : gpus) {
    Server& sv = servers_[id / gps_];
    if (!sv.gpu_free[id % gps_]) throw InvariantError("GPU " + std::to_string(id) + " double-booked");
    sv.gpu_free[id % gps_] = false;
    --sv.free_gpus;
    --free_;
  }
  j.gpus.assign(gpus.begin(), gpus.end());
  j.res.assign(res.begin(), res.end());
  for (auto& [s, v] : j.res) {
    v[kNet] = 0;  // the network is never consumed (S.10 item 12)
    for (int k = 0; k < 4; ++k) servers_[s].used[k] += v[k];
    check(s);
    if (append) servers_[s].round_jobs.push_back(&j);
  }
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
    Server& sv = servers_[s];
    for (int k = 0; k < 4; ++k) sv.used[k] -= v[k];
    // OPT's memory levels (62.5/3 GB) are not dyadic: drop the rounding drift when a server empties.
    if (sv.free_gpus == gps_) sv.used = Vec{};
    check(s);
  }
  j.gpus.clear();
  j.res.clear();
}

void ResCluster::new_round() {
  for (auto& s : servers_) s.round_jobs.clear();
}

}  // namespace rm::synergy
