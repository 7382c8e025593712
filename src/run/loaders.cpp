// Reading a run's inputs: the cluster, the model catalogue and the workload (trace or generator), resolved
// against the cluster. Used by simulate() and by the live backends' replay.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <fstream>
#include <map>
#include <sstream>

#include "cluster/cluster_config.h"
#include "core/embedded_data.h"
#include "core/error.h"
#include "run/loaders.h"
#include "run/simulation.h"
#include "cluster/gpu_types.h"
#include "exec/comm_model.h"
#include "exec/perf_model.h"
#include "exec/pollux_app.h"
#include "workload/limits.h"
#include "workload/parse_util.h"

namespace rm {

const ModelCatalogue& load_catalogue(const std::string& path) {
  if (path.empty()) return ModelCatalogue::builtin();
  static std::map<std::string, ModelCatalogue> cache;
  auto it = cache.find(path);
  if (it != cache.end()) return it->second;
  return cache.emplace(path, ModelCatalogue::parse(read_input_file(path, kMaxConfigBytes, "model catalogue"), path))
      .first->second;
}

int trace_type_of(const InputSpec& cfg, const ClusterSpec& cluster) {
  if (cfg.trace_gpu_type.empty()) return 0;
  const KnownGpuType* k = find_gpu_type(cfg.trace_gpu_type);
  if (!k) throw InputError("--trace-gpu-type", 0, cfg.trace_gpu_type, "unknown GPU type (known: " + known_gpu_type_list() + ")");
  const GpuTypes types = gpu_types_of(cluster);
  const int t = types.index(k->name);
  if (t < 0) throw InputError("--trace-gpu-type", 0, cfg.trace_gpu_type, "the cluster has no GPUs of this type");
  return t;
}

// A Pollux/Sia job's work: its application's target progress (exec/perf_model.h pollux_iterations).
void set_pollux_work(Workload& w, const std::string& data_dir) {
  for (auto& j : w.jobs) per_row(w, [&] {
    j.iterations = pollux_iterations(data_dir, j.model, j.global_batch, j.num_gpus, j.file, j.line);
    // Elastic, as every job of Pollux's world (docs/elastic.md): 1 GPU up to its global batch over the application's
    // least local batch, at most 64 (Pollux's max_replicas without its profiling rule; ncf: 1), never below the
    // trace's own count.
    const PolluxApp& app = pollux_app(data_dir + "/pollux/traces", j.model);
    const int cap = app.name() == "ncf" ? 1 : std::min(64, j.global_batch / std::max(1, app.min_local_bsz()));
    j.gpus_min = 1;
    j.gpus_max = std::max(j.num_gpus, cap);
  });
}

Workload load_workload(const InputSpec& cfg, const ClusterSpec& cluster, std::vector<Unschedulable>* unsched,
                       std::vector<std::string>* errors, ModelMapping* mapping, const IdealTimes* ideal) {
  Workload w;
  if (!cfg.workload.empty()) {
    GenOptions g = cfg.gen;
    g.seed = cfg.seed;
    if (cfg.load > 0) g.load = cfg.load;
    const GeneratedTrace gt = generate_workload(cfg.workload, g);
    w = read_trace_text(gt.text, "workload:" + cfg.workload, gt.format);
  } else if (cfg.trace.rfind("builtin:", 0) == 0) {
    const std::string name = cfg.trace.substr(8);
    const std::string path = "traces/" + name + ".csv";
    const std::string_view text = embedded::get(path);
    if (text.empty()) throw InputError(cfg.trace, 0, "--trace", "no bundled trace named '" + name + "'");
    w = read_trace_text(std::string(text), "data/" + path, cfg.format);
  } else {
    w = read_trace(cfg.trace, cfg.format, errors, parse_trace_options(cfg.columns, cfg.header, cfg.time_unit));
  }
  w.errors = errors;
  if (w.format == "pollux") set_pollux_work(w, cfg.data_dir);
  ResolveOptions ro;
  ro.seed = cfg.seed;
  ro.skip_unschedulable = cfg.skip_unschedulable;
  ro.ideal = ideal ? *ideal : ideal_times();
  ro.mapping = mapping;
  if (cfg.unknown_model != "error" && cfg.unknown_model != "nearest" && cfg.unknown_model != "by-hash")
    throw InputError("--unknown-model", 0, cfg.unknown_model, "must be error, nearest or by-hash");
  ro.unknown_model = cfg.unknown_model;
  const ModelCatalogue& cat = load_catalogue(cfg.models);
  for (const auto& a : cfg.model_alias) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == a.size())
      throw InputError("--model-alias", 0, a, "expected FROM=TO (e.g. deepspeech2=deepspeech)");
    const std::string to = a.substr(eq + 1);
    if (!cat.find(to)) throw InputError("--model-alias", 0, a, "'" + to + "' is not in the model catalogue (list-models)");
    ro.model_alias[ModelCatalogue::normalise(a.substr(0, eq))] = to;
  }
  resolve_workload(w, cat, cluster, ro, unsched);
  if (!(cfg.arrival_scale > 0)) throw InputError("--arrival-scale", 0, "", "must be > 0");
  if (cfg.max_jobs < 0) throw InputError("--max-jobs", 0, "", "must be >= 0");
  if (cfg.max_jobs > 0 && static_cast<long>(w.jobs.size()) > cfg.max_jobs) w.jobs.resize(cfg.max_jobs);
  if (!w.iteration_column.empty())  // the derived iterations against the file's own count, for the jobs kept
    for (const auto& j : w.jobs) {
      if (!(j.trace_iterations > 0) || !(j.iterations > 0)) continue;
      const double d = std::abs(j.iterations / j.trace_iterations - 1);
      ++w.iterations_checked;
      if (d > 0.01) ++w.iterations_off;
      w.iterations_max_rel_diff = std::max(w.iterations_max_rel_diff, d);
    }
  if (!(cfg.arrival_scale <= 1e6)) throw InputError("--arrival-scale", 0, "", "must be at most 1e6");
  const BoundIdealTimes law = ro.ideal.bind(cluster);
  const bool trace_load = cfg.load > 0 && cfg.workload.empty();
  if (trace_load && cfg.arrival_scale != 1)
    throw InputError("--load", 0, fmt::format("{:g}", cfg.load),
                     "a trace's --load sets its arrival rate, as --arrival-scale does: give one of them");
  // The demand does not move with the arrivals: read once, divided by the span before and after rescaling.
  const double demand = demand_gpu_s(w.jobs, law);
  double scale = cfg.arrival_scale;
  if (trace_load) {
    const double now = offered_load(demand, w.jobs, cluster);
    if (std::isnan(now))
      throw InputError("--load", 0, fmt::format("{:g}", cfg.load),
                       "the trace's jobs all arrive at one instant: it has no arrival rate to rescale");
    scale = now / cfg.load;
  }
  if (scale != 1) scale_arrivals(w, scale, trace_load ? "--load" : "--arrival-scale");
  w.offered_load = offered_load(demand, w.jobs, cluster);
  return w;
}

