// The timing reports' median and 99th percentile: the sorted values' element at n/2 and at min(n-1, 99n/100).
#pragma once
#include <algorithm>
#include <utility>
#include <vector>

namespace rm {

inline std::pair<double, double> p50_p99(std::vector<double> v) {
  if (v.empty()) return {0, 0};
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v[std::min(v.size() - 1, v.size() * 99 / 100)]};
}

}  // namespace rm
