// Parsing what Slurm's command-line tools print (Slurm 22.05; docs/slurm.md): `scontrol show node -o`
// lines, the fixed `squeue` format the backend asks for, host lists, times, and the ringmaster hints a
// user puts in a job's comment. Pure functions over text, unit-tested on recorded samples.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rm::live {

// `Key=value Key=value ...` as scontrol -o prints it. A word without '=' continues the previous value
// (values such as OS=Linux 6.1.0 #1 SMP contain spaces). Keys keep their case; later duplicates win.
std::map<std::string, std::string> parse_kv_line(const std::string& line);

// "n[1-3,5],m2" -> n1 n2 n3 n5 m2 (Slurm's host-list syntax: one bracket range per name, zero padding kept).
// Throws InputError on an unbalanced bracket or a bad range.
std::vector<std::string> expand_hostlist(const std::string& s);

// GPUs in a GRES string: "gpu:4", "gpu:4(S:0)", "gpu:g0:1,gpu:g1:1", "gres:gpu:2", "gres/gpu=2", "(null)".
int gres_gpus(const std::string& s);

struct SlurmNode {
  std::string name;
  std::string state;      // e.g. IDLE, MIXED, ALLOCATED, DOWN+NOT_RESPONDING, IDLE+DRAIN
  int cpus = 0;           // CPUTot
  double mem_mb = 0;      // RealMemory
  int cpus_alloc = 0;     // CPUAlloc
  double mem_alloc_mb = 0;  // AllocMem
  int gpus = 0;           // from Gres
  std::vector<std::string> partitions;
  bool usable() const;    // not DOWN, DRAIN(ED/ING), FAIL, INVAL, FUTURE, NOT_RESPONDING
};
SlurmNode parse_node(const std::string& line);  // one `scontrol show node -o` line

// The GPUs Slurm gave a running job, per node, from `scontrol -d show job ID` (its detail lines
// "Nodes=n[1-2] CPU_IDs=0 Mem=100 GRES=gpu:2(IDX:0-1)"): node -> GPU indices, in Slurm's order.
std::vector<std::pair<std::string, std::vector<int>>> parse_job_gpu_indices(const std::string& show_job_detail);

// One job as the backend's squeue format prints it (kSqueueFields: `squeue -O` with '|' after every field, so
// nothing is truncated; the comment last, since it may contain '|').
struct SlurmJob {
  std::int64_t id = 0;
  std::string state;       // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, ...
  std::string reason;      // JobHeldUser, JobHeldAdmin, Resources, None, ...
  std::vector<std::string> nodes;
  int gpus_per_node = 0;   // --gres=gpu:k (tres-per-node)
  int gpus_per_job = 0;    // --gpus=N (tres-per-job)
  int num_nodes = 1;
  int gpus = 0;            // total: gpus_per_job, else gpus_per_node x num_nodes
  int cpus = 0;
  std::string min_memory;  // as printed, e.g. 4G (0 = none asked)
  double mem_mb() const;   // min_memory in MB (per node; 0 if none or unreadable)
  std::string partition;
  double submit_s = -1, start_s = -1, end_s = -1;  // epoch seconds; -1 = unknown
  std::string user, name;  // Slurm's user and job name (the default recurrence key of a-srpt's predictor)
  // Dependencies not yet satisfied, as squeue prints them: "afterok:12(unfulfilled)", "afterok:12(failed)"; "" if
  // none (Slurm drops the satisfied ones).
  std::string dependency;
  std::string comment;     // the user's comment, without the plugin's user-hold mark
  bool user_held = false;  // its owner held it (`scontrol hold`; deploy/slurm/job_submit.lua marks the comment)
  bool held() const { return reason == "JobHeldUser" || reason == "JobHeldAdmin" || reason.find("held") != std::string::npos; }
  bool finished() const;   // a terminal state
};
// What job_submit.lua appends to the comment of a job its owner holds (";rm-user-hold", or the whole comment).
extern const char* const kUserHoldMark;
// The `squeue -O` field list parse_squeue_line reads.
extern const char* const kSqueueFields;
SlurmJob parse_squeue_line(const std::string& line);

// Slurm's local time stamps ("2026-11-23T14:00:00") to epoch seconds; "Unknown", "N/A", "None" -> -1.
double parse_slurm_time(const std::string& s);


}  // namespace rm::live
