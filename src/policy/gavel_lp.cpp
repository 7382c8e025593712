#include "policy/gavel_lp.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/error.h"
#include "policy/coin.h"

namespace rm {

namespace {

// Gavel's base constraints (Policy.get_base_constraints) over x_ij at column i * n + j: x in [0, 1],
// sum_i sf_i x_ij <= GPUs of type j, sum_j x_ij <= 1; then `extra_cols` more columns and `extra_rows` more rows the
// caller fills in (rows from 0, before the base rows). Maximises obj; x clipped to [0, 1] as Gavel clips cvxpy's.
// The program's triplets and bounds are the TripletLp the COIN-OR plugin solves (policy/coin.h), handed over as is.
struct Lp : TripletLp {
  int m, n, extra_cols, extra_rows;
  Lp(const std::vector<int>& sf, const std::vector<int>& gpus, int ec, int er)
      : m(static_cast<int>(sf.size())), n(static_cast<int>(gpus.size())), extra_cols(ec), extra_rows(er) {
    const int nc = m * n + ec, nr = er + n + m;
    lo.assign(nc, 0.0), hi.assign(nc, 1.0), obj.assign(nc, 0.0), rlo.assign(nr, 0.0), rhi.assign(nr, 0.0);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        add(er + j, i * n + j, sf[i]);
        add(er + n + i, i * n + j, 1.0);
      }
    for (int j = 0; j < n; ++j) rlo[er + j] = -kCoinInf, rhi[er + j] = gpus[j];
    for (int i = 0; i < m; ++i) rlo[er + n + i] = -kCoinInf, rhi[er + n + i] = 1.0;
  }
  void add(int r, int c, double v) { rows.push_back(r), cols.push_back(c), vals.push_back(v); }
  std::vector<std::vector<double>> solve(const char* what) {
    auto x = try_solve();
    if (!x) throw InvariantError(std::string(what) + ": Clp found no optimum (x = 0 is feasible)");
    return std::move(*x);
  }
  // nullopt when Clp proves the program infeasible (or finds no optimum).
  std::optional<std::vector<std::vector<double>>> try_solve() {
    num_rows = static_cast<int>(rlo.size()), num_cols = static_cast<int>(lo.size()), obj_sense = -1;
    std::vector<double> sol;
    if (!coin().clp_initial_solve(*this, sol)) return std::nullopt;
    const double* s = sol.data();
    std::vector<std::vector<double>> x(static_cast<std::size_t>(m), std::vector<double>(static_cast<std::size_t>(n)));
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) x[i][j] = std::clamp(s[i * n + j], 0.0, 1.0);
    return x;
  }
};

// Whether job i can get any throughput: a type it runs on (thr > 0) with at least sf_i GPUs.
bool can_run(const std::vector<double>& thr, int sf, const std::vector<int>& gpus) {
  for (std::size_t j = 0; j < gpus.size(); ++j)
    if (thr[j] > 0 && gpus[j] >= sf) return true;
  return false;
}

// A point of the base constraints with sum_j thr_ij x_ij >= need_i for every i (nullopt: none).
std::optional<std::vector<std::vector<double>>> feasible(const std::vector<std::vector<double>>& thr,
                                                         const std::vector<int>& sf, const std::vector<int>& gpus,
                                                         const std::vector<double>& need) {
  const int m = static_cast<int>(thr.size()), n = static_cast<int>(gpus.size());
  Lp lp(sf, gpus, 0, m);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j)
      if (thr[i][j] != 0) lp.add(i, i * n + j, thr[i][j]);
    lp.rlo[i] = need[i], lp.rhi[i] = kCoinInf;
  }
  return lp.try_solve();
}

}  // namespace

std::vector<double> gavel_isolated_share(int m, int sf, const std::vector<int>& gpus) {
  std::vector<double> x(gpus.size());
  double sum = 0;
  for (std::size_t t = 0; t < gpus.size(); ++t) {
    x[t] = (static_cast<double>(gpus[t]) / static_cast<double>(m)) / static_cast<double>(sf);
    sum += x[t];
  }
  sum = std::max(sum, 1.0);
  for (double& v : x) v /= sum;
  return x;
}

double gavel_isolated_throughput(const std::vector<double>& thr, int m, int sf, const std::vector<int>& gpus) {
  const auto share = gavel_isolated_share(m, sf, gpus);
  double it = 0;
  for (std::size_t t = 0; t < gpus.size(); ++t) it += thr[t] * share[t];
  return it;
}

