// Synergy-OPT (spec S.6.6), with the capacity fix of S.9 Q6 for every policy. LP1 as an integer program
// solved by COIN-OR Cbc (Clp underneath): jobs of the same (model, GPUs) are interchangeable, so the
// variables are counts n[type][option] over each type's Pareto-optimal (CPU, memory) matrix cells with
// throughput >= the proportional cell; maximise the summed throughput under the free CPUs and memory.
// LP2 (placing the chosen sizes on servers) is replaced by a constructive rounding that is always feasible:
// place every job at its proportional share, shrink the jobs whose choice is smaller, then grow each job to
// its choice, or to the best option that still fits on its servers, in scheduling order.
#include <CbcModel.hpp>
#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>

#include <algorithm>
#include <map>

#include "core/error.h"
#include "synergy/state.h"

namespace rm::synergy {

namespace {

struct Option {
  double c = 0, m = 0, tput = 0;  // per GPU
};

struct Type {
  const Profile* prof = nullptr;
  int g = 0;
  std::vector<Job*> jobs;
  std::vector<Option> opts;  // Pareto front, best throughput first
};

std::vector<Option> options_of(const Profile& p, int g, const ResCluster& cl) {
  const Vec& f = cl.fair();
  const double fair = p.tput_at(f[kCpu], f[kMem]);
  const double span = std::min(g, cl.gpus_per_server());
  std::vector<Option> all;
  for (int a = 0; a < 9; ++a)
    for (int b = 0; b < 5; ++b) {
      const Option o{kCpuLevels[a], kMemLevels[b], p.tput[a][b]};
      if (o.tput >= fair && o.c * span <= cl.per_server()[kCpu] && o.m * span <= cl.per_server()[kMem])
        all.push_back(o);
    }
  std::vector<Option> front;
  for (const auto& o : all) {
    bool dominated = false;
    for (const auto& q : all)
      dominated |= q.tput >= o.tput && q.c <= o.c && q.m <= o.m && (q.tput > o.tput || q.c < o.c || q.m < o.m);
    if (!dominated) front.push_back(o);
  }
  if (front.empty()) front.push_back({f[kCpu], f[kMem], fair});  // the proportional cell is always allowed
  std::stable_sort(front.begin(), front.end(), [](const Option& x, const Option& y) {
    return x.tput != y.tput ? x.tput > y.tput : x.c * 1000 + x.m < y.c * 1000 + y.m;
  });
  return front;
}

// Counts per (type, option), maximising summed throughput under CPU and memory capacity.
std::vector<std::vector<int>> solve(const std::vector<Type>& types, double cpu_cap, double mem_cap) {
  static std::map<std::string, std::vector<std::vector<int>>> cache;
  std::string key = std::to_string(cpu_cap) + "/" + std::to_string(mem_cap);
  for (const auto& t : types) key += "|" + t.prof->model + "x" + std::to_string(t.g) + "n" + std::to_string(t.jobs.size());
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  {  // Every job at its best option fits: that is optimal, no solver needed.
    double c = 0, m = 0;
    for (const auto& t : types) {
      c += t.opts[0].c * t.g * static_cast<double>(t.jobs.size());
      m += t.opts[0].m * t.g * static_cast<double>(t.jobs.size());
    }
    if (c <= cpu_cap && m <= mem_cap) {
      std::vector<std::vector<int>> out;
      for (const auto& t : types) {
        out.emplace_back(t.opts.size(), 0);
        out.back()[0] = static_cast<int>(t.jobs.size());
      }
      return out;
    }
  }

  std::vector<double> obj, lo, hi;
  std::vector<int> rows, cols;
  std::vector<double> vals;
  const int R = static_cast<int>(types.size()) + 2;  // one row per type, then CPU, memory
  std::vector<double> rlo(R), rhi(R);
  int col = 0;
  for (std::size_t t = 0; t < types.size(); ++t) {
    const double n = static_cast<double>(types[t].jobs.size());
    rlo[t] = rhi[t] = n;
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
  rlo[R - 2] = rlo[R - 1] = -COIN_DBL_MAX;
  rhi[R - 2] = cpu_cap;
  rhi[R - 1] = mem_cap;
  CoinPackedMatrix A(true, rows.data(), cols.data(), vals.data(), static_cast<CoinBigIndex>(vals.size()));
  A.setDimensions(R, col);
  OsiClpSolverInterface lp;
  lp.messageHandler()->setLogLevel(0);
  lp.loadProblem(A, lo.data(), hi.data(), obj.data(), rlo.data(), rhi.data());
  lp.setObjSense(-1);
  for (int i = 0; i < col; ++i) lp.setInteger(i);
  CbcModel model(lp);
  model.setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  model.branchAndBound();
  std::vector<std::vector<int>> out(types.size());
  const double* x = model.bestSolution();
  if (!x) throw InvariantError("Synergy-OPT: the ILP has no solution (the proportional choice is always feasible)");
  col = 0;
  for (std::size_t t = 0; t < types.size(); ++t)
    for (std::size_t o = 0; o < types[t].opts.size(); ++o) out[t].push_back(static_cast<int>(std::lround(x[col++])));
  if (cache.size() > 4096) cache.clear();
  return cache.emplace(key, out).first->second;
}

// Per-server vectors of `j` sized to `o` per GPU (storage unchanged).
std::vector<std::pair<int, Vec>> sized(const Job& j, const Option& o) {
  std::vector<std::pair<int, Vec>> out = j.res;
  for (auto& [s, v] : out) {
    v[kCpu] = o.c * v[kGpu];
    v[kMem] = o.m * v[kGpu];
  }
  return out;
}

bool fits_resize(ResCluster& cl, const Job& j, const std::vector<std::pair<int, Vec>>& want) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto& [s, v] = want[i];
    const Vec a = cl.avail(s);
    for (int k = kCpu; k <= kMem; ++k)
      if (v[k] - j.res[i].second[k] > a[k]) return false;
  }
  return true;
}

void apply(ResCluster& cl, Job& j, const std::vector<std::pair<int, Vec>>& want) {
  for (const auto& [s, v] : want) cl.resize(j, s, v);
}

}  // namespace

