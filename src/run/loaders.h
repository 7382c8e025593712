// The loaders every route reads its inputs with (run/loaders.cpp): the cluster, the workload and the model
// catalogue of a config, with file:line:field errors; the offered load and the arrival scaling.
#pragma once
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "exec/comm_model.h"
#include "run/sim_config.h"
#include "workload/model_catalogue.h"
#include "workload/trace.h"

namespace rm {

// The cluster of a config: a preset, a YAML file, or "yu2022" (generated from --seed and --servers).
ClusterSpec load_config_cluster(const InputSpec& cfg);

// The workload of a config (reading, catalogue, resolution) without running it.
// `ideal`: the ideal times a trace's durations are turned into iterations with (default: the analytic law on the
// cluster's first GPU type).
Workload load_workload(const InputSpec& cfg, const ClusterSpec& cluster, std::vector<Unschedulable>* unsched,
                       std::vector<std::string>* errors = nullptr, ModelMapping* mapping = nullptr,
                       const IdealTimes* ideal = nullptr);
// GPU-seconds the jobs demand at their ideal under `law`, and Workload::offered_load: that over the cluster's
// GPU-seconds across the jobs' arrival span (NaN when they arrive at one instant).
double demand_gpu_s(const std::vector<JobSpec>& jobs, const BoundIdealTimes& law);
double offered_load(double demand_gpu_s, const std::vector<JobSpec>& jobs, const ClusterSpec& cluster);
// Every submit time x `scale` (--arrival-scale, --load on a trace); a deadline keeps its slack after its submit.
// InputError naming `option` past the submit-time limit.
void scale_arrivals(Workload& w, double scale, const std::string& option);
// --trace-gpu-type as an index into the cluster's GPU types (0 when not given); InputError naming the option.
int trace_type_of(const InputSpec& cfg, const ClusterSpec& cluster);

const ModelCatalogue& load_catalogue(const std::string& path);

}  // namespace rm
