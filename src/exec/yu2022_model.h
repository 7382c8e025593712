// The job-level model of Yu, Ji, Rajan, Liu 2022 (spec contention-and-sjf-bco.md B.2, B.9 S3(b), S4):
// exclusive, gang-scheduled, non-preemptive GPUs; a split job's contention count p_j (eq. 6) is the
// largest number of split jobs (itself included) on any server it uses; k_j = max(1, p_j); and its
// per-iteration time in slots is
//     tau_j = tau0_j * (1 + min(cap, xi * ((f(alpha, k_j) - 1) + (sigma_j - 1)))),  f(a, k) = k + a(k - 1),
// with sigma_j its number of servers. A single-server job runs at tau0_j. This is the paper-calibrated
// abstract mode of S3(b): contention and per-server overhead add at most `cap` (the paper's "<= 15 %"),
// with xi1 = xi2 = xi (the paper's "xi1 = xi2"). Progress is fractional, 1 / tau iterations per slot
// (S5's recommendation), or with floor_slots (--compat yu2022) the paper's phi = floor(1 / tau) whole
// iterations per slot, a job holding its GPUs to the end of the slot in which it reaches F (eq. 9).
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "workload/generators.h"

namespace rm::yu {

struct ModelParams {
  double xi = 0.02;
  double alpha = 0.2745;  // P1's eta / beta on 10 GbE
  double cap = 0.15;
  bool floor_slots = false;
  double slot_s = kYu2022SlotS;  // seconds per slot when reported in seconds (S3: tau in [0.01, 0.05] slot)
};

inline double tau_slots(double tau0, int p, int sigma, const ModelParams& m) {
  if (sigma <= 1) return tau0;
  const double k = std::max(1, p);
  const double f = k + m.alpha * (k - 1);
  return tau0 * (1 + std::min(m.cap, m.xi * ((f - 1) + (sigma - 1))));
}

// Eq. (6) for a set of running jobs given each one's distinct servers: a split job's p is the largest
// number of split jobs (itself included) on any of its servers; a single-server job has p = 0.
inline std::vector<int> contention_counts(const std::vector<std::vector<int>>& servers_of, int num_servers) {
  std::vector<int> split_on(num_servers, 0), p(servers_of.size(), 0);
  for (const auto& sv : servers_of)
    if (sv.size() > 1)
      for (int s : sv) ++split_on[s];
  for (std::size_t i = 0; i < servers_of.size(); ++i)
    if (servers_of[i].size() > 1)
      for (int s : servers_of[i]) p[i] = std::max(p[i], split_on[s]);
  return p;
}

// Iterations per slot: 1 / tau, or floor(1 / tau) under floor_slots (0 if an iteration outlasts a slot).
inline double per_slot(double tau, const ModelParams& m) { return m.floor_slots ? std::floor(1.0 / tau) : 1.0 / tau; }

}  // namespace rm::yu
