// The task model's two ways of summing milliseconds (models/task/task_model.h): the authors' float sums under
// --compat wang2020, else whole nanoseconds (`exact`) shown to the plugins in milliseconds (`shown`), so a
// fast-forward's bulk credit equals the step-by-step one exactly.
#pragma once
#include <cstdint>

namespace rm::task_sum {

inline void add(bool compat, double& shown, std::int64_t& exact, double ms, std::int64_t ns) {
  if (compat) {
    shown += ms;
  } else {
    exact += ns;
    shown = static_cast<double>(exact) / 1e6;
  }
}

}  // namespace rm::task_sum
