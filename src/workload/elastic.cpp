// An elastic job at another width (workload/job.h spec_at_width; docs/elastic.md "Work at another width").
#include <cmath>

#include "workload/job.h"

namespace rm {

JobSpec spec_at_width(const JobSpec& j, int n) {
  JobSpec s = j;
  if (n == j.num_gpus || n <= 0 || j.num_gpus <= 0) return s;
  s.num_gpus = n;
  if (j.global_batch > 0) {  // the global batch stays: each GPU takes its share, its compute in proportion
    s.batch_size = static_cast<int>(std::ceil(static_cast<double>(j.global_batch) / n));
    const double f = static_cast<double>(j.num_gpus) / n;
    s.compute_s *= f;
    s.forward_s *= f;
    s.gpu_mem_mb = j.gpu_mem_mb;  // the catalogue's per-worker figure: activations shrink, weights do not
  }
  return s;
}

double work_per_iteration(const JobSpec& j, int n) {
  if (n == j.num_gpus || j.global_batch > 0 || j.num_gpus <= 0) return 1;
  return static_cast<double>(n) / j.num_gpus;
}

}  // namespace rm
