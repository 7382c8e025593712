// First-fit's walk, the one implementation behind the job-level `first-fit` and `consolidated` placements and
// the round model's FIRST_FIT (src/synergy/first_fit.cpp): servers in the given order, a server's GPUs in
// index order, until `need` GPUs are taken. The caller's `visit(server, gpu)` says what to do with each GPU:
// take it, skip it (not free), or leave the server (no GPU of it can be taken: GPU memory too small, or the
// round model's CPU/DRAM holds full, which only grow). Dependency-free so both books can use it.
#pragma once

namespace rm {

enum class FitStep { kTake, kSkip, kLeaveServer };

// Servers 0 .. n-1 in order (std::views::iota's job; clang 14, which builds the fuzz targets, cannot compile
// libstdc++ 12's <ranges>).
struct ServerRange {
  struct It {
    int i;
    int operator*() const { return i; }
    It& operator++() { return ++i, *this; }
    bool operator!=(const It& o) const { return i != o.i; }
  };
  int n;
  It begin() const { return {0}; }
  It end() const { return {n}; }
};

template <class Servers, class GpusOf, class Visit>
[[gnu::always_inline]] inline int first_fit_walk(const Servers& servers, int need, GpusOf gpus_of, Visit visit) {
  int taken = 0;
  for (int s : servers) {
    if (taken >= need) break;
    for (int g = 0, n = gpus_of(s); g < n && taken < need; ++g) {
      const FitStep step = visit(s, g);
      if (step == FitStep::kTake) ++taken;
      if (step == FitStep::kLeaveServer) break;
    }
  }
  return taken;
}

}  // namespace rm
