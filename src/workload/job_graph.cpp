#include "workload/job_graph.h"

#include <algorithm>
#include <string>
#include <tuple>

#include "core/error.h"

namespace rm {
namespace {

double at(const std::vector<double>& v, int p) { return v.empty() ? 0 : v.size() == 1 ? v[0] : v[p]; }

void check_len(const std::vector<double>& v, int want, const char* what) {
  if (v.size() > 1 && static_cast<int>(v.size()) != want)
    throw InputError("parallel", 0, what, "needs " + std::to_string(want) + " values (or a single value)");
}

}  // namespace

JobGraph build_job_graph(const ParallelConfig& cfg, const GraphSizes& sizes) {
  if (cfg.D < 1 || cfg.P < 1 || cfg.T < 1)
    throw InputError("parallel", 0, "D,P,T", "every degree must be >= 1");
  check_len(sizes.tp_bytes, cfg.P, "tp_bytes");
  check_len(sizes.pp_bytes, cfg.P - 1, "pp_bytes");
  check_len(sizes.dp_bytes, cfg.P, "dp_bytes");
  JobGraph g;
  g.cfg = cfg;
  g.compute_s = sizes.compute_s;
  const auto [D, P, T] = std::tuple{cfg.D, cfg.P, cfg.T};
  for (int d = 0; d < D; ++d)
    for (int p = 0; p < P; ++p)
      for (int t = 0; t < T; ++t) {
        const int v = g.vertex(d, p, t);
        if (T > 1)
          g.edges.push_back({v, g.vertex(d, p, (t + 1) % T), 2.0 * (T - 1) / T * at(sizes.tp_bytes, p), EdgeKind::TP});
        if (p + 1 < P) g.edges.push_back({v, g.vertex(d, p + 1, t), at(sizes.pp_bytes, p), EdgeKind::PP});
        if (D > 1)
          g.edges.push_back({v, g.vertex((d + 1) % D, p, t), 2.0 * (D - 1) / D * at(sizes.dp_bytes, p), EdgeKind::DP});
      }
  for (const auto& e : g.edges)
    if (!(e.bytes >= 0)) throw InputError("parallel", 0, "bytes", "edge sizes must be >= 0");
  return g;
}

ParallelConfig parallel_config_of(const JobSpec& j) {
  const int pt = std::max(1, j.pp) * std::max(1, j.tp);
  return {j.dp > 0 ? j.dp : std::max(1, j.num_gpus / pt), std::max(1, j.pp), std::max(1, j.tp)};
}

JobGraph job_graph_of(const JobSpec& j) {
  const ParallelConfig c = parallel_config_of(j);
  GraphSizes s;
  s.compute_s = j.compute_s;
  s.tp_bytes = {j.tp_mb * 1e6};
  s.pp_bytes = {j.pp_mb * 1e6};
  s.dp_bytes = {j.grad_mb * 1e6 / (c.P * c.T)};
  return build_job_graph(c, s);
}

double JobGraph::total_bytes() const {
  double s = 0;
  for (const auto& e : edges) s += e.bytes;
  return s;
}

double cut_bytes(const JobGraph& g, const std::vector<int>& server_of) {
  double s = 0;
  for (const auto& e : g.edges)
    if (server_of[e.u] != server_of[e.v]) s += e.bytes;
  return s;
}

namespace {

// compute + sum over the three phases of the slowest edge, with `time(e)` the edge's transfer time.
template <class F>
double phased(const JobGraph& g, F time) {
  double phase[3] = {0, 0, 0};
  for (const auto& e : g.edges) {
    double& p = phase[static_cast<int>(e.kind)];
    p = std::max(p, time(e));
  }
  return g.compute_s + phase[0] + phase[1] + phase[2];
}

}  // namespace

double alpha_s(const JobGraph& g, const std::vector<int>& server_of, double b_in, double b_out) {
  return phased(g, [&](const GraphEdge& e) { return e.bytes / (server_of[e.u] == server_of[e.v] ? b_in : b_out); });
}

double alpha_max_s(const JobGraph& g, double b_out) {
  return phased(g, [&](const GraphEdge& e) { return e.bytes / b_out; });
}

double alpha_floor_s(const JobGraph& g, double b_in) {
  return phased(g, [&](const GraphEdge& e) { return e.bytes / b_in; });
}

}  // namespace rm
