// Synergy-OPT (spec S.6.6) on the round model, with the capacity fix of S.9 Q6 for every policy. LP1, the
// integer program over job types, is shared with the job-level `opt` allocation (policy/allocation/opt_ilp.h).
// LP2 (placing the chosen sizes on servers) is replaced by TUNE's placement with the ILP's sizes as the
// jobs' demands: always feasible, and never below the proportional share (a job that does not fit at its
// size runs at its proportional share, shrinking peers to theirs if needed).
#include <algorithm>

#include "core/error.h"
#include "policy/allocation/opt_ilp.h"
#include "synergy/state.h"

namespace rm::synergy {

namespace {

struct Type {
  const Profile* prof = nullptr;
  int g = 0;
  std::vector<Job*> jobs;
  std::vector<OptOption> opts;  // Pareto front, best throughput first
};

std::vector<OptOption> options_of(const Profile& p, int g, const ResCluster& cl) {
  const Vec& f = cl.fair();
  return opt_options(p, g, f[kCpu], f[kMem], cl.gpus_per_server(), cl.per_server()[kCpu], cl.per_server()[kMem]);
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
  std::vector<OptType> ilp;
  for (const auto& t : types) ilp.push_back({t.prof->model, t.g, static_cast<int>(t.jobs.size()), t.opts});
  const auto counts = solve_opt(ilp, cpu, mem);
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
    for (; next < types[t].jobs.size(); ++next) {  // no option (the ILP's fallback): the proportional share
      Job* j = types[t].jobs[next];
      saved.push_back({j, {j->c, j->m}});
      j->c = cl.fair()[kCpu] * j->g;
      j->m = cl.fair()[kMem] * j->g;
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
