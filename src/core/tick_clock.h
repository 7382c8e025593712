// The timer of the scheduling passes: two reads a pass, and a run makes hundreds of thousands of passes. On x86 the
// CPU's time-stamp counter (rdtsc: 16 ns a read on the development machine, against 33 ns for steady_clock through
// the vDSO), converted to microseconds by the counter's rate against steady_clock over the same run; steady_clock's
// own ticks elsewhere. Timings only: nothing a run decides depends on them.
#pragma once
#include <chrono>
#include <cstdint>

namespace rm {

class TickClock {
 public:
  TickClock() : t0_(std::chrono::steady_clock::now()), c0_(ticks()) {}
  static std::uint64_t ticks() {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
  }
  // Microseconds per tick, measured from construction to now (a run too short to measure: 1 ns a tick).
  double us_per_tick() const {
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0_).count();
    const std::uint64_t c = ticks() - c0_;
    return c > 0 && us > 0 ? us / static_cast<double>(c) : 1e-3;
  }

 private:
  std::chrono::steady_clock::time_point t0_;
  std::uint64_t c0_;
};

}  // namespace rm
