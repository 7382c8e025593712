// The training side of a job in Sia's world (siasosp23/artifacts aaf7a0d, sia-simulator/job.py `Job`; docs/sia.md):
// Pollux's job made heterogeneous. It runs on one GPU type at a time, keeps one profile and one fitted throughput
// model per type (the gradient statistics shared; or one merged over all types for the heterogeneity-unaware Pollux
// baseline), chooses its batch by the goodput model of the type it runs on, and is slowed by its application's
// calibration factor (S:simulator_config.py SLOWDOWNS). One copy for both users: --compat sia's jobs
// (peers/sia/sia_job.h, round by round) and the engine's Sia job model (models/rate/sia_job_model.h).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "exec/goodput.h"
#include "exec/pollux_app.h"

namespace rm::sia {

// SLOWDOWNS (S:simulator_config.py:31-33): real runs over simulated, per application.
double slowdown(const std::string& app);
// Application.rescale_time (S:applications.py:56-69): the checkpoint-restore seconds after a (re)allocation.
long rescale_time(const std::string& app);
// cluster_max_physical_nnodes (S:simulator_config.py:15): the most nodes of a type Sia's tables measured (aws 16,
// azure 5, dgx 2, dgx-ext 2, quad 1, rtx 3; 1 for another name). A configuration spans no more.
int max_physical_nodes(const std::string& sia_type);

struct SiaTrainer {
  std::string name;      // the job's (error messages)
  std::string app_name;
  std::vector<const PolluxApp*> apps;  // by GPU type of the cluster (its order)
  int target_batch = 0;  // the trace's batch (0: none); fixed when !tune_bsz, the policy view's largest otherwise
  double calibration = 1.0;  // 1 / SLOWDOWNS[app]
  bool tune_bsz = true;
  // Heterogeneity-unaware (the Pollux baseline, S:cluster_unaware.py: Job(h_unaware=True)): one profile and one fitted
  // model over all types; its policy view reads the "aws" application's batch limits (`aws`).
  bool merged = false;
  const PolluxApp* aws = nullptr;

  // Optimisation state (S:job.py:68-75).
  int atomic = 0, accum = 0;
  std::optional<pollux::GradParams> grad;
  std::vector<std::vector<pollux::StepSample>> profiles;  // by GPU type (one when merged), in the order observed
  std::vector<std::optional<pollux::PerfParams>> perf;    // by GPU type (one when merged)
  std::vector<int> placement;  // GPUs per node, zeros dropped
  int cluster = -1;            // the GPU type it is on; -1: none

  // Sets the applications up: `apps` one per type (the cluster's order), profiles and models empty.
  void init(std::vector<const PolluxApp*> by_type);
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
  // its throughput model is fitted again (scipy tol 1e-5, S:goodput.py:200-201).
  void update_params(int nodes, int replicas, int local_bsz, double step, double sync, double sqr, double var);
  // One step of the current configuration during `epoch` (S:job.py:466-498): the true goodput in progress units per
  // second (statistical gain over the step time with accumulation, times the calibration factor); the step joins the
  // profile.
  double step_goodput(int epoch);
};

}  // namespace rm::sia
