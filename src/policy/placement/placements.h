// Placement plugins, one file each.
#pragma once
#include <memory>

#include "policy/params.h"
#include "cluster/first_fit_walk.h"
#include "policy/plugin.h"

namespace rm {

// Takes free GPUs server by server in the given order (lowest GPU index first within a server),
// skipping servers without enough GPU memory, until the job has all it asked for (first_fit_walk).
template <class Servers>
std::optional<std::vector<GpuRef>> fill_in_order(const JobSpec& j, const FreeMap& free, const Servers& servers) {
  const int n = j.num_gpus;
  std::vector<GpuRef> out;
  out.reserve(n);
  const auto gpus_of = [&](int s) { return free.spec().servers[s].gpus; };
  const int got = first_fit_walk(servers, n, gpus_of, [&](int s, int g) {
    if (g == 0 && (free.free_on(s) == 0 || !free.fits_memory(j, s))) return FitStep::kLeaveServer;
    if (!free.is_free({s, g})) return FitStep::kSkip;
    out.push_back({s, g});
    return FitStep::kTake;
  });
  if (got < n) return std::nullopt;
  return out;
}

// The servers with a free GPU, in index order (FreeMap::next_free_server): first-fit's walk without a visit
// to every full server.
inline auto free_servers(const FreeMap& free) {
  return servers_by([&free](int s) { return free.next_free_server(s); }, free.num_servers());
}

// A job's GPUs are all of one GPU type (docs/perf-model.md). On a cluster of one type this is p.place; on one
// of several, p places the job on one type at a time, with the other types' free GPUs hidden: the type the job
// pins (JobSpec::gpu_type), else every type fastest first (GpuTypes::by_speed).
std::optional<std::vector<GpuRef>> place_on_one_type(Placement& p, const JobState& j, FreeMap& free);

std::unique_ptr<Placement> make_first_fit(PluginParams& p);
std::unique_ptr<Placement> make_consolidated(PluginParams& p);
std::unique_ptr<Placement> make_spread_ok(PluginParams& p);
std::unique_ptr<Placement> make_random(PluginParams& p);
std::unique_ptr<Placement> make_py_placement(PluginParams& p);

}  // namespace rm
