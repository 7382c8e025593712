// What Sia's policy weighs each job by (siasosp23/artifacts aaf7a0d, sia-simulator/sia.py optimize_mip and
// __solve_mip_rescaled; docs/sia.md): one row over the configurations (GPU type x nodes x GPUs) of the job's goodput
// from its fitted model on each type, projected from another type's where it has none, normalised to its least, in
// float32 as numpy computes it; then the re-allocation discount, the power p, 2 decimals and the clip. One copy for
// --compat sia (peers/sia/sia_policy.cpp) and the engine's sia over Sia's job model (policy/sia.cpp).
#pragma once
#include <utility>
#include <vector>

#include "exec/sia_trainer.h"

namespace rm::sia {

struct Config {
  int type, nodes, gpus;
};

// sia.py's (and gavel.py's) CONFIGS_4GPU / CONFIGS_8GPU: the (nodes, GPUs) a job may be given on one type of nodes of
// `per_node` GPUs (4: 1, 2, 4 GPUs, then 2-16 whole nodes; otherwise 1, 2, 4, 8, then 2-8 whole nodes of 8).
const std::vector<std::pair<int, int>>& configs_for(int per_node);

// The goodput row (S:sia.py:611-715): up to the most GPUs any type allows (`--share_max_replicas`), on every
// configuration of a type the job has a model for (exec/goodput.h optimize_f32 at the trace's batch), else, with
// `project`, the first such type's goodput times the two types' one-GPU throughput ratio; no model anywhere: one GPU
// of every type counts 1. Normalised to the least entry above 1e-4; entries at or below it are 1e-4 (float32).
// `per_node`: GPUs per node of each type (for the projected node counts).
std::vector<float> goodput_row(const SiaTrainer& j, const std::vector<Config>& configs, const std::vector<int>& per_node,
                               bool project);

// The row made the program's coefficients (S:sia.py:877-921): every entry but `keep` (-1: none) times the
// re-allocation factor, then ** p, rounded to 2 decimals, clipped at 3000, in float32; appended to `out`.
void append_costs(std::vector<float> row, int keep, double factor, double p, std::vector<double>& out);

// get_restart_penalty (S:sia.py:23-35): seconds lost per restart, by the job's (or model's) name.
double restart_penalty(const std::string& name);
// The re-allocation factor (S:sia.py:717-745): the share of its age not lost to restarts over its age plus one
// more restart; 1 while younger than one restart.
double realloc_factor(double age, int restarts, double penalty);

}  // namespace rm::sia
