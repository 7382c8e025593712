// A job as the trace describes it (immutable once the workload is resolved).
#pragma once
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "cluster/cluster.h"
#include "core/interned.h"
#include "core/time.h"

namespace rm {

struct JobSpec {
  JobId id = 0;            // dense index 0..n-1, in trace order
  std::string name;        // the trace's own job id
  Time submit = 0;
  int num_gpus = 0;        // GPUs asked for (an elastic job's first width: what a rigid policy gives it)
  // An elastic job (issue 43; docs/elastic.md): a scheduler may give it any count in [gpus_min, gpus_max] and change
  // it while it runs. Both 0: a rigid job (exactly num_gpus).
  int gpus_min = 0, gpus_max = 0;
  std::string model;       // catalogue name after resolution
  int batch_size = 0;      // per worker; 0 = the model's reference batch
  int global_batch = 0;    // the whole job's batch where the trace gives it (Pollux/Sia traces), else 0
  std::string gpu_type;    // the GPU type the trace pins the job to ("" = any; docs/perf-model.md)
  double iterations = 0;   // total iterations (may be fractional when derived from a duration)
  double duration_s = 0;   // the trace's run time, when it gives one (0 = none)
  double trace_iterations = 0;  // the file's own iteration count where --columns left it out (0 = none)
  // Per-iteration figures after resolution (trace values win over the catalogue):
  double compute_s = 0;    // forward + backward per worker
  double forward_s = 0;    // forward part of compute_s (0 = unknown; the task model then takes 40 %)
  double grad_mb = 0;      // all-reduce size
  double gpu_mem_mb = 0;   // per worker
  std::string user;        // user or virtual cluster
  std::string vc;          // virtual cluster, where the trace names one beside its user (canonical `vc`)
  std::string recurrence_key;
  int dp = 0, pp = 1, tp = 1;  // parallel config (dp = 0: pure data parallel over num_gpus)
  double deadline_s = -1;  // the trace's deadline, absolute on its submit clock in seconds (-1 = none)
  // Mixed parallelism (tp or pp > 1), per iteration, after resolution (data/parallel_models.csv):
  double tp_mb = 0;        // A_p: a stage's tensor-parallel all-reduce volume
  double pp_mb = 0;        // bytes across one pipeline boundary (activations + gradients)
  // Where it came from, for error messages (one copy of the name for all of a trace's jobs).
  Interned file;
  long line = 0;

  bool elastic() const { return gpus_max > 0; }
  int min_gpus() const { return elastic() ? gpus_min : num_gpus; }
  int max_gpus() const { return elastic() ? gpus_max : num_gpus; }
};

// The job as it runs on `n` GPUs (an elastic job's other widths; docs/elastic.md "Work at another width"): with a
// global batch (Pollux's and Sia's jobs) the batch stays and each GPU's share of it (and its compute) scales by
// num_gpus / n; otherwise each GPU keeps its batch and compute, and one iteration at n does n / num_gpus of the work
// of one at num_gpus (work_per_iteration).
JobSpec spec_at_width(const JobSpec& j, int n);
// The requested iterations one iteration on `n` GPUs does: 1 with a global batch, else n / num_gpus.
double work_per_iteration(const JobSpec& j, int n);

// Fields a reader may leave unset; resolve_workload() fills them from the catalogue.
struct RawTimes {
  double iter_time_s = 0;  // the trace's own isolated per-iteration time (0 = none)
  double compute_s = 0;    // explicit compute per iteration (0 = none)
  double forward_s = 0;    // explicit forward part of compute_s (0 = none)
  double grad_mb = -1;     // explicit gradient size (-1 = none)
  double gpu_mem_mb = -1;  // explicit memory per worker (-1 = none)
  double submit_s = -1;    // the submit time in seconds as written (synergy: the round model keeps it exact)
};

struct Workload {
  std::vector<JobSpec> jobs;       // sorted by (submit, id) after resolution
  std::vector<RawTimes> raw;       // parallel to jobs during reading
  std::vector<std::string> model_qualifier;  // per job: reader's namespace ("gavel", "synergy", "")
  std::string source;
  std::string format;              // the reader's name (canonical, pollux, ...)
  // When set, readers record a bad row here and go on (ringmaster validate); otherwise they throw.
  std::vector<std::string>* errors = nullptr;
  std::unordered_map<std::string, long> line_of_name;  // while reading: each job id's line (duplicates are errors)
  // A CSV read through --columns (docs/formats.md): what the mapping left out, and what the reader filled in.
  bool mapped = false;
  std::vector<std::string> ignored_columns;  // the file's columns no canonical column took
  long models_assigned = 0;   // jobs without a model column: the seeded default mix gave them one
  long cpu_only_skipped = 0;  // rows asking for 0 GPUs (a cluster log's CPU jobs): skipped and counted
  long gpus_rounded_up = 0;   // rows whose GPU count was fractional (a shared GPU): rounded up to whole GPUs
  std::string iteration_column;  // that column's name (JobSpec::trace_iterations), or empty
  // After resolution: jobs whose derived iterations were checked against that column, those more than 1 % off, and
  // the largest relative difference (summary.json iterations_checked, iterations_off_1pct, iterations_max_rel_diff).
  long iterations_checked = 0, iterations_off = 0;
  double iterations_max_rel_diff = 0;
  // GPU-seconds demanded (each job's GPUs x its ideal run time) over the cluster's GPU-seconds across the arrival
  // span (first to last submit); NaN when the jobs arrive at one instant (summary.json offered_load).
  double offered_load = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace rm
