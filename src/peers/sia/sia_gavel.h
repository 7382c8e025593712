// Gavel as Sia's simulator runs it (siasosp23/artifacts aaf7a0d, sia-simulator/gavel.py GavelPolicy with its default
// max_sum_throughput_perf, policies/max_sum_throughput.py; the artifact's interval 360 s): each job asks for its trace's
// GPUs at its trace's batch on one type; its throughput on each type is the measured step time of a packed placement
// (predict_throughput); a linear program gives each (job, type) a time share maximising total throughput; each round
// the jobs run in the order of share over the share of time received so far, on whole servers taken from a pointer,
// keeping the previous GPUs where it can. The program is solved as the goldens' shim solves it (policy/pulp_cbc.h:
// Clp's simplex, a vertex, where the authors' cvxpy/ECOS returns an interior point of a tied optimum).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "peers/sia/sia_job.h"
#include "peers/sia/sia_policy.h"

namespace rm::sia {

class SiaGavel {
 public:
  SiaGavel(SiaCluster cluster, long interval);
  // One round at `now`: the GPUs of each active job (workload order); none: not scheduled this round (the simulator's
  // allocations.get() is None).
  std::vector<std::optional<Assignment>> optimize(const std::vector<const SJob*>& active, long now);
  const std::vector<SiaRoundStats>& stats() const { return stats_; }

 private:
  double predict_throughput(const SJob& j, int type) const;
  // add_jobs (S:gavel.py:111-123): a new job starts with half a round on every type.
  void add_jobs(const std::vector<const SJob*>& active);
  // compute_allocations: each job's time share of each type (x.value.round(5).clip(0, 1)), by job and type.
  std::map<std::string, std::vector<double>> shares(const std::vector<const SJob*>& active, SiaRoundStats& st);
  // update_priorities and schedule_jobs_on_workers_helper: the jobs each type runs this round, with their GPUs.
  std::vector<std::vector<std::pair<std::size_t, int>>> pick(const std::vector<const SJob*>& active,
                                                             std::map<std::string, std::vector<double>>& alloc);
  // schedule_jobs_on_workers: each scheduled job's type and worker ids.
  std::map<std::string, std::pair<int, std::vector<int>>> assign(
      const std::vector<const SJob*>& active, std::vector<std::vector<std::pair<std::size_t, int>>>& scheduled) const;

  SiaCluster cl_;
  long interval_;
  std::vector<int> sorted_;                   // type indices in sorted name order (worker ids)
  std::vector<int> spec_;                     // GPUs per type
  std::vector<int> worker_offset_;            // first worker id of each type (sorted order)
  std::vector<int> last_config_gpus_, last_config_nodes_;
  std::map<std::string, std::vector<double>> job_time_;  // by job: seconds received on each type (+ interval / 2)
  std::vector<double> cluster_time_;
  std::map<std::string, std::vector<double>> priority_;
  std::vector<std::string> jobs_;                        // last round's jobs (self._jobs)
  std::map<std::string, std::pair<int, std::vector<int>>> current_;  // job -> (type, worker ids)
  std::vector<SiaRoundStats> stats_;
};

}  // namespace rm::sia