std::vector<Job*> allocate_opt(PassCtx& ctx, const std::vector<Job*>& jobs) {
  ResCluster& cl = ctx.cl;
  // Phase 1: proportional shares (always feasible for jobs whose GPUs are free).
  std::vector<Job*> placed;
  for (Job* j : jobs)
    if (cl.first_fit(*j, proportional_demand(*j, cl, false), ctx.consolidated)) placed.push_back(j);
  if (placed.empty()) return placed;
  std::vector<Type> types;
  for (Job* j : placed) {
    auto it = std::find_if(types.begin(), types.end(), [&](const Type& t) { return t.prof == j->prof && t.g == j->g; });
    if (it == types.end()) {
      types.push_back({j->prof, j->g, {}, options_of(*j->prof, j->g, cl)});
      it = types.end() - 1;
    }
    it->jobs.push_back(j);
  }
  double cpu = 0, mem = 0;
  for (int s = 0; s < cl.num_servers(); ++s) {
    const Vec a = cl.avail(s);
    cpu += a[kCpu];
    mem += a[kMem];
  }
  for (Job* j : placed)
    for (const auto& [s, v] : j->res) {
      cpu += v[kCpu];
      mem += v[kMem];
    }
  const auto counts = solve(types, cpu, mem);
  // Targets: within a type, the better options go to the jobs first in scheduling order.
  std::map<const Job*, std::pair<const Type*, Option>> target;
  for (std::size_t t = 0; t < types.size(); ++t) {
    std::size_t next = 0;
    for (std::size_t o = 0; o < types[t].opts.size(); ++o)
      for (int k = 0; k < counts[t][o] && next < types[t].jobs.size(); ++k)
        target[types[t].jobs[next++]] = {&types[t], types[t].opts[o]};
  }
  // Phase 2: shrink first (frees room), then grow in scheduling order.
  for (Job* j : placed) {
    const Option& o = target[j].second;
    auto want = sized(*j, o);
    for (std::size_t i = 0; i < want.size(); ++i)
      for (int k = kCpu; k <= kMem; ++k) want[i].second[k] = std::min(want[i].second[k], j->res[i].second[k]);
    apply(cl, *j, want);
  }
  for (Job* j : placed) {
    const auto& [type, o] = target[j];
    if (auto want = sized(*j, o); fits_resize(cl, *j, want)) {
      apply(cl, *j, want);
    } else {
      for (const Option& alt : type->opts)
        if (auto w = sized(*j, alt); fits_resize(cl, *j, w)) {
          apply(cl, *j, w);
          break;
        }
    }
    // Speed: the matrix cell of what it holds now, relative to the proportional cell.
    const Vec t = j->alloc_total();
    const Vec& f = cl.fair();
    const double fair = j->prof->tput_at(f[kCpu], f[kMem]);
    j->speed = fair > 0 ? j->prof->tput_at(t[kCpu] / j->g, t[kMem] / j->g) / fair : 1.0;
    ctx.credit(*j, false);
  }
  return placed;
}

}  // namespace rm::synergy
