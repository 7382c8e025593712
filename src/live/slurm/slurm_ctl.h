// Slurm through its command-line tools (scontrol, squeue, sbatch, scancel; docs/slurm.md says why not
// libslurm or slurmrestd). Every call goes through a CommandRunner, so tests can replay recorded output.
// A failing command throws SlurmError with the command line and Slurm's own message.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "live/backend.h"
#include "live/command.h"
#include "live/slurm/slurm_text.h"

namespace rm::live {

class SlurmError : public BackendError {
 public:
  using BackendError::BackendError;
};

class SlurmCtl {
 public:
  // The real tools by default (up to 8 commands at once in place_and_release_all); a test's runner one at a time.
  SlurmCtl() : run_([](const std::vector<std::string>& a) { return run_command(a); }), parallel_(8) {}
  explicit SlurmCtl(CommandRunner run, int parallel = 1) : run_(std::move(run)), parallel_(std::max(1, parallel)) {}
  void ping();                                                   // scontrol ping: slurmctld answers
  bool partition_exists(const std::string& partition);
  // `scontrol show partition P -o` as key=value pairs; empty when Slurm has no such partition.
  std::map<std::string, std::string> partition(const std::string& partition);
  // Every partition (`scontrol show partition -o`), each as key=value pairs.
  std::vector<std::map<std::string, std::string>> partitions();
  // `scontrol show config` as key -> value ("SelectTypeParameters" -> "CR_CORE_MEMORY").
  std::map<std::string, std::string> config();
  std::vector<SlurmNode> nodes(const std::string& partition);   // the partition's nodes, in Slurm's order
  // Every job of the partition, finished ones too; every job of the cluster when `partition` is empty.
  std::vector<SlurmJob> jobs(const std::string& partition);
  // A held job: pin it to `nodes` (and skip the requeue BeginTime wait), then release it. gpus_per_node > 0
  // rewrites a per-node GPU request (--gres=gpu:k) to that count on each node; 0 leaves the request as it is
  // (--gpus=N: Slurm spreads N over the nodes).
  void place_and_release(std::int64_t id, const std::vector<std::string>& nodes, int gpus_per_node = 0);
  // Many starts of one step: each job pinned to its nodes (`scontrol update`, up to `parallel` at a time:
  // slurmctld serves concurrent clients), then all released in one `scontrol release ID,ID,...` (one by one if
  // that fails, to tell whose). A step of 128 starts: 2.0 s one by one, 0.6 s so (docs/slurm.md, "At scale").
  // Per job: "" if done, else the error.
  struct Release {
    std::int64_t id = 0;
    std::vector<std::string> nodes;
    int gpus_per_node = 0;
  };
  std::vector<std::string> place_and_release_all(const std::vector<Release>& starts);
  void requeue_hold(std::int64_t id);
  // The GPU indices Slurm gave a running job, per node (scontrol -d show job).
  std::vector<std::pair<std::string, std::vector<int>>> job_gpus(std::int64_t id);
  // The same for many jobs, up to `parallel` commands at once; errors[k] is job k's error ("" if read).
  std::vector<std::vector<std::pair<std::string, std::vector<int>>>> job_gpus_all(const std::vector<std::int64_t>& ids,
                                                                                std::vector<std::string>& errors);
  void hold(std::int64_t id);  // a released job that has not started yet
  // The job's AdminComment (what an administrator and `scontrol show job` see; the user's Comment, where the rm:
  // hints are, is never touched).
  void admin_comment(std::int64_t id, const std::string& text);
  void cancel(std::int64_t id);
  void update_comment(std::int64_t id, const std::string& text);  // a job's (user-visible) Comment
  // Uninstall: the job's node pin (ReqNodeList) and AdminComment cleared, then, if `release`, released.
  void unpin(std::int64_t id, bool clear_admin_comment, bool release);
  std::int64_t submit(const std::vector<std::string>& sbatch_args);  // sbatch --parsable ARGS -> job id

 private:
  CommandResult call(const std::vector<std::string>& argv, bool must_succeed = true);
  void pin(const Release& r);  // scontrol update JobId= NodeList= NumNodes= StartTime=now [Gres=gpu:k]
  // f(0..n-1), up to parallel_ at a time (each on its own thread when more than one).
  void parallel_for(std::size_t n, const std::function<void(std::size_t)>& f) const;
  CommandRunner run_;
  int parallel_ = 1;
};

}  // namespace rm::live
