// Gavel's allocation programs. Max-min fairness (policies/max_min_fairness.py at stanford-futuredata/gavel c4fa400), solved
// with Clp instead of cvxpy: over jobs i and worker types j, x_ij in [0, 1] the share of time job i gets on type j,
//   maximise min_i sum_j x_ij thr_ij sf_i / (w_i prop_i)
//   s.t. sum_i sf_i x_ij <= GPUs of type j, sum_j x_ij <= 1,
// with prop_i = sum_j thr_ij GPUs_j / GPUs (the job's throughput under a share proportional to the cluster,
// ProportionalPolicy) and w_i its priority weight. The heterogeneity-agnostic form (MaxMinFairness, "LAS") sets
// every thr_ij to 1. The optimum's value is unique, its allocation need not be (capacity left over at the max-min
// level may go to any job): Clp's vertex is deterministic, cvxpy's ECOS may pick another.
#pragma once
#include <vector>

namespace rm {

std::vector<std::vector<double>> gavel_max_min_fairness(const std::vector<std::vector<double>>& thr,
                                                        const std::vector<int>& sf, const std::vector<double>& weight,
                                                        const std::vector<int>& gpus);

// Gavel's total throughput (policies/max_sum_throughput.py, ThroughputSumWithPerf, no costs or SLOs): maximise
// sum_ij thr_ij x_ij (steps/s as the table gives them) under the same constraints.
std::vector<std::vector<double>> gavel_max_sum_throughput(const std::vector<std::vector<double>>& thr,
                                                          const std::vector<int>& sf, const std::vector<int>& gpus);

}  // namespace rm
