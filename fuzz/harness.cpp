#include "harness.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "cluster/cluster_config.h"
#include "core/error.h"
#include "policy/gavel.h"
#include "policy/policy_spec.h"
#include "run/simulation.h"
#include "models/round/round_workloads.h"
#include "workload/cpu_profiles.h"

namespace rm::fuzz {
namespace {

constexpr long kMaxJobs = 40;            // the bounded simulation: at most this many jobs
constexpr double kMaxTaskIterations = 5e4;  // the task model's cost follows iterations: fewer jobs beyond
constexpr double kMaxRounds = 2e4;
constexpr long kMaxPolluxJobs = 2;
constexpr double kMaxGavelReset = 86400;  // seconds
constexpr Time kOneHour = 3600LL * 1000000;  // the round model's cost follows its rounds (a 3e9-iteration job: 4M rounds)

std::string scratch(const std::string& ext) {
  return "/tmp/rm-fuzz-" + std::to_string(getpid()) + ext;
}

std::string write(const std::string& ext, const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch(ext);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

// simulate() with a bad input is an InputError, which is fine; everything else propagates.
void simulate_bounded(SimConfig cfg) {
  if (cfg.max_jobs == 0 || cfg.max_jobs > kMaxJobs) cfg.max_jobs = kMaxJobs;
  cfg.skip_unschedulable = true;
  try {
    const RunPlan plan = make_run_plan(cfg);  // from the command line alone: the bounds below leave it as it is
    if (plan.exec == ExecModel::Task) {  // the task model simulates every iteration: keep as many jobs as fit
      SimConfig dry = cfg;
      dry.dry_run = true;
      const auto r = simulate(dry);
      double iterations = 0;
      long keep = 0;
      for (const auto& j : r->workload.jobs) {
        iterations += j.iterations;
        if (iterations > kMaxTaskIterations) break;
        ++keep;
      }
      if (keep == 0) return;  // one job is already too much work for a fuzzing run
      cfg.max_jobs = keep;
    }
    if (plan.exec == ExecModel::Round && cfg.format == "synergy") {  // likewise, by rounds
      const auto profiles = synergy::ProfileSet::load(3);
      double rounds = 0;  // an upper bound: every job's run time at its proportional share, one after another
      long keep = 0;
      for (const auto& j : synergy::read_replay(cfg.trace)) {
        const auto* p = profiles.find(j.model);
        rounds += p ? j.N * p->iter_time_s / 300 + 1 : 1;
        if (rounds > kMaxRounds || keep >= cfg.max_jobs) break;
        ++keep;
      }
      if (keep == 0) return;
      cfg.max_jobs = keep;
    }
    // Pollux's genetic search costs up to 100 generations x 101 matings of 100 offspring every 60 s of the run
    // (pymoo's, kept as is): a few jobs already take seconds; two still go through every round's search.
    if (plan.policy.has(Point::Scheduler, "pollux")) cfg.max_jobs = std::min(cfg.max_jobs, kMaxPolluxJobs);
    // Gavel's reset (policy/gavel.cpp): a job that arrives within `reset` seconds of the last solve waits for the
    // next solve through every round; reset=1e8 makes 5M rounds of 20 jobs (2 s in Release, past libFuzzer's timeout
    // under the sanitizers). Valid, as a long run is: a fuzzing run keeps it to a day.
    if (const PartSpec* s = plan.policy.part(Point::Scheduler); s && is_gavel_scheduler(s->name))
      if (const auto it = s->kv.find("reset"); it != s->kv.end() && !(std::strtod(it->second.c_str(), nullptr) <= kMaxGavelReset))
        return;
    simulate(cfg);
  } catch (const InputError&) {
  }
}

void trace(const std::string& format, const std::uint8_t* data, std::size_t size) {
  SimConfig cfg;
  cfg.trace = write(format == "gavel" ? ".trace" : ".csv", data, size);
  cfg.format = format;
  cfg.cluster = "tiny";
  cfg.policy = "srsf";
  if (format == "synergy") {
    cfg.cluster = "synergy32";
    cfg.exec = "round";
    cfg.policy = "fifo+tune";
  } else if (format == "wang2020") {
    cfg.cluster = "wang2020";
    cfg.exec = "task";
    cfg.policy = "srsf1";
  }
  simulate_bounded(cfg);
  if (format == "canonical") {  // elastic rows (gpus_min, gpus_max) resized by an elastic policy (docs/elastic.md)
    cfg.policy = "optimus";
    simulate_bounded(cfg);
  }
  if (format == "synergy") {  // the job-level engine reads the same files
    cfg.exec = "rate";
    cfg.cluster = "synergy128";
    cfg.policy = "srsf";
    simulate_bounded(cfg);
  }
}

// Pollux's workloads under --compat pollux (the peer's own reader and loop; its rounds follow the last arrival,
// so a far-off one is skipped, as too long for a fuzzing run).
void trace_pollux(const std::uint8_t* data, std::size_t size) {
  SimConfig cfg;
  cfg.trace = write(".csv", data, size);
  cfg.format = "pollux";
  cfg.compat = "pollux";
  cfg.cluster = "pollux:4:4";
  cfg.data_dir = RM_SHARED_DIR "/traces";
  cfg.max_jobs = 12;
  try {
    SimConfig dry = cfg;
    dry.dry_run = true;
    const auto r = simulate(dry);
    for (const auto& j : r->workload.jobs)
      if (j.submit > 2 * kOneHour) return;
    for (const char* policy : {"tiresias", "optimus"}) {
      cfg.policy = policy;
      simulate(cfg);
    }
  } catch (const InputError&) {
  }
}

void cluster_yaml(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ClusterSpec spec;
  try {
    spec = parse_cluster_yaml(text, "fuzz.yaml");
  } catch (const InputError&) {
    return;
  }
  if (spec.servers.size() > 2000) return;  // valid, but too big to simulate thousands of times a second
  SimConfig cfg;
  cfg.cluster = write(".yaml", data, size);
  cfg.policy = "srsf";
  simulate_bounded(cfg);
}

void policy(const std::uint8_t* data, std::size_t size) {
  if (size > 300) return;
  SimConfig cfg;
  cfg.policy.assign(reinterpret_cast<const char*>(data), size);
  cfg.max_jobs = 20;
  simulate_bounded(cfg);
}

}  // namespace

const std::vector<std::string>& targets() {
  static const std::vector<std::string> t = {"trace_canonical", "trace_philly",   "trace_tiresias", "trace_gavel",
                                             "trace_synergy",   "trace_wang2020", "trace_pollux",   "cluster_yaml",
                                             "policy"};
  return t;
}

void run_one(const std::string& target, const std::uint8_t* data, std::size_t size) {
  if (target == "trace_pollux") return trace_pollux(data, size);
  if (target.rfind("trace_", 0) == 0) return trace(target.substr(6), data, size);
  if (target == "cluster_yaml") return cluster_yaml(data, size);
  if (target == "policy") return policy(data, size);
  throw std::invalid_argument("unknown fuzz target " + target);
}

}  // namespace rm::fuzz
