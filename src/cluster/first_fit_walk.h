// First-fit's walk, the one implementation of "take GPUs server by server" (filter + score, as the Kubernetes
// scheduling framework puts it): servers in the order the caller scores them, a server's GPUs in the order it
// gives, until `need` GPUs are taken. `gpus_of(server)` is called once per server reached (a caller may filter
// and order that server's candidates there); `visit(server, k)` says what to do with its k-th: take it, skip it
// (not free), or leave the server (none of it can be taken: GPU memory too small, or the round model's
// CPU/DRAM holds full, which only grow). Its users: the job-level `first-fit` and `consolidated` placements
// (fill_in_order), the round model's FIRST_FIT (src/policy/allocation/round_pass.cpp), the task model's `first-fit`
// (src/policy/task/first_fit.cpp), LWF-kappa (src/policy/task/lwf.cpp: both branches), the planners' FF
// (src/policy/planner/ff.cpp), A-SRPT's placement=first-fit and MAP's choice of servers for a job that spans
// several (src/workload/job_graph_map.cpp). Dependency-free, in the bottom layer, so every book can use it.
#pragma once
#include <utility>

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

// The servers a "next member >= from" function gives (a free map's next server with a free GPU, the complement of
// the book's full-server bitset), in index order, below n: a walk that never visits a full server.
template <class Next>
struct ServersBy {
  struct It {
    const Next* next;
    int s;
    int operator*() const { return s; }
    It& operator++() { return s = (*next)(s + 1), *this; }
    bool operator!=(const It& o) const { return s != o.s; }
  };
  Next next;
  int n;
  It begin() const { return {&next, next(0)}; }
  It end() const { return {&next, n}; }
};
template <class Next>
ServersBy<Next> servers_by(Next next, int n) {
  return {std::move(next), n};
}

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
