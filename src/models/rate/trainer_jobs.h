// What the engine's trainer-backed job models (models/rate/pollux_job_model.h, sia_job_model.h) read alike of a job:
// the application of a Pollux/Sia workload's job (the catalogue names it pollux:<app>) and its GPUs per server, in
// the order its GPUs name the servers (the simulators' placement).
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "exec/completion_heap.h"
#include "exec/pollux_app.h"
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

// A trained job's progress in its application's units under the engine's clock: its epoch, the progress at its
// current goodput, the engine's remaining iterations in proportion, and its next instant (the epoch's end or the next
// re-tuning, whichever comes first). `curves`: the application's validation curves (progress at each epoch's start).
struct EpochProgress {
  int epoch = 0;
  double progress = 0, target = 0, per_iteration = 0;  // progress units; target / the job's iterations
  double goodput = 0;                                  // progress units per second now
  Time prog_time = 0, epoch_end = kNever;

  // Progress up to `now` at the current goodput (none before the restart delay ends, none unplaced).
  void bring_up_to_date(JobState& j, const PolluxApp& curves, bool placed, Time now) {
    if (epoch > curves.completion_epoch()) return;  // complete: its progress is its target
    const Time from = std::max(prog_time, j.stall_until);
    if (placed && now > from) progress += goodput * to_seconds(now - from);
    progress = std::min(progress, curves.progress(epoch + 1));
    prog_time = std::max(prog_time, now);
    j.remaining = std::max(0.0, (target - progress) / per_iteration);
    j.progress_time = now;
  }
  // At a due instant t: the epoch's end, if it is one (its progress exactly, the next epoch); true if that ended the
  // application's last epoch (the job is complete).
  bool end_epoch_if_due(JobState& j, const PolluxApp& curves, Time t, long& epochs) {
    if (t < epoch_end) return false;
    progress = curves.progress(epoch + 1);
    ++epoch;
    ++epochs;
    if (epoch <= curves.completion_epoch()) return false;
    j.remaining = 0;
    return true;
  }
  // A new goodput from `now` (> 0): the engine's iteration time and the next instant, pushed into `heap`.
  void rerate(JobState& j, const PolluxApp& curves, double g, Time now, Time tune, CompletionHeap& heap) {
    goodput = g;
    j.iter_time = per_iteration / goodput;
    ++j.epoch;
    const Time from = std::max(now, j.stall_until);
    const Time to_epoch = from_seconds_ceil((curves.progress(epoch + 1) - progress) / goodput);
    epoch_end = to_epoch <= tune ? from + to_epoch : kNever;
    heap.push(from + std::min(to_epoch, tune), j);
  }
};

}  // namespace rm
