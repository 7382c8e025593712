// The 0/1 program of Sia's policy (siasosp23/artifacts aaf7a0d, sia-simulator/sia.py __solve_mip_rescaled), solved
// by COIN-OR Cbc exactly as the goldens' shim has it solved (scripts/sia-goldens/cvxpy, docs/sia.md): the same
// columns (job-major, then configuration), the same rows in the same order, the numbers the solver reads as pulp writes
// them to MPS (13 significant digits, read back by Cbc's own MPS reader) and Cbc's command line as pulp calls it
// (`ratio 0.0001 branch`, one thread), so that the two sides take the same branch-and-bound path and, where the
// rounded goodputs tie, the same solution.
#pragma once
#include <string>
#include <vector>

namespace rm::sia {

struct SiaProgram {
  int jobs = 0, configs = 0;
  std::vector<double> A;         // jobs x configs: the rounded goodput ** p (float32 values), row-major
  std::vector<int> config_gpus;  // per configuration: its GPUs
  std::vector<int> config_type;  // per configuration: its GPU type
  std::vector<int> capacity;     // per GPU type: its GPUs
  std::vector<std::pair<int, int>> pinned;  // (job, configuration) kept: jobs in checkpoint-restore
  double lambda_n = 1.1;         // the penalty of a job left without GPUs
  bool minimize = true;          // p < 0
  std::string ratio = "0.0001";  // Cbc's relative gap (allowablePercentageGap / 100)
};

struct SiaSolution {
  std::vector<int> choice;  // per job: its configuration, -1 for none
  double objective = 0;     // sum (A - lambda_n) x + lambda_n x jobs, from the unrounded coefficients
  int rows = 0, cols = 0;
  std::vector<int> ones;    // the columns at 1
  bool optimal = false;
};

SiaSolution solve_sia_program(const SiaProgram& p);

}  // namespace rm::sia
