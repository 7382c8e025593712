// peers/sia/sia_policy.h: SiaPolicy.optimize_mip (S:sia.py:576-842), __solve_mip_rescaled (S:sia.py:844-1136) and alloc_to_placement_fast (S:sia.py:155-201),
// with numpy's float32 arithmetic where the authors' arrays are float32.
#include "peers/sia/sia_policy.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/error.h"
#include "policy/sia_goodput.h"

namespace rm::sia {
namespace {


}  // namespace

SiaPolicy::SiaPolicy(SiaCluster cluster, SiaParams params) : cluster_(std::move(cluster)), params_(params) {
  if (params_.p == 0) throw InputError("--policy", 0, "p", "Sia's p must not be 0");
  for (std::size_t t = 0; t < cluster_.types.size(); ++t) {
    const int nodes = std::min(cluster_.nodes[t], cluster_.max_physical[t]);
    for (const auto& [n, g] : configs_for(cluster_.per_node[t]))
      if (n <= nodes) configs_.push_back({static_cast<int>(t), n, g});
  }
}

// alloc_to_placement_fast (S:sia.py:159-212): the largest first (stable), whole free nodes for its whole-node part
// from a pointer that moves on from job to job, the rest wherever GPUs are left.
std::vector<std::vector<int>> SiaPolicy::place(int type, const std::vector<std::pair<int, int>>& allocs) const {
  const int max_nodes = cluster_.nodes[static_cast<std::size_t>(type)];
  const int per = cluster_.per_node[static_cast<std::size_t>(type)];
  std::vector<int> free(static_cast<std::size_t>(max_nodes), per);
  std::vector<std::size_t> order(allocs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return allocs[a].second > allocs[b].second; });
  std::vector<std::vector<int>> out(allocs.size());
  int cur = 0;
  for (std::size_t o : order) {
    int gpus = allocs[o].second;
    int node = cur;
    int full = gpus / per;
    std::vector<int>& p = out[o];
    if (gpus == 0) continue;
    if (full > 0) {
      int checked = 0;
      while (checked < max_nodes && full > 0) {
        if (free[static_cast<std::size_t>(node)] == per) {
          free[static_cast<std::size_t>(node)] -= per;
          gpus -= per;
          p.insert(p.end(), static_cast<std::size_t>(per), node);
          --full;
        }
        node = (node + 1) % max_nodes;
        ++checked;
      }
    }
    long guard = 0;
    while (gpus > 0) {
      if (++guard > 4L * max_nodes + 4) throw InvariantError("sia: placement found no free GPU");
      const int have = free[static_cast<std::size_t>(node)];
      if (have != 0) {
        const int take = std::min(gpus, have);
        gpus -= take;
        free[static_cast<std::size_t>(node)] -= take;
        p.insert(p.end(), static_cast<std::size_t>(take), node);
      }
      node = (node + 1) % max_nodes;
    }
    cur = node;
  }
  return out;
}

std::vector<Assignment> SiaPolicy::optimize(const std::vector<const SJob*>& active, long now) {
  const auto t0 = std::chrono::steady_clock::now();
  const int n = static_cast<int>(active.size()), c = static_cast<int>(configs_.size());
  const int types = static_cast<int>(cluster_.types.size());
  sia::SiaProgram prog;
  prog.jobs = n;
  prog.configs = c;
  prog.lambda_n = params_.lambda_n;
  prog.minimize = params_.p < 0;
  for (const auto& k : configs_) prog.config_gpus.push_back(k.gpus), prog.config_type.push_back(k.type);
  for (int t = 0; t < types; ++t)
    prog.capacity.push_back(cluster_.nodes[static_cast<std::size_t>(t)] * cluster_.per_node[static_cast<std::size_t>(t)]);
  prog.A.reserve(static_cast<std::size_t>(n) * static_cast<std::size_t>(c));
  for (int i = 0; i < n; ++i) {
    const SJob& j = *active[static_cast<std::size_t>(i)];
    std::vector<float> row = goodput_row(j, configs_, cluster_.per_node, params_.project_throughputs);
    const double factor = realloc_factor(static_cast<double>(now) - j.submit, j.restarts, restart_penalty(j.spec->name));
    const auto prev = prev_.find(j.spec->name);
    append_costs(std::move(row), prev != prev_.end() ? prev->second : -1, factor, params_.p, prog.A);
    // A job in checkpoint-restore keeps its configuration (preserve_ckpt_allocs, S:sia.py:767-782, S:cluster.py:442-446).
    if (j.rescale > 0) {
      if (prev == prev_.end()) throw InvariantError("sia: " + j.spec->name + " restarting without an allocation");
      prog.pinned.push_back({i, prev->second});
    }
  }
  const auto t1 = std::chrono::steady_clock::now();
  const sia::SiaSolution sol = sia::solve_sia_program(prog);
  const auto t2 = std::chrono::steady_clock::now();
  // Allocations per type in job order, then placements (S:sia.py:1060-1090, 791-812).
  std::vector<Assignment> out(static_cast<std::size_t>(n));
  std::map<std::string, int> next;
  std::vector<std::vector<std::pair<int, int>>> by_type(static_cast<std::size_t>(types));
  std::vector<std::vector<int>> members(static_cast<std::size_t>(types));
  for (int i = 0; i < n; ++i) {
    const int k = sol.choice[static_cast<std::size_t>(i)];
    if (k < 0) continue;
    next[active[static_cast<std::size_t>(i)]->spec->name] = k;
    const Config& cf = configs_[static_cast<std::size_t>(k)];
    by_type[static_cast<std::size_t>(cf.type)].push_back({cf.nodes, cf.gpus});
    members[static_cast<std::size_t>(cf.type)].push_back(i);
  }
  for (int t = 0; t < types; ++t) {
    const auto placed = place(t, by_type[static_cast<std::size_t>(t)]);
    for (std::size_t x = 0; x < placed.size(); ++x) {
      Assignment& a = out[static_cast<std::size_t>(members[static_cast<std::size_t>(t)][x])];
      a.type = t;
      a.nodes = placed[x];
    }
  }
  prev_ = std::move(next);
  SiaRoundStats st;
  st.t = now;
  st.jobs = n;
  st.rows = sol.rows;
  st.cols = sol.cols;
  st.objective = sol.objective;
  st.ones = sol.ones;
  st.solve_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
  st.round_ms = std::chrono::duration<double, std::milli>(t2 - t0).count();
  stats_.push_back(std::move(st));
  return out;
}

}  // namespace rm::sia
