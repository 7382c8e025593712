// What the engine's trainer-backed job models (models/rate/pollux_job_model.h, sia_job_model.h) read alike of a job:
// the application of a Pollux/Sia workload's job (the catalogue names it pollux:<app>) and its GPUs per server, in
// the order its GPUs name the servers (the simulators' placement).
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "sched/job_state.h"

namespace rm {

inline std::string trainer_app(const JobSpec& j) { return j.model.rfind("pollux:", 0) == 0 ? j.model.substr(7) : j.model; }

inline std::vector<int> trainer_placement(const JobState& j) {
  std::vector<int> servers, on;
  for (const GpuRef& g : j.gpus) {
    const auto it = std::find(servers.begin(), servers.end(), g.server);
    if (it == servers.end()) servers.push_back(g.server), on.push_back(1);
    else ++on[static_cast<std::size_t>(it - servers.begin())];
  }
  return on;
}

}  // namespace rm
