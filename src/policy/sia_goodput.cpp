// policy/sia_goodput.h: sia.py's goodput matrix, one job's row at a time, with numpy's float32 arithmetic.
#include "policy/sia_goodput.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"

namespace rm::sia {
namespace {
constexpr float kZero = 0.0001f;  // ZERO_ALLOC_GAIN in a float32 matrix
}  // namespace

const std::vector<std::pair<int, int>>& configs_for(int per_node) {
  static const std::vector<std::pair<int, int>> four = {{1, 1},  {1, 2},  {1, 4},  {2, 8},   {3, 12},  {4, 16},
                                                        {5, 20}, {6, 24}, {7, 28}, {8, 32},  {9, 36},  {10, 40},
                                                        {11, 44}, {12, 48}, {13, 52}, {14, 56}, {15, 60}, {16, 64}};
  static const std::vector<std::pair<int, int>> eight = {{1, 1},  {1, 2},  {1, 4},  {1, 8},  {2, 16}, {3, 24},
                                                         {4, 32}, {5, 40}, {6, 48}, {7, 56}, {8, 64}};
  return per_node == 4 ? four : eight;
}

double restart_penalty(const std::string& name) {
  if (name.find("deepspeech") != std::string::npos) return 25;
  if (name.find("imagenet") != std::string::npos) return 250;
  if (name.find("cifar") != std::string::npos) return 30;
  if (name.find("bert") != std::string::npos) return 120;
  if (name.find("yolov3") != std::string::npos) return 45;
  return 30;
}

double realloc_factor(double age, int restarts, double penalty) {
  const double lost = std::max(0, restarts) * penalty;
  double factor = std::max(age - lost, 0.0) / (age + penalty);
  if (age < penalty) factor = 1;
  return factor;
}

void append_costs(std::vector<float> row, int keep, double factor, double p, std::vector<double>& out) {
  if (keep >= 0) {  // every configuration but its current one, float32 in place
    const float kept = row[static_cast<std::size_t>(keep)];
    const float f = static_cast<float>(factor);
    for (float& x : row) x = x * f;
    row[static_cast<std::size_t>(keep)] = kept;
  }
  for (float& x : row) {  // power, 2 decimals, clip
    float y = std::pow(x, static_cast<float>(p));
    y = std::rint(y * 100.0f) / 100.0f;
    if (y > 3000.0f) y = 3000.0f;
    out.push_back(static_cast<double>(y));
  }
}

// One job's row of the goodput matrix over all configurations, normalised (S:sia.py:611-715).
std::vector<float> goodput_row(const SiaTrainer& j, const std::vector<Config>& configs_, const std::vector<int>& per_node,
                               bool project) {
  const int types = static_cast<int>(j.apps.size());
  std::vector<float> row(configs_.size(), kZero);
  // max_replicas per type (S:cluster.py get_sia_multi_job_info), shared across types.
  int max_r = 0;
  for (int t = 0; t < types; ++t) {
    const PolluxApp& a = *j.apps[static_cast<std::size_t>(t)];
    const int m = std::min({std::max(2 * j.max_profiled_replicas(t), 1), 64, a.max_batch_size() / a.min_local_bsz()});
    max_r = t == 0 ? m : std::max(max_r, m);
  }
  max_r = std::max(1, max_r);
  const int min_r = 1;
  int first_fn = -1;
  for (int t = 0; t < types && first_fn < 0; ++t)
    if (j.goodput_fn(t)) first_fn = t;
  std::vector<char> nnz(static_cast<std::size_t>(types), 0);  // types with no goodput: one GPU counts 1
  for (int t = 0; t < types; ++t) {
    const auto fn = j.goodput_fn(t);
    if (!fn && (!project || first_fn < 0)) {
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
        dnodes[x] = static_cast<int>(std::ceil(static_cast<double>(gpus[x]) / per_node[static_cast<std::size_t>(d)]));
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
    if (!found) throw InvariantError("sia: " + j.name + ": no goodput above the floor on its type " + std::to_string(t));
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

}  // namespace rm::sia
