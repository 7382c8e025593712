#include "core/py_stats.h"

#include <cmath>

namespace rm {

double numpy_pairwise_sum(const double* x, long n) {
  if (n < 8) {
    double s = 0;  // numpy starts from -0.0 for n < 8; +0 + x == x for every x but -0.0, irrelevant here
    for (long i = 0; i < n; ++i) s += x[i];
    return s;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = x[j];
    long i = 8;
    for (; i < n - (n % 8); i += 8)
      for (int j = 0; j < 8; ++j) r[j] += x[i + j];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += x[i];
    return res;
  }
  long n2 = n / 2;
  n2 -= n2 % 8;
  return numpy_pairwise_sum(x, n2) + numpy_pairwise_sum(x + n2, n - n2);
}

double pandas_quantile(const std::vector<double>& x, double q) {
  const long n = static_cast<long>(x.size());
  if (n == 0) return std::nan("");
  const double qq = (q * 100.0) / 100.0;
  const double v = static_cast<double>(n - 1) * qq;
  const double fi = std::floor(v);
  const long i = static_cast<long>(fi);
  const double g = v - fi;
  if (i >= n - 1) return x[n - 1];
  const double a = x[i], b = x[i + 1], d = b - a;
  return g < 0.5 ? a + d * g : b - d * (1 - g);
}

}  // namespace rm
