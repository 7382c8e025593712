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

// Beyond this many microseconds (146,000 years) a conversion saturates instead of overflowing: inputs are
// bounded far below it (workload/limits.h), so a saturated value is only ever seen by a range check.
inline constexpr Time kTimeSaturation = Time{1} << 62;

// Seconds to microseconds, rounding to the nearest microsecond (saturating at +-kTimeSaturation; NaN -> 0).
inline Time from_seconds(double s) {
  const double us = s * 1e6;
  if (!(us < static_cast<double>(kTimeSaturation))) return us != us ? 0 : kTimeSaturation;
  if (!(us > -static_cast<double>(kTimeSaturation))) return -kTimeSaturation;
  return static_cast<Time>(std::llround(us));
}

// Seconds to microseconds, rounding up, but treating values within 1e-3 us of an integer as that
// integer so that exact hand-computable durations (0.1 s * 100) are not pushed one tick late.
inline Time from_seconds_ceil(double s) {
  const double us = s * 1e6;
  if (!(us < static_cast<double>(kTimeSaturation))) return us != us ? 0 : kTimeSaturation;
  if (!(us > -static_cast<double>(kTimeSaturation))) return -kTimeSaturation;
  const double r = std::round(us);
  if (std::fabs(us - r) < 1e-3) return static_cast<Time>(r);
  return static_cast<Time>(std::ceil(us));
}

}  // namespace rm