std::vector<std::vector<double>> gavel_finish_time_fairness(const std::vector<std::vector<double>>& thr,
                                                            const std::vector<int>& sf, const std::vector<int>& gpus,
                                                            const std::vector<double>& since,
                                                            const std::vector<double>& rem,
                                                            const std::vector<double>& iso) {
  const std::size_t m = thr.size();
  if (m == 0) return {};
  std::vector<char> in(m, 0);
  double lo = 0;  // r must exceed since_i / iso_i for every job in the max
  for (std::size_t i = 0; i < m; ++i) {
    in[i] = rem[i] > 0 && iso[i] > 0 && can_run(thr[i], sf[i], gpus);
    if (in[i]) lo = std::max(lo, since[i] / iso[i]);
  }
  auto at = [&](double r) {
    std::vector<double> need(m, 0.0);
    for (std::size_t i = 0; i < m; ++i)
      if (in[i]) need[i] = rem[i] / (r * iso[i] - since[i]);
    return feasible(thr, sf, gpus, need);
  };
  double hi = 2 * lo + 1;
  auto best = at(hi);
  for (int k = 0; !best; ++k) {
    if (k == 200) throw InvariantError("Gavel's finish-time fairness: no feasible ratio found");
    lo = hi, hi *= 2, best = at(hi);
  }
  while (hi - lo > 1e-9 * hi) {
    const double mid = lo + (hi - lo) / 2;
    if (auto x = at(mid)) best = std::move(x), hi = mid;
    else lo = mid;
  }
  return std::move(*best);
}

std::vector<std::vector<double>> gavel_min_total_duration(const std::vector<std::vector<double>>& thr,
                                                          const std::vector<int>& sf, const std::vector<int>& gpus,
                                                          const std::vector<double>& rem, double* t_out) {
  const std::size_t m = thr.size();
  if (m == 0) return {};
  auto at = [&](double T) {
    std::vector<double> need(m, 0.0);
    for (std::size_t i = 0; i < m; ++i)
      if (rem[i] > 0 && can_run(thr[i], sf[i], gpus)) need[i] = rem[i] / T;
    return feasible(thr, sf, gpus, need);
  };
  double max_t = 1e6, min_t = 100, last_max = max_t, found_t = 0;
  std::optional<std::vector<std::vector<double>>> best;
  for (int k = 0; !best; ++k) {  // min_total_duration.py:62-81, the peer's loop as written
    if (k == 300) throw InvariantError("Gavel's minimum total duration: no feasible T found");
    while (1.05 * min_t < max_t) {
      const double T = (min_t + max_t) / 2.0;
      if (auto x = at(T)) best = std::move(x), max_t = T, found_t = T;
      else min_t = T;
    }
    max_t = last_max * 10.0, min_t = last_max, last_max *= 10;
  }
  if (t_out) *t_out = found_t;
  return std::move(*best);
}

std::vector<std::vector<double>> gavel_max_min_fairness(const std::vector<std::vector<double>>& thr,
                                                        const std::vector<int>& sf, const std::vector<double>& weight,
                                                        const std::vector<int>& gpus) {
  const int m = static_cast<int>(thr.size()), n = static_cast<int>(gpus.size());
  if (m == 0) return {};
  double total = 0;
  for (int g : gpus) total += g;
  // One more column, t, maximised; m more rows: sum_j c_ij x_ij - t >= 0.
  Lp lp(sf, gpus, 1, m);
  const int t = m * n;
  lp.hi[t] = kCoinInf;
  lp.obj[t] = 1.0;
  for (int i = 0; i < m; ++i) {
    double prop = 0;
    for (int j = 0; j < n; ++j) prop += thr[i][j] * gpus[j] / total;
    for (int j = 0; j < n; ++j) lp.add(i, i * n + j, prop > 0 ? thr[i][j] * sf[i] / (weight[i] * prop) : 0.0);
    lp.add(i, t, -1.0);
    lp.rlo[i] = 0.0, lp.rhi[i] = kCoinInf;
  }
  return lp.solve("Gavel's max-min fairness LP");
}

std::vector<std::vector<double>> gavel_max_sum_throughput(const std::vector<std::vector<double>>& thr,
                                                          const std::vector<int>& sf, const std::vector<int>& gpus) {
  const int m = static_cast<int>(thr.size()), n = static_cast<int>(gpus.size());
  if (m == 0) return {};
  Lp lp(sf, gpus, 0, 0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) lp.obj[i * n + j] = thr[i][j];
  return lp.solve("Gavel's total-throughput LP");
}

}  // namespace rm
