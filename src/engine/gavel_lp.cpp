#include "engine/gavel_lp.h"

#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>

#include <algorithm>

#include "core/error.h"

namespace rm {

std::vector<std::vector<double>> gavel_max_min_fairness(const std::vector<std::vector<double>>& thr,
                                                        const std::vector<int>& sf, const std::vector<double>& weight,
                                                        const std::vector<int>& gpus) {
  const int m = static_cast<int>(thr.size()), n = static_cast<int>(gpus.size());
  std::vector<std::vector<double>> x(static_cast<std::size_t>(m), std::vector<double>(static_cast<std::size_t>(n), 0.0));
  if (m == 0) return x;
  double total = 0;
  for (int g : gpus) total += g;
  // Columns: x_ij at i * n + j, then t. Rows: m fairness rows (sum_j c_ij x_ij - t >= 0), n capacity rows, m
  // time rows.
  const int cols = m * n + 1, rows_n = 2 * m + n;
  std::vector<int> rows, colv;
  std::vector<double> vals;
  for (int i = 0; i < m; ++i) {
    double prop = 0;
    for (int j = 0; j < n; ++j) prop += thr[i][j] * gpus[j] / total;
    for (int j = 0; j < n; ++j) {
      const int c = i * n + j;
      const double coef = prop > 0 ? thr[i][j] * sf[i] / (weight[i] * prop) : 0.0;
      rows.insert(rows.end(), {i, m + j, m + n + i});
      colv.insert(colv.end(), {c, c, c});
      vals.insert(vals.end(), {coef, static_cast<double>(sf[i]), 1.0});
    }
    rows.push_back(i);
    colv.push_back(m * n);
    vals.push_back(-1.0);
  }
  CoinPackedMatrix A(true, rows.data(), colv.data(), vals.data(), static_cast<CoinBigIndex>(vals.size()));
  A.setDimensions(rows_n, cols);
  std::vector<double> lo(cols, 0.0), hi(cols, 1.0), obj(cols, 0.0), rlo(rows_n), rhi(rows_n);
  hi[m * n] = COIN_DBL_MAX;
  obj[m * n] = 1.0;
  for (int i = 0; i < m; ++i) rlo[i] = 0.0, rhi[i] = COIN_DBL_MAX;
  for (int j = 0; j < n; ++j) rlo[m + j] = -COIN_DBL_MAX, rhi[m + j] = gpus[j];
  for (int i = 0; i < m; ++i) rlo[m + n + i] = -COIN_DBL_MAX, rhi[m + n + i] = 1.0;
  OsiClpSolverInterface lp;
  lp.messageHandler()->setLogLevel(0);
  lp.loadProblem(A, lo.data(), hi.data(), obj.data(), rlo.data(), rhi.data());
  lp.setObjSense(-1);
  lp.initialSolve();
  if (!lp.isProvenOptimal()) throw InvariantError("Gavel's max-min fairness LP: Clp found no optimum (x = 0 is feasible)");
  const double* s = lp.getColSolution();
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) x[i][j] = std::clamp(s[i * n + j], 0.0, 1.0);  // as Gavel clips cvxpy's values
  return x;
}

}  // namespace rm
