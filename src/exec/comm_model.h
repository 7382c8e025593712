// Per-iteration time of a data-parallel job: compute + ring all-reduce over its placement, with the
// contention law of DESIGN.md section 4. Units: MB = 1e6 bytes, Gbps = 1e9 bit/s.
#pragma once
#include <functional>
#include <vector>

#include "cluster/cluster.h"
#include "workload/job.h"
#include "workload/job_graph.h"
#include "workload/trace.h"

namespace rm {

// Share of a link's bandwidth each of k flows gets: 1 / (k + a(k-1)).
inline double contention_share(int k, double a) { return k <= 1 ? 1.0 : 1.0 / (k + a * (k - 1)); }

// Ring all-reduce of `grad_mb` over n workers at bottleneck bandwidth `gbps`:
// 2(n-1)/n * M / B + 2(n-1) * latency.
double ring_allreduce_s(double grad_mb, int n, double gbps, double latency_us);

// Servers a placement spans, ascending, each with its GPU count.
struct Span {
  std::vector<int> servers;
  std::vector<int> gpus_on;
};
Span span_of(const std::vector<GpuRef>& gpus);
// The same into `out`, reusing its vectors' storage (the rate model's per-event path allocates nothing).
void span_into(const std::vector<GpuRef>& gpus, Span& out);

// A rack's oversubscription (1 for a rack the cluster file does not list: servers_per_rack).
double rack_oversubscription(const ClusterSpec& cluster, int rack);
// Whether a placement's all-reduce crosses the uplink of an oversubscribed rack (servers in two racks or more, one
// of them with oversubscription > 1): then the rack term of the law applies (docs/perf-model.md, "Racks").
bool crosses_oversubscribed_racks(const ClusterSpec& cluster, const Span& span);

// Iteration time on a placement; `k_of(server)` gives the number of split jobs on that server
// (this job included) and matters only when the job spans more than one server. An all-reduce that crosses an
// oversubscribed rack's uplink also runs at most at each of its servers' NIC / that rack's oversubscription, shared
// under the contention law by the rack_k(rack) jobs crossing that uplink (this job included; none given: 1).
double iteration_time_s(const JobSpec& job, const ClusterSpec& cluster, const Span& span,
                        const std::function<int(int)>& k_of, const std::function<int(int)>& rack_k = nullptr);

// Iteration time on the best placement for this job on an idle cluster: fewest servers of the largest
// kind, no contention. Used to turn durations into iterations and for size-based queue keys.
double ideal_iteration_time_s(const JobSpec& job, const ClusterSpec& cluster);
// Communication part of ideal_iteration_time_s.
double ideal_comm_s(const JobSpec& job, const ClusterSpec& cluster);

// The graph law (--exec graph; spec synergy-and-a-srpt.md A.2, job_graph.h): per-iteration time of a job
// whose worker v of the job graph runs on gpus[v]; b_in = the servers' intra_gbps, b_out = their NICs,
// no contention and no latency.
double graph_iteration_time_s(const JobSpec& job, const JobGraph& g, const ClusterSpec& cluster,
                              const std::vector<GpuRef>& gpus);
// Its inter-server bytes per iteration.
double graph_cut_bytes(const JobGraph& g, const std::vector<GpuRef>& gpus);
// alpha^min and alpha^max of spec A.2 on `cluster`: MAP on the empty cluster (servers of the most GPUs)
// and every edge across servers (the slowest NIC), compute at the fastest GPU speed.
struct AlphaBounds {
  double min_s = 0, max_s = 0;
};
AlphaBounds graph_alpha_bounds(const JobSpec& job, const JobGraph& g, const ClusterSpec& cluster);

// A job's communication and iteration time on its ideal placement in `cluster` (the servers of the most GPUs,
// the fastest GPU speed), with those found once per cluster: O(1) per plain job. The cluster must outlive it.
// With `type`, on that GPU type's servers only (a job never spans two types).
class IdealLaw {
 public:
  explicit IdealLaw(const ClusterSpec& cluster, const std::string& type = "");
  double comm_s(const JobSpec& job) const;
  double iteration_s(const JobSpec& job) const { return job.compute_s / max_speed_ + comm_s(job); }

 private:
  const ClusterSpec* cluster_;
  const ServerSpec* best_;  // the first server of the most GPUs
  double max_speed_ = 0;
};

// ideal_comm_s and ideal_iteration_time_s for resolve_workload (workload/trace.h), and options with them: on
// `type`'s servers, or (empty) on the cluster's first GPU type (a trace's durations are on the trace's type).
IdealTimes ideal_times(const std::string& type = "");
inline ResolveOptions law_resolve_options(ResolveOptions o = {}) {
  o.ideal = ideal_times();
  return o;
}

// Jobs with tensor or pipeline parallelism need the graph law.
inline bool is_mixed_parallel(const JobSpec& j) { return j.pp > 1 || j.tp > 1; }

}  // namespace rm
