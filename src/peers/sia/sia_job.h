// A job of Sia's simulator (siasosp23/artifacts aaf7a0d, sia-simulator/job.py `Job`; docs/sia.md lists the rules
// with S:file:line): Pollux's job made heterogeneous. It runs on one GPU type at a time (the simulator's "cluster"),
// keeps one profile and one fitted throughput model per type (grad statistics shared), chooses its batch by the goodput
// model of the type it runs on, is slowed by its application's calibration factor (S:simulator_config.py SLOWDOWNS),
// pays its application's checkpoint-restore time after every (re)allocation or migration (S:applications.py
// rescale_time) and completes, as Pollux's, to the whole second rounded half to even.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "exec/goodput.h"
#include "exec/pollux_app.h"
#include "workload/job.h"

namespace rm::sia {

struct SJob {
  const JobSpec* spec = nullptr;
  std::string app_name;
  std::vector<const PolluxApp*> apps;  // by GPU type of the cluster (its order)
  long submit = 0;
  int target_replicas = 0, target_batch = 0;
  double calibration = 1.0;  // 1 / SLOWDOWNS[app]
  bool tune_bsz = true;
  // Heterogeneity-unaware (the Pollux baseline, S:cluster_unaware.py: Job(h_unaware=True)): one profile and one fitted
  // model over all types; its policy view reads the "aws" application's batch limits (`aws`).
  bool merged = false;
  const PolluxApp* aws = nullptr;

  // Optimisation state (S:job.py:68-75).
  int atomic = 0, accum = 0;
  std::optional<pollux::GradParams> grad;
  std::vector<std::vector<pollux::StepSample>> profiles;  // by GPU type, in the order observed
  std::vector<std::optional<pollux::PerfParams>> perf;    // by GPU type
  double progress = 0;
  int epoch = 0;

  // Job state (S:job.py:77-112).
  std::optional<long> completion;
  long current = 0, rescale = 0;
  std::vector<int> placement;  // GPUs per node, zeros dropped
  int cluster = -1;            // the GPU type it is on; -1: none
  double attained = 0, used_gpu_s = 0, wasted_gpu_s = 0;
  int restarts = -1;  // -1: never started (None)

  // For the outputs.
  long first_start = -1;
  int gpus_min = 0, gpus_max = 0;
  std::vector<int> types_used;  // GPU types held, in order of first use

  // The profile/model slot of a type (0 for all when merged).
  std::size_t slot(int type) const { return merged ? 0 : static_cast<std::size_t>(type); }
  int gpus() const {
    int n = 0;
    for (int x : placement) n += x;
    return n;
  }
  const PolluxApp& app() const { return *apps.at(static_cast<std::size_t>(cluster)); }
  // The most GPUs profiled on a type (S:job.py:216-223).
  int max_profiled_replicas(int type) const;
  // The goodput model on a type: none before the job has stepped there (S:job.py:225-236).
  std::optional<pollux::GoodputFunction> goodput_fn(int type) const;
  // A merged job's speedup function as Pollux's policy reads it (S:job.py:238-249, cluster None: the aws
  // application's batch limits; none before its first step: GPUs).
  std::optional<pollux::SpeedupFunction> unaware_speedup() const;

  // Job.update_local_bsz (S:job.py:317-386).
  void update_local_bsz();
  // Job.update_params (S:job.py:388-412): a new (nodes, GPUs, atomic batch) on the current type joins its profile and
  // its throughput model is fitted again (scipy tol 1e-5, S:goodput.py:200).
  void update_params(int nodes, int replicas, int local_bsz, double step, double sync, double sqr, double var);
  // Job.step (S:job.py:414-522).
  void advance(long seconds);
  // Job.reallocate (S:job.py:524-552) and Job.migrate (S:job.py:554-579); `now` and the bookkeeping are ours.
  void reallocate(const std::vector<int>& p, long now);
  void migrate(int type, const std::vector<int>& p, long now);

 private:
  void started(long now);
};

}  // namespace rm::sia
