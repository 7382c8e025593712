#include "engine/gavel_lp.h"

#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>

#include <algorithm>

#include "core/error.h"

namespace rm {

namespace {

// Gavel's base constraints (Policy.get_base_constraints) over x_ij at column i * n + j: x in [0, 1],
// sum_i sf_i x_ij <= GPUs of type j, sum_j x_ij <= 1; then `extra_cols` more columns and `extra_rows` more rows the
// caller fills in (rows from 0, before the base rows). Maximises obj; x clipped to [0, 1] as Gavel clips cvxpy's.
struct Lp {
  int m, n, extra_cols, extra_rows;
  std::vector<int> rows, cols;
  std::vector<double> vals, lo, hi, obj, rlo, rhi;
  Lp(const std::vector<int>& sf, const std::vector<int>& gpus, int ec, int er)
      : m(static_cast<int>(sf.size())), n(static_cast<int>(gpus.size())), extra_cols(ec), extra_rows(er) {
    const int nc = m * n + ec, nr = er + n + m;
    lo.assign(nc, 0.0), hi.assign(nc, 1.0), obj.assign(nc, 0.0), rlo.assign(nr, 0.0), rhi.assign(nr, 0.0);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        add(er + j, i * n + j, sf[i]);
        add(er + n + i, i * n + j, 1.0);
      }
    for (int j = 0; j < n; ++j) rlo[er + j] = -COIN_DBL_MAX, rhi[er + j] = gpus[j];
    for (int i = 0; i < m; ++i) rlo[er + n + i] = -COIN_DBL_MAX, rhi[er + n + i] = 1.0;
  }
  void add(int r, int c, double v) { rows.push_back(r), cols.push_back(c), vals.push_back(v); }
  std::vector<std::vector<double>> solve(const char* what) {
    CoinPackedMatrix A(true, rows.data(), cols.data(), vals.data(), static_cast<CoinBigIndex>(vals.size()));
    A.setDimensions(static_cast<int>(rlo.size()), static_cast<int>(lo.size()));
    OsiClpSolverInterface lp;
    lp.messageHandler()->setLogLevel(0);
    lp.loadProblem(A, lo.data(), hi.data(), obj.data(), rlo.data(), rhi.data());
    lp.setObjSense(-1);
    lp.initialSolve();
    if (!lp.isProvenOptimal()) throw InvariantError(std::string(what) + ": Clp found no optimum (x = 0 is feasible)");
    const double* s = lp.getColSolution();
    std::vector<std::vector<double>> x(static_cast<std::size_t>(m), std::vector<double>(static_cast<std::size_t>(n)));
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) x[i][j] = std::clamp(s[i * n + j], 0.0, 1.0);
    return x;
  }
};

}  // namespace

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
  lp.hi[t] = COIN_DBL_MAX;
  lp.obj[t] = 1.0;
  for (int i = 0; i < m; ++i) {
    double prop = 0;
    for (int j = 0; j < n; ++j) prop += thr[i][j] * gpus[j] / total;
    for (int j = 0; j < n; ++j) lp.add(i, i * n + j, prop > 0 ? thr[i][j] * sf[i] / (weight[i] * prop) : 0.0);
    lp.add(i, t, -1.0);
    lp.rlo[i] = 0.0, lp.rhi[i] = COIN_DBL_MAX;
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
