#include "run/planner_run.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "core/error.h"
#include "run/simulation.h"
#include "exec/comm_model.h"
#include "models/rate/rate_model.h"
#include "policy/planner/plan_scheduler.h"
#include "run/loaders.h"

namespace rm {

// Planner policies ("sjf-bco[:kappa=K;lambda=L;horizon=T;u=U;lbsgf=prefix|global;model=abstract|physical]",
// "ls", "ff", "rand"): plan the whole (offline) job set, then let the engine execute the plan under the same model.
void check_planner_workload(const RunPlan& p, const SimResult& r) {
  for (const auto& j : r.workload.jobs)
    if (j.submit != 0)
      throw InputError(j.file, j.line, "submit",
                       "the offline planners need every job at time 0 (" + p.policy.parts.front().name + ")");
}

double plan_workload(const RunPlan& p, SimResult& sr) {
  check_planner_workload(p, sr);
  SimResult* r = &sr;
  const std::string& name = p.policy.parts.front().name;
  const plan::PlanOptions& opt = p.planner.opt;
  const double lambda = p.planner.lambda;
  const bool physical = p.planner.physical;
  plan::Instance in;
  for (const auto& s : r->cluster.servers) in.server_gpus.push_back(s.gpus);
  for (const auto& j : r->workload.jobs) {
    // tau0: contention- and overhead-free (spec B.9 S1); physical: the ideal placement's iteration time.
    const double tau0 = (physical ? ideal_iteration_time_s(j, r->cluster) : j.compute_s) / p.run.yu.slot_s;
    in.jobs.push_back({static_cast<int>(j.id), j.num_gpus, j.iterations, tau0, j.iterations * tau0, lambda});
  }
  if (physical) {
    std::vector<const JobSpec*> specs;
    for (const auto& j : r->workload.jobs) specs.push_back(&j);
    in.law = plan::physical_law(std::move(specs), r->cluster, p.run.yu.slot_s);
  }
  const auto t0 = std::chrono::steady_clock::now();
  yu::ModelParams mp = p.run.yu;
  mp.floor_slots = p.compat == Compat::Yu2022;
  r->schedule = plan::make_plan(name, in, mp, opt);
  const double plan_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r->schedule.ok)
    throw InputError("--policy", 0, p.policy.text,
                     fmt::format("no schedule fits within the horizon of {:g} slots (raise horizon=)", opt.horizon));
  return plan_s;
}

std::unique_ptr<SimResult> run_planner(const RunPlan& p, std::unique_ptr<SimResult> r) {
  const double plan_s = plan_workload(p, *r);
  const bool physical = p.planner.physical;
  yu::ModelParams mp = p.run.yu;
  mp.floor_slots = p.compat == Compat::Yu2022;
  r->scheduler = std::make_unique<plan::PlanScheduler>(p.policy.text, r->schedule, r->cluster, p.run.yu.slot_s);
  EngineOptions eo;
  eo.progress = p.run.progress;
  r->engine = std::make_unique<Engine>(r->cluster, r->workload.jobs, *r->scheduler,
                                      make_rate_model(r->cluster, physical ? nullptr : &mp), eo);
  r->engine->run();
  r->record = record_of(*r->engine);
  if (!physical)  // Yu et al.'s abstract law has no ideal placement in the rate law's sense: no stretch
    for (auto& j : r->record.jobs) j.ideal_us = kNever;
  // The engine must reproduce the plan (same model, same starts): a mismatch is a bug.
  double makespan = 0, sum = 0;
  for (const auto& j : r->record.jobs) {
    const double f = to_seconds(j.finish) / p.run.yu.slot_s;
    makespan = std::max(makespan, f);
    sum += f;
    if (std::abs(f - r->schedule.jobs[j.spec->id].finish) > 1e-6 * (1 + f))
      throw InvariantError("job " + j.spec->name + " finished at slot " + std::to_string(f) + ", planned " +
                           std::to_string(r->schedule.jobs[j.spec->id].finish));
  }
  r->record.extra = {{"makespan_slots", makespan},
                    {"avg_jct_slots", r->record.jobs.empty() ? 0 : sum / static_cast<double>(r->record.jobs.size())},
                    {"slot_s", p.run.yu.slot_s},
                    {"gpus", static_cast<double>(r->cluster.total_gpus())},
                    {"theta", static_cast<double>(r->schedule.theta)},
                    {"kappa", static_cast<double>(r->schedule.kappa)},
                    {"passes", static_cast<double>(r->schedule.passes)},
                    {"plan_s", plan_s}};
  return r;
}

}  // namespace rm
