// The task model's time (models/task/): whole nanoseconds inside, milliseconds where the plugins and
// the authors' formulas read it, and its two ways of summing milliseconds: the authors' float sums under --compat
// wang2020, else whole nanoseconds (`exact`) shown in milliseconds (`shown`), so a fast-forward's bulk credit equals
// the step-by-step one exactly. One place for the conversions every unit of the model uses.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

namespace rm::task_time {

inline constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max() / 4;  // no such instant (ns)

inline double ms_from(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }
inline std::int64_t ns_of(double ms) { return std::llround(ms * 1e6); }

inline void add(bool compat, double& shown, std::int64_t& exact, double ms, std::int64_t ns) {
  if (compat) {
    shown += ms;
  } else {
    exact += ns;
    shown = ms_from(exact);
  }
}

}  // namespace rm::task_time
