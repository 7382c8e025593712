// The round model's pass over the one cluster book: FIRST_FIT of the Synergy simulator (spec S.6.2, S.10
// items 12-13) with its transient holds, consolidated placement, and the demands and speeds every mechanism
// uses.
#include "policy/allocation/round_pass.h"

#include <algorithm>
#include <array>

#include "core/error.h"
#include "cluster/first_fit_walk.h"
#include "policy/plugin.h"

namespace rm::synergy {

void init_job(Job& j, const Profile& p, int g, const Vec& P) {
  j.prof = &p;
  j.g = g;
  j.t = p.iter_time_s;
  const BestCase b = best_case(p, g, {P[kGpu], P[kCpu], P[kMem], P[kSto]});
  j.c = b.cpus;
  j.m = b.mem_gb;
  j.s = b.storage;
  j.sigma0 = j.sigma = b.sigma;
}

// `servers` identical servers of capacity P (GPUs, CPUs, GB, MB/s, Gbps) as a cluster book.
ClusterSpec round_cluster(int servers, int gps, const Vec& P) {
  ClusterSpec c;
  c.name = "round";
  ServerSpec sv;
  sv.gpus = gps;
  sv.cpus = static_cast<int>(P[kCpu]);
  sv.dram_gb = P[kMem];
  sv.storage_mbps = P[kSto];
  sv.nic_gbps = P[kNet];
  if (gps < 1 || servers < 1 || sv.cpus != P[kCpu])
    throw InvariantError("the round model's servers need >= 1 GPU, whole CPUs and at least one server");
  c.servers.assign(static_cast<std::size_t>(servers), sv);
  return c;
}

RoundPass::RoundPass(Cluster& book, const Vec& per_server)
    : book_(book), gps_(static_cast<int>(per_server[kGpu])), P_(per_server) {
  const int servers = book.num_servers();
  for (int k = 0; k < 5; ++k) {
    f_[k] = P_[k] / gps_;
    tot_[k] = P_[k] * servers;
  }
  hold_.assign(servers, Vec{});
  round_jobs_.resize(servers);
}

bool RoundPass::fits(int s, const Vec& u) const {
  const Vec a = avail(s);
  for (int k = 0; k < 5; ++k)
    if (!(a[k] - hold_[s][k] >= u[k])) return false;
  return true;
}

bool RoundPass::first_fit(Job& j, const Vec& d) {
  const int g = static_cast<int>(d[kGpu]);
  if (g <= 0 || g > free_gpus()) return false;
  Vec u;
  for (int k = 0; k < 5; ++k) u[k] = d[k] / d[kGpu];
  int first = -1;  // consolidated: the feasible server with the fewest free GPUs (ties: lowest id) first
  if (consolidated) {  // by the book's servers-by-free-GPUs index: counts upwards, servers in index order
    for (int c = g; c <= book_.max_server_gpus() && first < 0; ++c) {
      const ServerBits& with_c = book_.servers_with_free(c);
      for (int s = with_c.next(0); s < num_servers(); s = with_c.next(s + 1)) {
        const Vec a = avail(s);
        bool ok = true;
        for (int k = 0; k < 5 && ok; ++k) ok = a[k] >= u[k] * g;
        if (ok) {
          first = s;
          break;
        }
      }
    }
  }
  chosen_.clear();
  res_.clear();
  int last = -1;  // the server res_.back() is for
  const auto gpus_of = [this](int) { return gps_; };
  const auto visit = [&](int s, int i) __attribute__((always_inline)) {
    if (i == 0 && free_gpus(s) == 0) return FitStep::kLeaveServer;
    if (!book_.is_free({s, i})) return FitStep::kSkip;
    const int id = s * gps_ + i;
    if (std::find(chosen_.begin(), chosen_.end(), id) != chosen_.end()) return FitStep::kSkip;
    if (!fits(s, u)) return FitStep::kLeaveServer;  // holds only grow: the rest of this server fails too
    chosen_.push_back(id);
    for (int k = 0; k < 5; ++k) hold_[s][k] += u[k];
    if (last != s) res_.push_back({s, Vec{}});
    last = s;
    for (int k = 0; k < 5; ++k) res_.back().second[k] += u[k];
    return FitStep::kTake;
  };
  int taken = 0;
  if (first >= 0) taken = first_fit_walk(std::array{first}, g, gpus_of, visit);
  // The servers with a free GPU (not in the book's full set), in index order: the same servers a walk over all of
  // them takes from (it leaves a full one at its first GPU).
  const ServerBits& full = book_.servers_with_free(0);
  taken += first_fit_walk(servers_by([&full](int s) { return full.next_absent(s); }, num_servers()), g - taken,
                          gpus_of, visit);
  for (const auto& [s, v] : res_) hold_[s] = Vec{};
  if (taken < g) return false;
  std::sort(chosen_.begin(), chosen_.end());
  std::sort(res_.begin(), res_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  commit(j, chosen_, res_, true);
  return true;
}

void RoundPass::commit(Job& j, const std::vector<int>& gpus, const std::vector<std::pair<int, Vec>>& res,
                       bool append) {
  if (!j.gpus.empty()) throw InvariantError("job " + std::to_string(j.id) + " allocated twice");
  for (int id : gpus) book_.take_gpu(j.key, {id / gps_, id % gps_});  // throws on a GPU already held
  j.gpus.assign(gpus.begin(), gpus.end());
  j.res.assign(res.begin(), res.end());
  for (auto& [s, v] : j.res) {
    v[kNet] = 0;  // the network is never consumed (S.10 item 12)
    book_.take_share(j.key, s, v[kCpu], v[kMem], v[kSto]);
    if (append) {
      if (round_jobs_[s].empty()) round_servers_.push_back(s);
      round_jobs_[s].push_back(&j);
    }
  }
}

void RoundPass::assign(Job& j, const std::vector<int>& gpus, const std::vector<std::pair<int, Vec>>& res) {
  commit(j, gpus, res, false);
}

void RoundPass::release(Job& j) {
  for (int id : j.gpus) book_.give_gpu(j.key, {id / gps_, id % gps_});  // throws on a GPU this job does not hold
  for (const auto& [s, v] : j.res) {
    book_.give_share(j.key, s, v[kCpu], v[kMem], v[kSto]);
    // OPT's memory levels (62.5/3 GB) are not dyadic: drop the rounding drift when a server empties.
    if (free_gpus(s) == gps_) book_.settle_idle(s);
  }
  j.gpus.clear();
  j.res.clear();
}

void RoundPass::release_all(std::int64_t held) {
  if (held != book_.total_gpus() - book_.free_gpus())
    throw InvariantError("round model: " + std::to_string(held) + " GPUs released at once, but " +
                         std::to_string(book_.total_gpus() - book_.free_gpus()) + " are held");
  book_.free_everything();
}

void RoundPass::check_new_book() const {
  if (book_.free_gpus() != book_.total_gpus()) throw InvariantError("round model: a GPU is held after every release");
  for (int s = 0; s < num_servers(); ++s) {
    const ServerSpec& sv = book_.server(s);
    bool owned = false;
    for (int g = 0; g < sv.gpus; ++g) owned = owned || book_.owner({s, g}) != kNoJob;
    if (owned || book_.free_gpus(s) != sv.gpus || book_.free_cpus(s) != sv.cpus || book_.free_mem_gb(s) != sv.dram_gb ||
        book_.free_storage(s) != sv.storage_mbps)
      throw InvariantError("round model: server " + std::to_string(s) +
                           " is not as a new book's after every lease ended");
  }
}

}  // namespace rm::synergy

namespace rm {

void Allocation::round_pass(synergy::RoundPass& pass, const std::vector<synergy::Job*>& loop) {
  for (synergy::Job* j : loop) synergy::try_allocate(*this, pass, *j);
}

bool synergy::try_allocate(Allocation& mechanism, RoundPass& pass, Job& j) {
  const int missing = j.g - static_cast<int>(j.gpus.size());
  if (missing <= 0 || pass.free_gpus() < missing || !mechanism.round_allocate(pass, j)) return false;
  pass.start(j);
  return true;
}

}  // namespace rm

namespace rm::synergy {

void RoundPass::new_round() {
  for (int s : round_servers_) round_jobs_[s].clear();  // the servers with a list, not all of them
  round_servers_.clear();
}

Vec proportional_demand(const Job& j, const RoundPass& pass, bool with_network) {
  const Vec& f = pass.fair();
  const double g = j.g;
  return {g, f[kCpu] * g, f[kMem] * g, f[kSto] * g, with_network ? f[kNet] * g : 0.0};
}

Vec best_case_demand(const Job& j) { return {static_cast<double>(j.g), j.c, j.m, j.s, 0.0}; }

double speed_of(const Job& j, const Vec& total, const RoundPass& pass, bool best_case) {
  if (!pass.matrix_speed) return best_case ? j.sigma : 1.0;
  const Vec& f = pass.fair();
  const double fair = j.prof->tput_at(f[kCpu], f[kMem]);
  const double mine = j.prof->tput_at(total[kCpu] / j.g, total[kMem] / j.g);
  // Below the matrix's first row or column (no measurement) the speed is the proportional share's, as in the
  // job-level engine (exec/cpu_speed.cpp): a zero would hold GPUs without progress for ever.
  return fair > 0 && mine > 0 ? mine / fair : 1.0;
}

}  // namespace rm::synergy
