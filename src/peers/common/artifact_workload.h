// The workload CSV of Pollux's and Sia's artifacts (`name,time,application,num_replicas,batch_size`, Sia's with an
// optional `category`), read for --compat pollux and --compat sia: one row per job in file order, each checked with
// the file, line and field named; the engine's JobSpec of each (id, name, submit, GPUs, model, file:line) beside it.
#pragma once
#include <string>
#include <vector>

#include "run/run_plan.h"
#include "workload/job.h"

namespace rm {

struct ArtifactRow {
  double time = 0;  // seconds (whole for Pollux's; Sia's newtrace gives fractions)
  int replicas = 0, batch = 0;
  std::string app, category;
  std::string file;
  long line = 0;
};

// `compat`: the mode's name in messages; `whole_times`: submit times must be whole seconds. Rows after --max-jobs are
// not read. Appends to `specs` in step with the rows returned.
std::vector<ArtifactRow> read_artifact_workload(const InputSpec& in, const std::string& compat, bool whole_times,
                                                std::vector<JobSpec>& specs);

}  // namespace rm
