#include "policy/allocation/opt_ilp.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.h"
#include "policy/coin.h"

namespace rm {

std::vector<OptOption> opt_options(const synergy::Profile& p, int g, double fair_c, double fair_m,
                                   int gpus_per_server, double server_cpus, double server_mem) {
  const double fair = p.tput_at(fair_c, fair_m);
  const double span = std::min(g, gpus_per_server);
  std::vector<OptOption> all;
  for (int a = 0; a < 9; ++a)
    for (int b = 0; b < 5; ++b) {
      const OptOption o{synergy::kCpuLevels[a], synergy::kMemLevels[b], p.tput[a][b]};
      if (o.tput >= fair && o.c * span <= server_cpus && o.m * span <= server_mem) all.push_back(o);
    }
  std::vector<OptOption> front;
  for (const auto& o : all) {
    bool dominated = false;
    for (const auto& q : all)
      dominated |= q.tput >= o.tput && q.c <= o.c && q.m <= o.m && (q.tput > o.tput || q.c < o.c || q.m < o.m);
    if (!dominated) front.push_back(o);
  }
  if (front.empty()) front.push_back({fair_c, fair_m, fair});  // the proportional cell is always allowed
  std::stable_sort(front.begin(), front.end(), [](const OptOption& x, const OptOption& y) {
    return x.tput != y.tput ? x.tput > y.tput : x.c * 1000 + x.m < y.c * 1000 + y.m;
  });
  return front;
}

namespace {
// The capacities and every type's name, size, count and options, as raw bytes (exact, and cheap to build).
std::string cache_key(const std::vector<OptType>& types, double cpu_cap, double mem_cap) {
  std::string key;
  const auto put = [&key](const auto& x) { key.append(reinterpret_cast<const char*>(&x), sizeof x); };
  put(cpu_cap);
  put(mem_cap);
  for (const auto& t : types) {
    key += t.name;
    key += '\0';
    put(t.g);
    put(t.n);
    for (const auto& o : t.opts) {
      put(o.c);
      put(o.m);
      put(o.tput);
    }
  }
  return key;
}
}  // namespace

std::vector<std::vector<int>> solve_opt(const std::vector<OptType>& types, double cpu_cap, double mem_cap) {
  static std::map<std::string, std::vector<std::vector<int>>> cache;
  const std::string key = cache_key(types, cpu_cap, mem_cap);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  {  // Every job at its best option fits: that is optimal, no solver needed.
    double c = 0, m = 0;
    for (const auto& t : types) {
      c += t.opts[0].c * t.g * static_cast<double>(t.n);
      m += t.opts[0].m * t.g * static_cast<double>(t.n);
    }
    if (c <= cpu_cap && m <= mem_cap) {
      std::vector<std::vector<int>> out;
      for (const auto& t : types) {
        out.emplace_back(t.opts.size(), 0);
        out.back()[0] = t.n;
      }
      return out;
    }
  }

  // Every job gets exactly one option when that is feasible. It is not when the jobs handed over need more
  // CPUs or memory at their proportional cells than are free (more jobs than free GPUs, or peers holding more
  // than their share): then each type's count may fall short, and the jobs left without an option keep their
  // proportional demands for the placement that follows.
  int col = 0;
  std::vector<double> solution;
  for (const bool exact : {true, false}) {
    std::vector<double> obj, lo, hi;
    std::vector<int> rows, cols;
    std::vector<double> vals;
    const int R = static_cast<int>(types.size()) + 2;  // one row per type, then CPU, memory
    std::vector<double> rlo(R), rhi(R);
    col = 0;
    for (std::size_t t = 0; t < types.size(); ++t) {
      const double n = static_cast<double>(types[t].n);
      rlo[t] = exact ? n : 0.0;
      rhi[t] = n;
      for (const auto& o : types[t].opts) {
        obj.push_back(o.tput);
        lo.push_back(0);
        hi.push_back(n);
        rows.insert(rows.end(), {static_cast<int>(t), R - 2, R - 1});
        cols.insert(cols.end(), {col, col, col});
        vals.insert(vals.end(), {1.0, o.c * types[t].g, o.m * types[t].g});
        ++col;
      }
    }
    rlo[R - 2] = rlo[R - 1] = -kCoinInf;
    rhi[R - 2] = cpu_cap;
    rhi[R - 1] = mem_cap;
    const TripletLp lp{R, col, std::move(rows), std::move(cols), std::move(vals), std::move(lo), std::move(hi),
                       std::move(obj), std::move(rlo), std::move(rhi), -1};
    if (coin().cbc_integer_solve(lp, solution)) break;
  }
  std::vector<std::vector<int>> out(types.size());
  if (solution.empty()) throw InvariantError("Synergy-OPT: the relaxed ILP has no solution (all zeros is feasible)");
  const double* x = solution.data();
  col = 0;
  for (std::size_t t = 0; t < types.size(); ++t)
    for (std::size_t o = 0; o < types[t].opts.size(); ++o) out[t].push_back(static_cast<int>(std::lround(x[col++])));
  if (cache.size() > 4096) cache.clear();
  return cache.emplace(key, out).first->second;
}

}  // namespace rm
