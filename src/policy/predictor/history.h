// Per-recurrence-key history of finished jobs' iteration counts: count, running median, mean and last
// value of log(iterations), plus the same over all keys. Used by the median predictor and as features.
#pragma once
#include <functional>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

namespace rm {

class RunningMedian {
 public:
  void add(double x);
  double median() const;
  std::size_t size() const { return lo_.size() + hi_.size(); }

 private:
  std::priority_queue<double> lo_;                                        // max-heap: lower half
  std::priority_queue<double, std::vector<double>, std::greater<>> hi_;  // min-heap: upper half
};

struct KeyStats {
  RunningMedian median;  // of log iterations
  double sum = 0, last = 0;
  double mean() const { return median.size() ? sum / static_cast<double>(median.size()) : 0; }
};

class History {
 public:
  void add(const std::string& key, double log_iterations);
  const KeyStats* find(const std::string& key) const;
  // The key's history if it has one, else the history of all finished jobs.
  const KeyStats& key_or_global(const std::string& key) const;
  const KeyStats& global() const { return global_; }

 private:
  std::unordered_map<std::string, KeyStats> keys_;
  KeyStats global_;
};

}  // namespace rm
