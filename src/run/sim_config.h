// The options of one simulation as given on the command line (or by sweep, validate, a test). Parsed and
// validated into a typed RunPlan by make_run_plan (run/run_plan.h), which keeps the inputs and the run's options
// and leaves the texts it parsed behind.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/progress.h"
#include "exec/yu2022_model.h"
#include "workload/generators.h"

namespace rm {

// What a run reads and how: the cluster and the jobs (a trace or a generator), checked and resolved by the
// loaders (run/loaders.h). Paths and formats stay as given: they name inputs, they are not options to parse.
struct InputSpec {
  std::string cluster = "tiny";          // preset or YAML file
  std::string trace = "builtin:demo";    // file, or builtin:<name> for a bundled trace
  std::string workload;                  // a generator (generators.h) instead of a trace
  GenOptions gen;                        // its options (seed is taken from `seed`)
  std::string format = "auto";
  std::string columns, header;           // --columns, --header: any CSV through the canonical reader
  std::string time_unit = "s";           // --time-unit
  std::uint64_t seed = 1;                // generators, model assignment and the policies' draws
  bool skip_unschedulable = false;
  double arrival_scale = 1;              // submit times x this
  double load = 0;                       // --load: a trace's offered load to rescale arrivals to, a generator's load (0: not given)
  long max_jobs = 0;                     // keep the first N jobs (0 = all)
  std::string models;                    // catalogue file; empty = built-in
  std::string data_dir = "../shared/traces";  // the measured tables and profiles, read in place
  std::string trace_gpu_type;            // the GPU type of the trace's durations ("" = the cluster's first)
  std::string job_list;                  // synergy-philly: a trace whose kept jobs give the GPU demands
  bool multigpu = false;                 // keep the job list's GPU demands (else all 1)
  std::vector<std::string>* errors = nullptr;  // `validate`: every bad row collected here instead of the first thrown
  std::vector<std::string> model_alias;  // --model-alias FROM=TO
  std::string unknown_model = "error";   // --unknown-model error|nearest|by-hash
};

// How the run goes, beyond its inputs: plain values, each checked by make_run_plan (RunPlan::run).
struct RunOptions {
  bool fast_forward = true;              // task model: jump over steady-state periods (--no-fast-forward)
  yu::ModelParams yu;                    // Yu et al.'s model, for the planners (sjf-bco, ls, ff, rand)
  double preempt_overhead_s = -1;        // --preempt-overhead S; -1: the checkpoint-restore model (exec/preempt_cost.h)
  double start_delay_s = 0;              // --start-delay (rate and graph models)
  // The round model (--exec round, Synergy):
  bool is_static = false;                // replay: first round at t = 1 s (the authors' --static)
  double round_s = 0;                    // lease length R; 0 = the model's (Synergy and Blox: 300 s; Gavel: 360 s)
  double interference = 0;               // --compat pollux: the goodput lost by a distributed job on a shared node (Pollux's --interference)
  std::string throughputs;               // Gavel's throughput table ("" = simulation_throughputs.json under data_dir)
  int cpu_ratio = 0;                     // profile set 3..6 (0 = the cluster's CPUs per GPU)
  std::string profiles;                  // Synergy profiles folder/CSV; empty = bundled
  std::string perf_model = "analytic";   // analytic | measured:<source> | trace (exec/perf_model.h), checked
  std::string job_model = "fixed";       // fixed | pollux | pollux-tuned (models/rate/pollux_job_model.h), checked
  ProgressFn progress;                   // now and then while it runs; may be empty
  bool dry_run = false;                  // `validate`: every check a run makes on its inputs, then no run
};

// The options of one simulation as given: the inputs, the run's options and the texts make_run_plan parses
// (the policy grammar, the execution model, the compat mode, the speed model, the measured window, the split).
struct SimConfig : InputSpec, RunOptions {
  std::string policy = "fifo";
  std::string exec = "auto";             // rate | graph | task | round | auto
  std::string compat;                    // "" or a compat mode (wang2020, yu2022, synergy, tiresias, gavel)
  std::string measure_ids;               // FIRST:LAST job ids measured (generators default 4000:4999)
  std::string speed_model = "binary";    // binary (the authors' sigma) | matrix (T[c][m] of the allocation)
  std::string split = "20,70,10";        // synergy-* workloads: image,language,speech % (RunPlan::split)
};

}  // namespace rm
