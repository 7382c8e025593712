// Simulated time: integer microseconds, so event order and output are exact.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

namespace rm {

using Time = std::int64_t;  // microseconds since the start of the trace

inline constexpr Time kNever = std::numeric_limits<Time>::max();
inline constexpr Time kUsPerS = 1'000'000;

inline double to_seconds(Time t) { return static_cast<double>(t) / 1e6; }

// Seconds to microseconds, rounding to the nearest microsecond.
inline Time from_seconds(double s) { return static_cast<Time>(std::llround(s * 1e6)); }

// Seconds to microseconds, rounding up, but treating values within 1e-3 us of an integer as that
// integer so that exact hand-computable durations (0.1 s * 100) are not pushed one tick late.
inline Time from_seconds_ceil(double s) {
  const double us = s * 1e6;
  const double r = std::round(us);
  if (std::fabs(us - r) < 1e-3) return static_cast<Time>(r);
  return static_cast<Time>(std::ceil(us));
}

}  // namespace rm
