// One simulation end to end: cluster + trace + policy -> engine run -> summary (and files).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "metrics/metrics.h"
#include "workload/trace.h"

namespace rm {

struct SimConfig {
  std::string cluster = "tiny";          // preset or YAML file
  std::string trace = "builtin:demo";    // file, or builtin:<name> for a bundled trace
  std::string format = "auto";
  std::string policy = "fifo";
  std::string exec = "rate";
  std::uint64_t seed = 1;
  double preempt_overhead_s = 0;
  bool skip_unschedulable = false;
  std::string models;                    // catalogue file; empty = built-in
  std::function<void(double)> progress;
};

struct SimResult {
  ClusterSpec cluster;
  Workload workload;
  std::vector<Unschedulable> unschedulable;
  std::unique_ptr<Scheduler> scheduler;
  std::unique_ptr<Engine> engine;
  Summary summary;
  RunInfo info;
};

// Loads everything, runs, and summarises. Throws InputError on bad input, InvariantError on a bug.
std::unique_ptr<SimResult> simulate(const SimConfig& cfg);

// The workload of a config (reading, catalogue, resolution) without running it.
Workload load_workload(const SimConfig& cfg, const ClusterSpec& cluster, std::vector<Unschedulable>* unsched,
                       std::vector<std::string>* errors = nullptr);

const ModelCatalogue& load_catalogue(const std::string& path);

}  // namespace rm
