// Slurm through its command-line tools (scontrol, squeue, sbatch, scancel; docs/slurm.md says why not
// libslurm or slurmrestd). Every call goes through a CommandRunner, so tests can replay recorded output.
// A failing command throws SlurmError with the command line and Slurm's own message.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "live/backend.h"
#include "live/command.h"
#include "live/slurm_text.h"

namespace rm::live {

class SlurmError : public BackendError {
 public:
  using BackendError::BackendError;
};

class SlurmCtl {
 public:
  explicit SlurmCtl(CommandRunner run = [](const std::vector<std::string>& a) { return run_command(a); })
      : run_(std::move(run)) {}
  void ping();                                                   // scontrol ping: slurmctld answers
  bool partition_exists(const std::string& partition);
  std::vector<SlurmNode> nodes(const std::string& partition);   // the partition's nodes, in Slurm's order
  std::vector<SlurmJob> jobs(const std::string& partition);     // every job of the partition, finished ones too
  // A held job: pin it to `nodes` (and skip the requeue BeginTime wait), then release it. gpus_per_node > 0
  // rewrites a per-node GPU request (--gres=gpu:k) to that count on each node; 0 leaves the request as it is
  // (--gpus=N: Slurm spreads N over the nodes).
  void place_and_release(std::int64_t id, const std::vector<std::string>& nodes, int gpus_per_node = 0);
  void requeue_hold(std::int64_t id);
  // The GPU indices Slurm gave a running job, per node (scontrol -d show job).
  std::vector<std::pair<std::string, std::vector<int>>> job_gpus(std::int64_t id);
  void hold(std::int64_t id);  // a released job that has not started yet
  void cancel(std::int64_t id);
  std::int64_t submit(const std::vector<std::string>& sbatch_args);  // sbatch --parsable ARGS -> job id

 private:
  CommandResult call(const std::vector<std::string>& argv, bool must_succeed = true);
  CommandRunner run_;
};

}  // namespace rm::live
