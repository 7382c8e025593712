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

// Gavel's finish-time fairness (policies/finish_time_fairness.py, FinishTimeFairnessPolicyWithPerf): minimise
//   max_i (since_i + rem_i / sum_j thr_ij x_ij) / iso_i
// under the same constraints, with since_i the time since job i arrived, rem_i its steps left and iso_i its expected
// time under the isolated share (the time its progress so far took at that share + rem_i / its isolated throughput).
// cvxpy solves it as one convex program; here for a fixed ratio r the constraints sum_j thr_ij x_ij >= rem_i /
// (r iso_i - since_i) are linear, so the least feasible r is found by bisection over Clp's feasibility LPs, to 1e-9
// relative, and x is Clp's vertex at it. A job that can get no throughput at all (every type's 0, or more GPUs than
// any type it runs on has) is left out of the max (x = 0), where cvxpy would report the program infeasible.
std::vector<std::vector<double>> gavel_finish_time_fairness(const std::vector<std::vector<double>>& thr,
                                                            const std::vector<int>& sf, const std::vector<int>& gpus,
                                                            const std::vector<double>& since,
                                                            const std::vector<double>& rem,
                                                            const std::vector<double>& iso);

// Gavel's minimum total duration (policies/min_total_duration.py, MinTotalDurationPolicyWithPerf): the T its own
// bisection finds (from [100 s, 1e6 s] until the bounds are within 5 %, the range x10 while none is feasible) for
// sum_j thr_ij x_ij >= rem_i / T under the base constraints, and a feasible x at that T (Gavel maximises a constant:
// any feasible point; here Clp's vertex). Jobs that can get no throughput are left out as above (the peer loops for
// ever). `t_out`, when given, receives T.
std::vector<std::vector<double>> gavel_min_total_duration(const std::vector<std::vector<double>>& thr,
                                                          const std::vector<int>& sf, const std::vector<int>& gpus,
                                                          const std::vector<double>& rem, double* t_out = nullptr);

// Finish-time fairness's bookkeeping for one job (finish_time_fairness.py:56-80): at each program, the steps it ran
// since the previous one are charged the time they would have taken at that program's isolated throughput; its
// expected time alone is that sum plus its steps left at the isolated throughput now.
struct FtfAccount {
  double cum_iso = 0, prev_rem = -1, prev_iso_thr = 0;
  double expected_isolated(double rem, double iso_thr) {
    if (prev_rem >= 0 && prev_iso_thr > 0) cum_iso += (prev_rem - rem) / prev_iso_thr;
    prev_rem = rem, prev_iso_thr = iso_thr;
    return cum_iso + rem / iso_thr;  // infinite for a job with no throughput: the program leaves it out
  }
  void forget_previous() { prev_rem = -1; }
};

// Job i's throughput at its isolated share (IsolatedPolicy.get_throughputs): sum_j thr_j x_j, x its share below.
double gavel_isolated_throughput(const std::vector<double>& thr, int m, int sf, const std::vector<int>& gpus);

// Policy.flatten + IsolatedPolicy (isolated.py:33-47): job i's share x_ij = (GPUs of j / m) / sf_i, the row divided
// by max(1, its sum).
std::vector<double> gavel_isolated_share(int m, int sf, const std::vector<int>& gpus);

}  // namespace rm
