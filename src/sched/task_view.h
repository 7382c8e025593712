// What the task model's plugins see (Wang et al. 2020, spec contention-and-sjf-bco.md Part A): jobs as DAGs
// of forward/backward tasks with one all-reduce flow per iteration, GPUs shared by memory, the flows on each
// NIC. The task engine produces these views; the plugins (src/policy/task) read them and return choices.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace rm::task {

// Priority keys of spec A.6.1 (smaller first).
enum class Key {
  SSF,   // total service n * I * (fw + bw)
  SRSF,  // remaining service (decremented at every finished forward/backward task)
  SRTF,  // remaining time (I - completed iterations) * (fw + bw)
  STF,   // total time I * (fw + bw)
  SF,    // fewest GPUs
};

// A job as the plugins see it (engine-owned; read-only for plugins).
struct TJob {
  int id = 0;            // dense, in arrival order
  double arrival = 0;    // ms
  int n = 0;             // workers
  std::int64_t iters = 0;
  double fw = 0, bw = 0; // ms per task
  double size = 0;       // MB per all-reduce
  double mem = 0;        // MB per worker
  // Dynamic state.
  double rem_service = 0, rem_time = 0;
  std::vector<int> gpus;     // worker i on gpus[i] (global GPU ids)
  std::vector<int> servers;  // distinct servers, in order of first appearance in gpus
  double key(Key k) const {
    switch (k) {
      case Key::SSF: return static_cast<double>(n) * static_cast<double>(iters) * (fw + bw);
      case Key::SRSF: return rem_service;
      case Key::SRTF: return rem_time;
      case Key::STF: return static_cast<double>(iters) * (fw + bw);
      case Key::SF: return n;
    }
    return 0;
  }
};

struct TGpu {
  int server = 0;
  int slot = 0;          // index inside the server
  double mem_total = 0;  // MB (what is free is the cluster book's: TaskView::free_mem)
  double workload = 0;   // LWF bookkeeping (spec A.6.2)
};

// A running all-reduce (one per communicating job), progressing at `speed` MB/ms since last_ns. It ends
// at end_ns; compat mode ends it at the first whole-ms step at or after `end` (ms).
struct TFlow {
  int job = -1;
  double size = 0, transferred = 0, speed = 0, end = 0;
  std::int64_t last_ns = 0, end_ns = 0;
};

class TaskView {
 public:
  virtual ~TaskView() = default;
  virtual const std::vector<TGpu>& gpus() const = 0;
  // GPU memory MB free per GPU, indexed as gpus() (the cluster book's, cluster/cluster.h).
  virtual const std::vector<double>& free_mem() const = 0;
  virtual int num_servers() const = 0;
  virtual const std::vector<int>& server_gpus(int s) const = 0;   // global ids, slot order
  virtual const std::vector<int>& server_flows(int s) const = 0;  // communicating job ids, start order
  virtual const TFlow& flow_of(int job) const = 0;
  virtual const TJob& job(int id) const = 0;
  // Placed jobs spanning several servers that use server s (its NIC's potential flows).
  virtual int server_split_jobs(int s) const = 0;
  // How many GPUs have at least `mem` MB free (cached per memory state).
  virtual int eligible_count(double mem) const = 0;
  // A counter that changes whenever any GPU workload changes.
  virtual std::uint64_t workload_version() const = 0;
  virtual double beta() const = 0;  // ms per MB alone on a NIC
  virtual double eta() const = 0;   // extra ms per MB per competing flow
  virtual bool compat() const = 0;  // --compat wang2020
  // Remaining MB of job's running flow at time t (the current instant). In compat mode with the authors' probe it also
  // credits the interval since the flow's last re-rate again (spec A.9 Q1, A.11 item 18).
  virtual double probe_rest(int job, double t, bool mutating) = 0;
};

}  // namespace rm::task
