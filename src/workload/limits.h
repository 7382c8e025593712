// The valid range of every quantity a trace may give (docs/formats.md, "Valid ranges"). Anything outside is
// an input error naming file:line:field. The bounds keep every simulated time well inside the engine's
// integer microseconds (int64: 292,000 years), with room for slowdowns of several hundred times.
#pragma once

namespace rm::limits {

inline constexpr double kMaxSubmitS = 1e10;        // submit / arrival time: 0 .. 317 years
inline constexpr double kMaxDurationS = 1e10;      // a run time given by the trace
inline constexpr double kMaxIterations = 1e13;     // iterations / steps
inline constexpr double kMaxIdealRunS = 1e10;      // iterations x ideal iteration time, after resolution
inline constexpr long long kMaxGpusPerJob = 1'000'000;
inline constexpr long long kMaxSmallInt = 1'000'000'000;  // batch sizes, parallel degrees, ...
inline constexpr double kMaxPerIterationS = 1e6;   // compute / iteration time per iteration
inline constexpr double kMaxMegabytes = 1e9;       // gradient, memory sizes (MB)

}  // namespace rm::limits
