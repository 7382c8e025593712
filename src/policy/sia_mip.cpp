// policy/sia_mip.h: sia.py's constraints in its order, solved through policy/pulp_cbc.h.
#include "policy/sia_mip.h"

#include <cmath>

#include "core/error.h"
#include "policy/pulp_cbc.h"

namespace rm::sia {

SiaSolution solve_sia_program(const SiaProgram& p) {
  const int n = p.jobs, c = p.configs, m = n * c, types = static_cast<int>(p.capacity.size());
  LpModel lp;
  lp.mip = true;
  lp.maximize = !p.minimize;
  lp.ratio = p.ratio;
  lp.cols.resize(static_cast<std::size_t>(m));
  auto& col = lp.cols;
  auto row = [&](char s, double r) { return lp.add_row(s, r); };
  for (int j = 0; j < m; ++j) col[static_cast<std::size_t>(j)].push_back({row('L', 0.0), -1.0});  // X >= 0
  for (int j = 0; j < m; ++j) col[static_cast<std::size_t>(j)].push_back({row('L', 1.0), 1.0});   // X <= 1
  for (int t = 0; t < types; ++t) {  // GPUs of each type <= its GPUs
    const int r = row('L', p.capacity[static_cast<std::size_t>(t)]);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < c; ++k)
        if (p.config_type[static_cast<std::size_t>(k)] == t)
          col[static_cast<std::size_t>(i * c + k)].push_back({r, static_cast<double>(p.config_gpus[static_cast<std::size_t>(k)])});
  }
  for (int t = 0; t < types; ++t) {  // ... >= 0
    const int r = row('L', 0.0);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < c; ++k)
        if (p.config_type[static_cast<std::size_t>(k)] == t)
          col[static_cast<std::size_t>(i * c + k)].push_back({r, -static_cast<double>(p.config_gpus[static_cast<std::size_t>(k)])});
  }
  for (int i = 0; i < n; ++i) {  // one configuration per job
    const int r = row('L', 1.0);
    for (int k = 0; k < c; ++k) col[static_cast<std::size_t>(i * c + k)].push_back({r, 1.0});
  }
  for (const auto& [i, k] : p.pinned) col[static_cast<std::size_t>(i * c + k)].push_back({row('E', 1.0), 1.0});

  std::vector<double> obj(static_cast<std::size_t>(m));
  for (int j = 0; j < m; ++j) obj[static_cast<std::size_t>(j)] = p.A[static_cast<std::size_t>(j)] + (-p.lambda_n);

  lp.obj = obj;
  const LpResult r = solve_like_pulp(lp);
  if (static_cast<int>(r.x.size()) != m) throw InvariantError("sia: Cbc returned no solution");
  SiaSolution s;
  s.rows = static_cast<int>(lp.sense.size());
  s.cols = m;
  s.optimal = r.optimal;
  s.choice.assign(static_cast<std::size_t>(n), -1);
  double value = 0;
  for (int j = 0; j < m; ++j) {
    const double v = std::nearbyint(r.x[static_cast<std::size_t>(j)]);
    if (v != 0) {
      s.ones.push_back(j);
      value += obj[static_cast<std::size_t>(j)] * v;
      const int i = j / c, k = j % c;
      if (s.choice[static_cast<std::size_t>(i)] < 0) s.choice[static_cast<std::size_t>(i)] = k;  // numpy argmax: first
    }
  }
  s.objective = value + p.lambda_n * n;
  return s;
}

}  // namespace rm::sia
