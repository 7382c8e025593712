#include "workload/job_graph_map.h"

#include <algorithm>
#include <numeric>

#include "cluster/first_fit_walk.h"

namespace rm {
namespace {

// Vertex orders of A.3 step 4: O_dp = (d, p, t) keeps a replica's pipeline together; O_pp = (p, d, t)
// keeps a stage's data-parallel ring together. TP groups are contiguous in both.
std::vector<int> linear_order(const JobGraph& g, bool dp_major) {
  std::vector<int> o;
  const auto& c = g.cfg;
  if (dp_major) {
    o.resize(g.size());
    std::iota(o.begin(), o.end(), 0);
  } else {
    for (int p = 0; p < c.P; ++p)
      for (int d = 0; d < c.D; ++d)
        for (int t = 0; t < c.T; ++t) o.push_back(g.vertex(d, p, t));
  }
  return o;
}

// Kernighan-Lin refinement (A.3 step 5) for every pair of used servers: within a pass, repeatedly swap
// the unlocked pair (one vertex on each side) of best gain, even a negative one, and lock both; then
// keep the prefix of swaps with the largest total gain if it is positive. Server loads never change.
void refine(const JobGraph& g, std::vector<int>& server_of, int passes) {
  const int n = g.size();
  std::vector<std::vector<std::pair<int, double>>> adj(n);
  for (const auto& e : g.edges) {
    adj[e.u].push_back({e.v, e.bytes});
    adj[e.v].push_back({e.u, e.bytes});
  }
  // Cut reduction of moving u to server `to` (edges to `skip` left out: a swapped pair stays cut).
  auto gain = [&](int u, int to, int skip) {
    double d = 0;
    for (const auto& [w, b] : adj[u]) {
      if (w == skip) continue;
      d += (server_of[w] != server_of[u] ? b : 0.0) - (server_of[w] != to ? b : 0.0);
    }
    return d;
  };
  std::vector<int> used;
  for (int v = 0; v < n; ++v)
    if (std::find(used.begin(), used.end(), server_of[v]) == used.end()) used.push_back(server_of[v]);
  std::sort(used.begin(), used.end());
  for (int pass = 0; pass < passes; ++pass) {
    bool improved = false;
    for (std::size_t ia = 0; ia < used.size(); ++ia)
      for (std::size_t ib = ia + 1; ib < used.size(); ++ib) {
        const int a = used[ia], b = used[ib];
        std::vector<char> locked(n, 0);
        std::vector<std::pair<int, int>> swaps;
        double total = 0, best_total = 0;
        std::size_t best_len = 0;
        while (true) {
          int bu = -1, bv = -1;
          double bg = 0;
          for (int u = 0; u < n; ++u) {
            if (locked[u] || server_of[u] != a) continue;
            for (int v = 0; v < n; ++v) {
              if (locked[v] || server_of[v] != b) continue;
              const double gsum = gain(u, b, v) + gain(v, a, u);
              if (bu < 0 || gsum > bg + 1e-12) bu = u, bv = v, bg = gsum;
            }
          }
          if (bu < 0) break;
          std::swap(server_of[bu], server_of[bv]);
          locked[bu] = locked[bv] = 1;
          swaps.push_back({bu, bv});
          total += bg;
          if (total > best_total + 1e-9) best_total = total, best_len = swaps.size();
        }
        for (std::size_t k = swaps.size(); k > best_len; --k)  // undo past the best prefix
          std::swap(server_of[swaps[k - 1].first], server_of[swaps[k - 1].second]);
        improved = improved || best_len > 0;
      }
    if (!improved) break;
  }
}

}  // namespace

std::optional<MapResult> map_place(const JobGraph& g, const std::vector<std::vector<int>>& free_gpus,
                                   int refine_passes) {
  const int n = g.size();
  const int ns = static_cast<int>(free_gpus.size());
  int total = 0;
  for (const auto& f : free_gpus) total += static_cast<int>(f.size());
  if (total < n) return std::nullopt;
  std::vector<int> server_of(n, -1);
  // Step 2: one server if any has room, the tightest fit (ties: lowest id).
  int best = -1;
  for (int s = 0; s < ns; ++s) {
    const int f = static_cast<int>(free_gpus[s].size());
    if (f >= n && (best < 0 || f < static_cast<int>(free_gpus[best].size()))) best = s;
  }
  if (best >= 0) {
    std::fill(server_of.begin(), server_of.end(), best);
  } else {
    // Step 3: the fewest servers, most free first (ties: lowest id); the last takes the remainder.
    std::vector<int> order(ns);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return free_gpus[a].size() > free_gpus[b].size(); });
    std::vector<std::pair<int, int>> caps;  // (server, capacity): the one first-fit walk over that order
    first_fit_walk(order, n, [&](int s) { return static_cast<int>(free_gpus[s].size()); }, [&](int s, int) {
      if (caps.empty() || caps.back().first != s) caps.push_back({s, 0});
      ++caps.back().second;
      return FitStep::kTake;
    });
    // Step 4: fill the servers in order along each linear order; keep the cheaper (ties: O_dp).
    double best_cut = 0;
    for (bool dp_major : {true, false}) {
      std::vector<int> x(n);
      const auto o = linear_order(g, dp_major);
      std::size_t k = 0;
      for (const auto& [s, cap] : caps)
        for (int i = 0; i < cap; ++i) x[o[k++]] = s;
      const double cut = cut_bytes(g, x);
      if (dp_major || cut < best_cut) server_of = x, best_cut = cut;
    }
    refine(g, server_of, refine_passes);  // step 5
  }
  // Step 6: each server's vertices, ascending, onto its free GPUs, ascending.
  MapResult r;
  r.gpus.resize(n);
  std::vector<std::size_t> next(ns, 0);
  std::vector<char> used(ns, 0);
  for (int v = 0; v < n; ++v) {
    const int s = server_of[v];
    r.gpus[v] = {s, free_gpus[s][next[s]++]};
    r.servers += !used[s];
    used[s] = 1;
  }
  r.cut_bytes = cut_bytes(g, server_of);
  return r;
}

}  // namespace rm
