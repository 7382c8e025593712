// The performance-model seam (docs/perf-model.md): how long one iteration of a job takes, as a function of its
// model, batch, GPU type, placement (GPUs per server) and, for the analytic law, the split jobs it shares NICs
// with. Chosen by --perf-model; the rate and graph models ask it, summary.json names it (`perf_model`).
//   analytic             compute / the type's speed + ring all-reduce with the contention law (comm_model.h)
//   measured:<source>    Pollux's or Sia's per-placement step times, Gavel's or ElasticFlow's throughputs, read in
//                        place under --data-dir; a job without a table runs under `analytic` and is counted
//   trace                (the engine's): every job runs its ideal time whatever its placement
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "exec/comm_model.h"

namespace rm {

class PerfModel {
 public:
  virtual ~PerfModel() = default;
  virtual std::string name() const = 0;
  // Whether a job's iteration time depends on the split jobs beside it (the rate model then re-rates them).
  virtual bool contends() const = 0;
  // Seconds per iteration of j on `span` (servers of one GPU type); k_of(s) = split jobs on server s, j included;
  // rack_k(r) = jobs crossing rack r's uplink, j included (comm_model.h; none given: 1).
  virtual double iteration_s(const JobSpec& j, const Span& span, const std::function<int(int)>& k_of,
                             const std::function<int(int)>& rack_k = nullptr) = 0;
  // Seconds per iteration at j's best placement on an idle cluster of GPU type `type` (the fewest servers of
  // that type; GpuTypes index).
  virtual double ideal_iteration_s(const JobSpec& j, int type) = 0;
  // Whether the model has its own figures for j on some GPU type of the cluster (a measured model: a table).
  virtual bool covers(const JobSpec&) { return true; }
  // A measured model's slowdown of `span` over j's best placement on GPU type `type`, alone (the round model's
  // placement term); nullopt where it measured not both (counted like a fallback) or for a law.
  virtual std::optional<double> placement_factor(const JobSpec&, const Span&, int /*type*/) { return std::nullopt; }
  // summary.json figures (measured: jobs that fell back to the analytic law).
  virtual void report(std::vector<std::pair<std::string, double>>&) const {}
  // Forgets what report() would count so far: called once the workload is read, so that summary.json counts
  // the jobs of the run (not every row of the trace that reading it asked about).
  virtual void start_run() {}
  // While on, report() does not count what is asked (a policy weighing placements a job never runs on).
  virtual void quiet(bool /*on*/) {}
  // For resolve_workload: the ideal times on `type` (a trace's durations are on the trace's GPU type).
  IdealTimes ideal_times(int type);
};

// One measured source's tables for the GPU types of a cluster (exec/perf_*.cpp).
class MeasuredSource {
 public:
  virtual ~MeasuredSource() = default;
  // Seconds per iteration of j, whose model stands for `app` in this source (data/perf_map.csv), on GPU type
  // `type` (a known type's name) with `shape` (GPUs per server); nullopt: not measured (no table for the app on
  // this type, or a GPU count or batch outside what was measured).
  virtual std::optional<double> iteration_s(const std::string& app, const JobSpec& j, const std::string& type,
                                            const std::vector<int>& shape) = 0;
};
// `types`: the known names of the cluster's GPU types. Every table file is read once, here: a missing file where
// the source has one for a type, or a missing column, is an InputError naming the file (and line, field).
std::unique_ptr<MeasuredSource> load_pollux_source(const std::string& data_dir, bool sia,
                                                   const std::vector<std::string>& types);
std::unique_ptr<MeasuredSource> load_gavel_source(const std::string& data_dir, const std::vector<std::string>& types);
std::unique_ptr<MeasuredSource> load_elasticflow_source(const std::string& data_dir,
                                                        const std::vector<std::string>& types);

// One measured multi-GPU step, to check a law against (exec/calibration.h): the application as its source names
// it, the GPU type (a known type's name), GPUs per server, the local batch, the measured step time and the same
// local batch's step on one GPU of that type.
struct MeasuredStep {
  std::string source, app, type;
  std::vector<int> shape;
  double local_bsz = 0, step_s = 0, single_s = 0;
};
// Pollux's tables (T4; sia = false) or Sia's (every known type Sia measured): each multi-GPU placement measured
// (duplicate rows averaged) at a local batch its one-GPU rows span (linear between them). Apps: bert, cifar10,
// deepspeech2, imagenet, ncf, yolov3.
std::vector<MeasuredStep> pollux_steps(const std::string& data_dir, bool sia);
// Gavel's table on v100, p100 and k80: 2, 4 and 8 GPUs consolidated (on one server) and unconsolidated (taken as
// one GPU per server), each batch measured; single_s from the same batch on 1 GPU.
std::vector<MeasuredStep> gavel_steps(const std::string& data_dir);

// The names --perf-model takes.
const std::vector<std::string>& perf_model_names();
// Whether --perf-model `name` reads measured tables (measured:<source>), not a law.
inline bool is_measured_perf_model(const std::string& name) { return name.starts_with("measured:"); }
// analytic or measured:<source> on `cluster` (which must outlive it). Throws InputError naming --perf-model or
// --data-dir.
std::unique_ptr<PerfModel> make_perf_model(const std::string& name, const std::string& data_dir,
                                           const ClusterSpec& cluster);
// Throws InputError naming --perf-model when a measured model has a table for none of `jobs`: naming the GPU types
// the source measured when the cluster has none of them.
void check_perf_coverage(PerfModel& m, const std::vector<JobSpec>& jobs, const ClusterSpec& cluster);

// A Pollux/Sia job's work in iterations of its batch (its application's target progress, as Pollux's simulator
// defines it: the validation curves' progress at max_epochs over the statistical gain of its batch; docs/perf-model.md),
// from <data_dir>/pollux/traces/<app>/. Used by the pollux trace reader.
double pollux_iterations(const std::string& data_dir, const std::string& app, int global_batch, int num_gpus,
                         const std::string& file, long line);

}  // namespace rm
