// The job graph H_i of a mixed-parallelism training job (A-SRPT reconstruction, spec
// synergy-and-a-srpt.md A.2): one vertex per worker (d, p, t) for D data-parallel replicas, P pipeline
// stages and T tensor-parallel ranks, and edges weighted by the bytes they carry per iteration:
//   TP ring inside (d, p, .):  (d,p,t)-(d,p,t+1 mod T),  w = 2(T-1)/T * A_p
//   PP chain:                  (d,p,t)-(d,p+1,t),        w = pp_bytes[p]   (2 a_p m: activations + gradients)
//   DP ring inside (., p, t):  (d,p,t)-(d+1 mod D,p,t),  w = 2(D-1)/D * theta_p (the shard's gradient)
// A ring of two workers has its two edges between the same pair, so each pair exchanges the ring's
// full 2(n-1)/n share in each direction.
#pragma once
#include <vector>

#include "workload/job.h"

namespace rm {

struct ParallelConfig {
  int D = 1, P = 1, T = 1;
  int workers() const { return D * P * T; }
};

// Per-iteration sizes in bytes. Vectors are per stage (tp, dp: P entries; pp: P - 1 boundaries);
// a single value is used for every stage.
struct GraphSizes {
  double compute_s = 0;             // tau_comp: per-iteration compute (pipeline schedule included)
  std::vector<double> tp_bytes;     // A_p, the activation all-reduce volume of stage p
  std::vector<double> pp_bytes;     // bytes crossing boundary p -> p+1 per iteration
  std::vector<double> dp_bytes;     // theta_p, the gradient of one (p, t) shard
};

// The collective an edge belongs to: all edges of one kind run concurrently (one phase).
enum class EdgeKind { TP = 0, PP = 1, DP = 2 };

struct GraphEdge {
  int u, v;
  double bytes;
  EdgeKind kind = EdgeKind::DP;
};

struct JobGraph {
  ParallelConfig cfg;
  double compute_s = 0;
  std::vector<GraphEdge> edges;
  int vertex(int d, int p, int t) const { return (d * cfg.P + p) * cfg.T + t; }
  int size() const { return cfg.workers(); }
  double total_bytes() const;
};

// Throws InputError (field "parallel") on a bad configuration or size vector.
JobGraph build_job_graph(const ParallelConfig& cfg, const GraphSizes& sizes);

// The job graph of a resolved job: D = dp (or num_gpus / (pp tp)), theta_p = grad_mb / (P T),
// A_p = tp_mb, pipeline boundary = pp_mb, compute = compute_s.
ParallelConfig parallel_config_of(const JobSpec& j);
JobGraph job_graph_of(const JobSpec& j);

// Bytes per iteration on edges whose endpoints sit on different servers (server_of[v] per vertex).
double cut_bytes(const JobGraph& g, const std::vector<int>& server_of);

// Per-iteration time alpha(x) under a mapping (b_in inside a server, b_out across servers, bytes per
// second). Our law (docs/design.md, deviation 10): the three collectives (TP, PP, DP) run one after the
// other with no overlap, as in A.2, but the edges of one collective run concurrently, so each phase
// lasts as long as its slowest edge:  alpha(x) = compute + sum over kinds of max_e bytes_e / b(x_e).
// For a data-parallel job this is exactly the ring all-reduce 2(D-1)/D theta / B of the bottleneck
// link. (A.2's literal sum over all edges counts a ring of D workers D times.)
double alpha_s(const JobGraph& g, const std::vector<int>& server_of, double b_in, double b_out);
// alpha^max: every edge inter-server (an upper bound of alpha(x) for every x, as b_out <= b_in).
double alpha_max_s(const JobGraph& g, double b_out);
// A lower bound of alpha(x) for every x: every edge inside a server.
double alpha_floor_s(const JobGraph& g, double b_in);

}  // namespace rm