double demand_gpu_s(const std::vector<JobSpec>& jobs, const BoundIdealTimes& law) {
  double demand = 0;
  for (const auto& j : jobs) demand += j.num_gpus * j.iterations * law.iteration_s(j);
  return demand;
}

double offered_load(double demand_gpu_s, const std::vector<JobSpec>& jobs, const ClusterSpec& cluster) {
  if (jobs.empty()) return std::numeric_limits<double>::quiet_NaN();
  const auto [lo, hi] = std::minmax_element(jobs.begin(), jobs.end(),
                                            [](const JobSpec& a, const JobSpec& b) { return a.submit < b.submit; });
  const int gpus = cluster.total_gpus();
  if (hi->submit == lo->submit || gpus == 0) return std::numeric_limits<double>::quiet_NaN();
  return demand_gpu_s / (static_cast<double>(gpus) * to_seconds(hi->submit - lo->submit));
}

void scale_arrivals(Workload& w, double scale, const std::string& option) {
  for (auto& j : w.jobs) {
    const double s = to_seconds(j.submit) * scale;
    if (s > limits::kMaxSubmitS)
      throw InputError(j.file, j.line, "submit", fmt::format("{:g} s after {} (x{:g} arrivals) is out of range "
                                                             "(at most {:g} s)", s, option, scale, limits::kMaxSubmitS));
    const Time was = j.submit;
    j.submit = static_cast<Time>(std::llround(static_cast<double>(j.submit) * scale));
    // A deadline keeps its slack after its submit time: the same time to finish in, at the new arrival.
    if (j.deadline_s >= 0) j.deadline_s += to_seconds(j.submit) - to_seconds(was);
  }
}

ClusterSpec load_config_cluster(const InputSpec& cfg) {
  if (cfg.cluster != "yu2022") return load_cluster(cfg.cluster);
  GenOptions g = cfg.gen;
  g.seed = cfg.seed;
  return parse_cluster_yaml(generate_yu2022_cluster(g), "cluster:yu2022");
}

}  // namespace rm
