// Synergy-OPT (spec S.6.6), with the capacity fix of S.9 Q6 for every policy. LP1 as an integer program
// solved by COIN-OR Cbc (Clp underneath): jobs of the same (model, GPUs) are interchangeable, so the
// variables are counts n[type][option] over each type's Pareto-optimal (CPU, memory) matrix cells with
// throughput >= the proportional cell; maximise the summed throughput under the free CPUs and memory.
// LP2 (placing the chosen sizes on servers) is replaced by TUNE's placement with the ILP's sizes as the
// jobs' demands: always feasible, and never below the proportional share (a job that does not fit at its
// size runs at its proportional share, shrinking peers to theirs if needed).
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

}  // namespace

std::vector<Job*> allocate_opt(PassCtx& ctx, const std::vector<Job*>& jobs) {
  ResCluster& cl = ctx.cl;
  std::vector<Type> types;
  for (Job* j : jobs) {
    if (j->g > cl.free_gpus()) continue;
    auto it = std::find_if(types.begin(), types.end(), [&](const Type& t) { return t.prof == j->prof && t.g == j->g; });
    if (it == types.end()) {
      types.push_back({j->prof, j->g, {}, options_of(*j->prof, j->g, cl)});
      it = types.end() - 1;
    }
    it->jobs.push_back(j);
  }
  if (types.empty()) return {};
  double cpu = 0, mem = 0;
  for (int s = 0; s < cl.num_servers(); ++s) {
    const Vec a = cl.avail(s);
    cpu += a[kCpu];
    mem += a[kMem];
  }
  const auto counts = solve(types, cpu, mem);
  // The ILP's sizes become the jobs' demands for this pass (the better options go to the jobs first in
  // scheduling order), and TUNE places them: demand if it fits, else the proportional share, else peers
  // shrunk to theirs. So no job gets less than its proportional throughput.
  std::vector<std::pair<Job*, std::pair<double, double>>> saved;
  for (std::size_t t = 0; t < types.size(); ++t) {
    std::size_t next = 0;
    for (std::size_t o = 0; o < types[t].opts.size(); ++o)
      for (int k = 0; k < counts[t][o] && next < types[t].jobs.size(); ++k) {
        Job* j = types[t].jobs[next++];
        saved.push_back({j, {j->c, j->m}});
        j->c = types[t].opts[o].c * j->g;
        j->m = types[t].opts[o].m * j->g;
      }
  }
  const bool matrix = ctx.matrix_speed;
  ctx.matrix_speed = true;  // OPT's speed is the matrix cell of the allocation
  std::vector<Job*> placed;
  for (Job* j : jobs)
    if (j->gpus.empty() && j->g <= cl.free_gpus() && allocate_tune(ctx, *j)) placed.push_back(j);
  ctx.matrix_speed = matrix;
  for (auto& [j, cm] : saved) {
    j->c = cm.first;
    j->m = cm.second;
  }
  return placed;
}

}  // namespace rm::synergy
