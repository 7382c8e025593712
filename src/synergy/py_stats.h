// The Synergy authors' statistics, to the last bit (spec S.10 items 22-23): numpy's pairwise sum over the
// ascending JCTs, mean = (sum / n) / 3600, and pandas' linear-interpolation quantile with q' = (q*100)/100
// and numpy >= 1.22's two-sided lerp.
#pragma once
#include <vector>

namespace rm::synergy {

double numpy_pairwise_sum(const double* x, long n);
// `sorted` ascending; q in [0, 1] as pandas receives it (0.99, 0.999).
double pandas_quantile(const std::vector<double>& sorted, double q);

}  // namespace rm::synergy
