// A-SRPT (Luo et al.; our reconstruction, spec synergy-and-a-srpt.md A.5): a virtual single machine runs
// preemptive SRPT on q_i = n_i N^_i alpha_i^max / M; the real cluster starts jobs in order of virtual
// completion with the MAP mapping (strict, or with EASY backfilling), non-preemptively. The practical
// variant A-SRPT-P re-decides at every event and every delta seconds: active jobs in order of predicted
// remaining work, greedily mapped, the rest preempted. N^ comes from a Predictor (oracle, median, rf...).
#pragma once
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "policy/params.h"
#include "policy/plugin.h"
#include "policy/predictor/predictor.h"

namespace rm {

// Preemptive SRPT on one machine of unit speed, in seconds: always serve the smallest remaining size
// (ties: earlier release, then lower id). Jobs are added at their release time (now).
class VirtualSrpt {
 public:
  void add(JobId id, double release_s, double size);
  // Change a waiting job's remaining size by `delta` (kept >= eps).
  void resize(JobId id, double delta, double eps = 1e-9);
  // Run the machine up to `t`; appends (id, virtual completion time) in completion order.
  void advance(double t, std::vector<std::pair<JobId, double>>& done);
  // When the job now served would finish (infinity if none).
  double next_completion() const;
  // Take a waiting job off the machine (it started for real before its virtual completion).
  void remove(JobId id);
  // Waiting jobs in service order (smallest remaining first).
  void order(std::vector<JobId>& out) const;
  double remaining(JobId id) const { return contains(id) ? of_[id].first : 0; }
  double now() const { return vt_; }
  bool contains(JobId id) const;
  std::size_t size() const { return q_.size(); }

 private:
  double vt_ = 0;
  std::set<std::tuple<double, double, JobId>> q_;  // (remaining, release, id)
  std::vector<std::pair<double, double>> of_;      // per id: (remaining, release); remaining < 0 = absent
};

struct ASrptOptions {
  bool preemptive = false;    // A-SRPT-P
  bool backfill = true;       // EASY backfilling behind a blocked head (list variant)
  // Ours: also start jobs still waiting on the virtual machine, in SRPT order, when GPUs would otherwise
  // idle (under the same EASY reservation). The reconstruction starts only virtually completed jobs.
  bool eager = false;
  // Ours: virtual sizes at alpha^min instead of alpha^max (the machine then carries the real load, not
  // rho times it; the proof's Lemma 1 step no longer applies).
  bool size_min = false;
  // Baseline "SJF with predicted iterations": no virtual machine; waiting jobs in order of predicted
  // work n N^ alpha / M, non-preemptive, same placement and backfilling (implies eager).
  bool sjf = false;
  bool map = true;            // MAP placement; false = communication-oblivious first fit
  int refine = 2;             // Kernighan-Lin passes of MAP
  double delta_s = 300;       // A-SRPT-P: re-decide at least this often
  double eps = 1e-9;
};

// The policy string: a-srpt[:predictor=rf|median|mean|global|oracle;backfill=easy|off;placement=map|first-fit;
// refine=2;eager=0|1;size=max|min;vm=on|off] and a-srpt-p[:...;delta=300] (predictor parameters such as trees= go through).
std::unique_ptr<Scheduler> make_a_srpt(const std::string& name, PluginParams& p);
bool is_a_srpt(const std::string& name);
// For tests: with a given predictor.
std::unique_ptr<Scheduler> make_a_srpt(std::unique_ptr<Predictor> pred, const ASrptOptions& opt);

}  // namespace rm
