// SJF-BCO online (ours; the paper is offline only): at every scheduling point with jobs waiting, re-plan
// the waiting jobs with SJF-BCO around the running ones (which keep their GPUs until they finish, at
// their projected times), and start the jobs the plan starts now, on the GPUs it gives them. Runs on
// the engine's `rate` model, whose law (ring all-reduce, NIC shared by split jobs) the plan uses too.
#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "exec/comm_model.h"
#include "policy/planner/planner.h"
#include "policy/planner/sjf_bco_online.h"

namespace rm::plan {
namespace {

class SjfBcoOnline : public Scheduler {
 public:
  SjfBcoOnline(PlanOptions opt, double lambda) : opt_(opt), lambda_(lambda) {}
  std::string name() const override { return "sjf-bco-online"; }

  Decisions schedule(const SchedContext& ctx) override {
    Decisions d;
    const ClusterSpec& cs = ctx.cluster.spec();
    std::vector<const JobState*> jobs;
    // The plan starts a job now only on GPUs free now (running jobs keep theirs): with no waiting job that
    // fits the free GPUs, no plan can start anything, so none is computed (same decisions, far fewer plans).
    bool fits_now = false;
    const int free = ctx.cluster.free_gpus();
    for (const JobState* j : ctx.active)
      if (j->status == JobStatus::Queued || j->running()) {
        jobs.push_back(j);
        fits_now = fits_now || (j->status == JobStatus::Queued && j->spec->num_gpus <= free);
      }
    if (!fits_now) return d;
    std::vector<int> first(cs.servers.size(), 0);
    std::vector<GpuRef> refs;
    for (int s = 0, n = 0; s < static_cast<int>(cs.servers.size()); ++s) {
      first[s] = n;
      for (int g = 0; g < cs.servers[s].gpus; ++g, ++n) refs.push_back({s, g});
    }
    Instance in;
    for (const auto& s : cs.servers) in.server_gpus.push_back(s.gpus);
    double horizon = 1;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const JobState& j = *jobs[i];
      const double tau0 = ideal_iteration_time_s(*j.spec, cs) / kSlot;
      const double left = j.running() ? j.remaining_at(ctx.now) : j.spec->iterations;
      in.jobs.push_back({static_cast<int>(i), j.spec->num_gpus, j.spec->iterations, tau0, j.spec->iterations * tau0,
                         lambda_});
      horizon += left * tau0;
      if (j.running()) {
        Running r{static_cast<int>(i), {}, left};
        for (const auto& g : j.gpus) r.gpus.push_back(first[g.server] + g.gpu);
        in.running.push_back(std::move(r));
      }
    }
    std::vector<const JobSpec*> specs;
    for (const JobState* j : jobs) specs.push_back(j->spec);
    in.law = physical_law(std::move(specs), cs, kSlot);
    // Jobs one after another always fit within the summed ideal times times the worst slowdown; widen
    // the horizon until a plan fits.
    PlanOptions opt = opt_;
    Plan p;
    for (double h = 4 * horizon + 10; !p.ok; h *= 4) {
      if (h > 1e12) throw InvariantError("sjf-bco-online: no plan fits");
      opt.horizon = std::ceil(h);
      p = plan_sjf_bco(in, yu::ModelParams{}, opt);
    }
    for (std::size_t i = 0; i < jobs.size(); ++i)
      if (jobs[i]->status == JobStatus::Queued && p.jobs[i].start <= 1e-12) {
        StartDecision s{jobs[i]->id(), {}, {}};
        for (int g : p.jobs[i].gpus) s.gpus.push_back(refs.at(g));
        d.start.push_back(std::move(s));
      }
    return d;
  }

 private:
  const double kSlot = yu::ModelParams{}.slot_s;  // any unit works: the plan is relative to now
  PlanOptions opt_;
  double lambda_;
};

}  // namespace

std::unique_ptr<Scheduler> make_sjf_bco_online(PluginParams& p) {
  PlanOptions opt;
  opt.kappa = p.get_int("kappa", 0, 0, 1'000'000);
  opt.u = p.get_double("u", 1, 1, 1e6);
  const double lambda = p.get_double("lambda", 1, 1, 1e6);
  if (opt.kappa < 0 || !(opt.u > 0) || !(lambda >= 1))
    throw InputError("--policy", 0, "sjf-bco-online", "needs kappa >= 0, u > 0, lambda >= 1");
  return std::make_unique<SjfBcoOnline>(opt, lambda);
}

}  // namespace rm::plan
