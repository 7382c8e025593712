// One simulation end to end: cluster + trace + policy -> engine run -> summary (and files).
#pragma once
#include "core/progress.h"
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/task_engine.h"
#include "metrics/metrics.h"
#include "policy/planner/planner.h"
#include "policy/task/task_plugin.h"
#include "workload/generators.h"
#include "workload/trace.h"

namespace rm {

struct SimConfig {
  std::string cluster = "tiny";          // preset or YAML file
  std::string trace = "builtin:demo";    // file, or builtin:<name> for a bundled trace
  std::string workload;                  // a generator (generators.h) instead of a trace
  GenOptions gen;                        // its options (seed is taken from `seed`)
  std::string format = "auto";
  std::string policy = "fifo";
  std::string exec = "auto";             // rate | task | auto (task for task-model policies)
  std::string compat;                    // "" or wang2020 (task model)
  bool fast_forward = true;              // task model: jump over steady-state periods (--no-fast-forward)
  yu::ModelParams yu;                    // Yu et al.'s model, for the planners (sjf-bco, ls, ff, rand)
  std::uint64_t seed = 1;
  double preempt_overhead_s = 0;
  double start_delay_s = 0;              // --start-delay (rate and graph models)
  bool skip_unschedulable = false;
  double arrival_scale = 1;              // submit times x this
  long max_jobs = 0;                     // keep the first N jobs (0 = all)
  std::string models;                    // catalogue file; empty = built-in
  // The round model (--exec round, Synergy):
  bool is_static = false;                // replay: first round at t = 1 s (the authors' --static)
  double round_s = 300;                  // lease length R (Synergy and Blox: 300 s; Gavel: 360 s)
  std::string split = "20,70,10";        // synergy-* workloads: image,language,speech %
  std::string measure_ids;               // FIRST:LAST job ids measured (generators default 4000:4999)
  int cpu_ratio = 0;                     // profile set 3..6 (0 = the cluster's CPUs per GPU)
  std::string profiles;                  // Synergy profiles folder/CSV; empty = bundled
  std::string speed_model = "binary";    // binary (the authors' sigma) | matrix (T[c][m] of the allocation)
  std::string job_list;                  // synergy-philly: a trace whose kept jobs give the GPU demands
  bool multigpu = false;                 // keep the job list's GPU demands (else all 1)
  ProgressFn progress;  // now and then while it runs; may be empty
  std::vector<std::string>* errors = nullptr;  // `validate`: every bad row collected here instead of the first thrown
  bool dry_run = false;
  std::vector<std::string> model_alias;  // --model-alias FROM=TO
  std::string unknown_model = "error";   // --unknown-model error|nearest|by-hash  // `validate`: every check a run makes on its inputs, then stop before simulating
};

struct SimResult {
  ClusterSpec cluster;
  Workload workload;
  std::vector<Unschedulable> unschedulable;
  std::string exec;                          // the execution model that ran
  std::unique_ptr<Scheduler> scheduler;      // rate model
  std::unique_ptr<Engine> engine;
  std::unique_ptr<task::TaskPolicy> task_policy;  // task model
  std::unique_ptr<TaskEngine> task;
  std::unique_ptr<synergy::ProfileSet> cpu_profiles;  // resource-sensitive allocation on the job-level engine
  plan::Plan plan;                           // planners: the schedule the engine executed
  RunRecord record;
  Summary summary;
  RunInfo info;
  ModelMapping models;                       // what --model-alias / --unknown-model did
};

// Loads everything, runs, and summarises. Throws InputError on bad input, InvariantError on a bug.
std::unique_ptr<SimResult> simulate(const SimConfig& cfg);

// The cluster of a config: a preset, a YAML file, or "yu2022" (generated from --seed and --servers).
ClusterSpec load_config_cluster(const SimConfig& cfg);

// The execution model a config runs under ("auto" resolved).
std::string resolve_exec(const SimConfig& cfg);

// The workload of a config (reading, catalogue, resolution) without running it.
Workload load_workload(const SimConfig& cfg, const ClusterSpec& cluster, std::vector<Unschedulable>* unsched,
                       std::vector<std::string>* errors = nullptr, ModelMapping* mapping = nullptr);

const ModelCatalogue& load_catalogue(const std::string& path);

}  // namespace rm
