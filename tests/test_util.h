// Helpers for tests: tiny clusters and traces from strings, one-call runs.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "exec/comm_model.h"
#include "cluster/cluster_config.h"
#include "core/embedded_data.h"
#include "engine/engine.h"
#include "models/rate/rate_model.h"
#include "run/simulation.h"
#include "policy/registry.h"
#include "workload/trace.h"

namespace rm::test {

// The Wang et al. job sets (wang2020 format) that the task-model tests run.
inline const std::string kWangSet1 = std::string(RM_SHARED_DIR) + "/goldens/p1-ada-srsf/jobs_seed1.csv";
inline const std::string kWangSet2 = std::string(RM_SHARED_DIR) + "/goldens/p1-ada-srsf/jobs_seed2.csv";

// A task-model (--exec task) run of a wang2020-format trace.
inline SimConfig task_config(const std::string& cluster, const std::string& trace, const std::string& policy) {
  SimConfig cfg;
  cfg.cluster = cluster;
  cfg.trace = trace;
  cfg.format = "wang2020";
  cfg.exec = "task";
  cfg.policy = policy;
  return cfg;
}

inline ClusterSpec cluster(int servers, int gpus, double nic_gbps = 10, double a = 0.0) {
  return parse_cluster_yaml("network: {contention_a: " + std::to_string(a) + "}\nservers:\n  - {count: " +
                                std::to_string(servers) + ", gpus: " + std::to_string(gpus) +
                                ", gpu_mem_gb: 32, nic_gbps: " + std::to_string(nic_gbps) + "}\n",
                            "test.yaml");
}

// Rows: "id,submit_s,num_gpus,iterations,compute_ms[,grad_mb]" -> canonical trace with explicit times.
inline std::vector<JobSpec> jobs(const ClusterSpec& c, const std::vector<std::string>& rows) {
  std::string text = "job_id,submit_s,num_gpus,iterations,compute_ms,grad_mb,model,gpu_mem_mb\n";
  for (const auto& r : rows) {
    std::string row = r;
    if (std::count(row.begin(), row.end(), ',') == 4) row += ",0";
    text += row + ",m,1000\n";
  }
  Workload w = read_trace_text(text, "test.csv", "canonical");
  resolve_workload(w, ModelCatalogue::builtin(), c, law_resolve_options(), nullptr);
  return w.jobs;
}

struct Run {
  ClusterSpec cluster;
  std::vector<JobSpec> specs;
  std::unique_ptr<Scheduler> sched;
  std::unique_ptr<Engine> engine;
  const JobState& job(const std::string& name) const {
    for (const auto& j : engine->jobs())
      if (j.spec->name == name) return j;
    throw std::runtime_error("no job " + name);
  }
  double finish(const std::string& name) const { return to_seconds(job(name).finish); }
  double start(const std::string& name) const { return to_seconds(job(name).first_start); }
};

inline std::unique_ptr<Run> run(const ClusterSpec& c, const std::vector<std::string>& rows, const std::string& policy,
                                double preempt_overhead_s = 0, double start_delay_s = 0) {
  auto r = std::make_unique<Run>();
  r->cluster = c;
  r->specs = jobs(c, rows);
  r->sched = make_scheduler(policy, 7);
  EngineOptions eo;
  eo.preempt_overhead = from_seconds(preempt_overhead_s);
  eo.start_delay = from_seconds(start_delay_s);
  r->engine = std::make_unique<Engine>(r->cluster, r->specs, *r->sched, make_rate_model(r->cluster), eo);
  r->engine->run();
  return r;
}

inline std::string temp_dir() {
  auto d = std::filesystem::temp_directory_path() /
           ("rm_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::create_directories(d);
  return d.string();
}

inline std::string write_file(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string p = dir + "/" + name;
  std::ofstream(p) << text;
  return p;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A shell command's exit status and its stdout and stderr together.
struct ShellOut {
  int code;
  std::string text;
};
inline ShellOut shell(const std::string& cmd) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  std::string text;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) text.append(buf, n);
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, text};
}

}  // namespace rm::test
