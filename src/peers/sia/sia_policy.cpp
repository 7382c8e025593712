// peers/sia/sia_policy.h: SiaPolicy.optimize_mip (S:sia.py:576-842), __solve_mip_rescaled (S:sia.py:844-1136) and alloc_to_placement_fast (S:sia.py:155-201),
// with numpy's float32 arithmetic where the authors' arrays are float32.
#include "peers/sia/sia_policy.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/error.h"

namespace rm::sia {
namespace {

constexpr float kZero = 0.0001f;  // ZERO_ALLOC_GAIN in a float32 matrix

// sia.py's CONFIGS_4GPU / CONFIGS_8GPU: (nodes, GPUs) a job may be given on one type.
const std::vector<std::pair<int, int>>& configs_for(int per_node) {
  static const std::vector<std::pair<int, int>> four = {{1, 1},  {1, 2},  {1, 4},  {2, 8},   {3, 12},  {4, 16},
                                                        {5, 20}, {6, 24}, {7, 28}, {8, 32},  {9, 36},  {10, 40},
                                                        {11, 44}, {12, 48}, {13, 52}, {14, 56}, {15, 60}, {16, 64}};
  static const std::vector<std::pair<int, int>> eight = {{1, 1},  {1, 2},  {1, 4},  {1, 8},  {2, 16}, {3, 24},
                                                         {4, 32}, {5, 40}, {6, 48}, {7, 56}, {8, 64}};
  return per_node == 4 ? four : eight;
}

// get_restart_penalty (S:sia.py:23-35): seconds lost per restart, by the job's name.
double restart_penalty(const std::string& name) {
  if (name.find("deepspeech") != std::string::npos) return 25;
  if (name.find("imagenet") != std::string::npos) return 250;
  if (name.find("cifar") != std::string::npos) return 30;
  if (name.find("bert") != std::string::npos) return 120;
  if (name.find("yolov3") != std::string::npos) return 45;
  return 30;
}

}  // namespace

SiaPolicy::SiaPolicy(SiaCluster cluster, SiaParams params) : cluster_(std::move(cluster)), params_(params) {
  if (params_.p == 0) throw InputError("--policy", 0, "p", "Sia's p must not be 0");
  for (std::size_t t = 0; t < cluster_.types.size(); ++t) {
    const int nodes = std::min(cluster_.nodes[t], cluster_.max_physical[t]);
    for (const auto& [n, g] : configs_for(cluster_.per_node[t]))
      if (n <= nodes) configs_.push_back({static_cast<int>(t), n, g});
  }
}

// One job's row of the goodput matrix over all configurations, normalised (S:sia.py:611-715).
std::vector<float> SiaPolicy::goodput_row(const SJob& j) const {
  const int types = static_cast<int>(cluster_.types.size());
  std::vector<float> row(configs_.size(), kZero);
  // max_replicas per type (S:cluster.py get_sia_multi_job_info), shared across types.
  int max_r = 0;
  for (int t = 0; t < types; ++t) {
    const PolluxApp& a = *j.apps[static_cast<std::size_t>(t)];
    const int m = std::min({std::max(2 * j.max_profiled_replicas(t), 1), 64, a.max_batch_size() / a.min_local_bsz()});
    max_r = t == 0 ? m : std::max(max_r, m);
  }
  if (!params_.share_max_replicas) throw InvariantError("sia: only --share_max_replicas is implemented");
  max_r = std::max(1, max_r);
  const int min_r = 1;
  int first_fn = -1;
  for (int t = 0; t < types && first_fn < 0; ++t)
    if (j.goodput_fn(t)) first_fn = t;
  std::vector<char> nnz(static_cast<std::size_t>(types), 0);  // types with no goodput: one GPU counts 1
  for (int t = 0; t < types; ++t) {
    const auto fn = j.goodput_fn(t);
    if (!fn && (!params_.project_throughputs || first_fn < 0)) {
      nnz[static_cast<std::size_t>(t)] = 1;
      continue;
    }
    std::vector<std::size_t> cols;
    std::vector<int> nodes, gpus;
    for (std::size_t k = 0; k < configs_.size(); ++k)
      if (configs_[k].type == t && configs_[k].gpus <= max_r && configs_[k].gpus >= min_r) {
        cols.push_back(k);
        nodes.push_back(configs_[k].nodes);
        gpus.push_back(configs_[k].gpus);
      }
    if (cols.empty()) {
      nnz[static_cast<std::size_t>(t)] = 1;
      continue;
    }
    std::vector<float> g(cols.size());
    if (fn) {
      const PolluxApp& a = *j.apps[static_cast<std::size_t>(t)];
      const auto v = fn->optimize_f32(nodes, gpus, j.target_batch, a.min_local_bsz(), a.max_local_bsz());
      for (std::size_t x = 0; x < cols.size(); ++x) g[x] = static_cast<float>(v[x]);
    } else {  // projected from the first type with a model (_compute_goodputs_v2, S:sia.py:423-491)
      const int d = first_fn;
      const PolluxApp& a = *j.apps[static_cast<std::size_t>(d)];
      std::vector<int> dnodes(gpus.size());
      for (std::size_t x = 0; x < gpus.size(); ++x)
        dnodes[x] = static_cast<int>(std::ceil(static_cast<double>(gpus[x]) / cluster_.per_node[static_cast<std::size_t>(d)]));
      const auto v = j.goodput_fn(d)->optimize_f32(dnodes, gpus, j.target_batch, a.min_local_bsz(), a.max_local_bsz());
      const double ratio = j.apps[static_cast<std::size_t>(t)]->one_gpu_throughput() / a.one_gpu_throughput();
      for (std::size_t x = 0; x < cols.size(); ++x) g[x] = static_cast<float>(v[x]) * static_cast<float>(ratio);
    }
    for (std::size_t x = 0; x < cols.size(); ++x) row[cols[x]] = g[x];
  }
  // The least goodput over the types that have one, then every entry over it (float32 in place).
  bool any = false;
  float least = 0;
  for (int t = 0; t < types; ++t) {
    if (nnz[static_cast<std::size_t>(t)]) continue;
    bool found = false;
    float m = 0;
    for (std::size_t k = 0; k < configs_.size(); ++k)
      if (configs_[k].type == t && row[k] > kZero) m = found ? std::min(m, row[k]) : row[k], found = true;
    if (!found) throw InvariantError("sia: " + j.spec->name + ": no goodput above the floor on " + cluster_.types[static_cast<std::size_t>(t)]);
    least = any ? std::min(least, m) : m;
    any = true;
  }
  const double scale = any ? 1.0 / static_cast<double>(least) : 1.0;
  const float scale32 = static_cast<float>(scale);
  for (std::size_t k = 0; k < configs_.size(); ++k) {
    row[k] = row[k] * scale32;
    if (nnz[static_cast<std::size_t>(configs_[k].type)] && configs_[k].gpus == 1) row[k] = 1.0f;
    if (row[k] <= kZero) row[k] = kZero;
  }
  return row;
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
    std::vector<float> row = goodput_row(j);
    // The re-allocation factor (S:sia.py:717-745): seconds of its age not lost to restarts over its age plus one
    // more restart; 1 while it is younger than one restart.
    const double penalty = restart_penalty(j.spec->name);
    const double age = static_cast<double>(now - j.submit);
    const double lost = std::max(0, j.restarts) * penalty;
    double factor = std::max(age - lost, 0.0) / (age + penalty);
    if (age < penalty) factor = 1;
    const auto prev = prev_.find(j.spec->name);
    if (prev != prev_.end()) {  // every configuration but its current one (S:sia.py:877-890), float32 in place
      const float keep = row[static_cast<std::size_t>(prev->second)];
      const float f = static_cast<float>(factor);
      for (float& x : row) x = x * f;
      row[static_cast<std::size_t>(prev->second)] = keep;
    }
    for (float& x : row) {  // power, 2 decimals, clip (S:sia.py:907-921)
      float y = std::pow(x, static_cast<float>(params_.p));
      y = std::rint(y * 100.0f) / 100.0f;
      if (y > 3000.0f) y = 3000.0f;
      prog.A.push_back(static_cast<double>(y));
    }
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
