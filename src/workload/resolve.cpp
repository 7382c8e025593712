// resolve_workload: catalogue lookup, model-assignment rule, iterations from durations, feasibility.
#include <algorithm>

#include "core/error.h"
#include "core/rng.h"
#include "exec/comm_model.h"
#include "workload/trace.h"

namespace rm {
namespace {

// Jobs without a model (the Philly list) get one of P1's four models (spec A.3.1), chosen by a hash
// of (seed, job index): stable under reordering and independent of other jobs.
const char* const kDefaultMix[] = {"resnet50", "vgg16", "inception3", "lstm"};

}  // namespace

void resolve_workload(Workload& w, const ModelCatalogue& cat, const ClusterSpec& cluster,
                      const ResolveOptions& opt, std::vector<Unschedulable>* unschedulable) {
  std::vector<JobSpec> kept;
  kept.reserve(w.jobs.size());
  for (std::size_t i = 0; i < w.jobs.size(); ++i) per_row(w, [&] {
    JobSpec& j = w.jobs[i];
    const RawTimes& raw = w.raw[i];
    if (j.model.empty()) j.model = kDefaultMix[mix_seed(opt.seed, static_cast<std::uint64_t>(i)) % 4];
    const auto prof = cat.find(j.model, j.batch_size, w.model_qualifier[i]);
    const bool explicit_all = raw.compute_s > 0 && raw.grad_mb >= 0 && raw.gpu_mem_mb >= 0;
    if (!prof && !explicit_all)
      throw InputError(j.file, j.line, "model", "unknown model '" + j.model + "' (see `ringmaster list-models`)");
    if (prof) j.model = prof->name;
    j.compute_s = raw.compute_s > 0 ? raw.compute_s : prof->compute_ms / 1000.0;
    if (raw.compute_s > 0 && raw.forward_s > 0) j.forward_s = raw.forward_s;
    j.grad_mb = raw.grad_mb >= 0 ? raw.grad_mb : prof->grad_mb;
    j.gpu_mem_mb = raw.gpu_mem_mb >= 0 ? raw.gpu_mem_mb : prof->gpu_mem_mb;
    if (raw.iter_time_s > 0) {
      // The trace measured this job: its isolated iteration time is the truth, communication on the
      // ideal placement is part of it.
      j.compute_s = std::max(raw.iter_time_s - ideal_comm_s(j, cluster), raw.iter_time_s * 1e-3);
    }
    if (j.iterations <= 0) j.iterations = j.duration_s / ideal_iteration_time_s(j, cluster);
    // Feasibility on an idle cluster: enough GPUs on servers with enough GPU memory.
    int fit = 0;
    for (const auto& s : cluster.servers)
      if (s.gpu_mem_gb * 1024.0 >= j.gpu_mem_mb) fit += s.gpus;
    std::string why;
    if (j.num_gpus > fit)
      why = location(j.file, j.line, "num_gpus") + ": job " + j.name + " asks for " + std::to_string(j.num_gpus) +
            " GPUs, the cluster has " + std::to_string(fit) +
            (fit < cluster.total_gpus() ? " with enough GPU memory" : "");
    if (!why.empty()) {
      if (!opt.skip_unschedulable) throw InputError(why + " (use --skip-unschedulable to report and go on)");
      if (unschedulable) unschedulable->push_back({j, why});
      return;
    }
    kept.push_back(std::move(j));
  });
  std::stable_sort(kept.begin(), kept.end(),
                   [](const JobSpec& a, const JobSpec& b) { return a.submit < b.submit; });
  // Dense ids in submit order; the trace's own id stays in `name`.
  for (std::size_t i = 0; i < kept.size(); ++i) kept[i].id = static_cast<JobId>(i);
  w.jobs = std::move(kept);
  w.raw.clear();
  w.model_qualifier.clear();
}

}  // namespace rm
