#include "policy/predictor/history.h"

namespace rm {

void RunningMedian::add(double x) {
  if (lo_.empty() || x <= lo_.top()) lo_.push(x);
  else hi_.push(x);
  if (lo_.size() > hi_.size() + 1) hi_.push(lo_.top()), lo_.pop();
  else if (hi_.size() > lo_.size()) lo_.push(hi_.top()), hi_.pop();
}

double RunningMedian::median() const {
  if (lo_.empty()) return 0;
  return lo_.size() > hi_.size() ? lo_.top() : (lo_.top() + hi_.top()) / 2;
}

void History::add(const std::string& key, double x) {
  for (KeyStats* s : {&keys_[key], &global_}) {
    s->median.add(x);
    s->sum += x;
    s->last = x;
  }
}

const KeyStats* History::find(const std::string& key) const {
  auto it = keys_.find(key);
  return it == keys_.end() ? nullptr : &it->second;
}

const KeyStats& History::key_or_global(const std::string& key) const {
  const KeyStats* s = find(key);
  return s ? *s : global_;
}

}  // namespace rm
