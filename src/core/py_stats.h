// numpy's and pandas' statistics to the last bit, as the peers' Python computes them: numpy's pairwise sum (the
// Synergy authors' mean over the ascending JCTs, spec S.10 items 22-23; Gavel's np.mean over its JCTs in job-id
// order) and pandas' linear-interpolation quantile with q' = (q*100)/100 and numpy >= 1.22's two-sided lerp.
#pragma once
#include <vector>

namespace rm {

double numpy_pairwise_sum(const double* x, long n);
// `sorted` ascending; q in [0, 1] as pandas receives it (0.99, 0.999).
double pandas_quantile(const std::vector<double>& sorted, double q);

}  // namespace rm
