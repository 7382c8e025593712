// Offline planners for ring-all-reduce jobs under contention (Yu, Ji, Rajan, Liu, MobiHoc 2022;
// spec contention-and-sjf-bco.md Part B): SJF-BCO with its FA-FFP and LBSGF subroutines, and the
// baselines LS, FF and RAND. A planner returns a whole schedule (start slot and GPUs of every job),
// which the engine then executes under the same job-level model (exec/yu2022_model.h).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "exec/yu2022_model.h"
#include "workload/job.h"

namespace rm::plan {

struct PJob {
  int id = 0;
  int G = 1;            // GPUs (workers)
  double F = 0;         // iterations
  double tau0 = 0;      // contention-free per-iteration time (slots)
  double rho_hat = 0;   // estimated execution time F * tau0 (slots)
  double lambda = 1;    // LBSGF spread factor
};

// Per-iteration time (slots) of a running job on `servers` (its distinct servers) when split_on[s]
// split jobs use server s. Empty: the abstract law of exec/yu2022_model.h on the job's tau0.
using IterLaw = std::function<double(const PJob& j, const std::vector<int>& servers, const std::vector<int>& split_on)>;

// A job already running when an online re-plan starts: it keeps its GPUs until it finishes.
struct Running {
  int job;                // index into Instance::jobs
  std::vector<int> gpus;  // global GPU ids
  double remaining;       // iterations left
};

struct Instance {
  std::vector<int> server_gpus;  // O_s
  std::vector<PJob> jobs;        // all present at slot 0 (those in `running` are not placed again)
  IterLaw law;
  std::vector<Running> running;
};

struct PlannedJob {
  double start = -1, finish = -1;  // slots
  std::vector<int> gpus;           // global GPU ids (server-major)
};

struct Plan {
  bool ok = false;
  std::vector<PlannedJob> jobs;  // by job id
  double makespan = 0, avg_jct = 0;  // slots
  int theta = 0, kappa = 0;          // the cap and threshold of the returned schedule (0: none)
  std::int64_t passes = 0;           // list-scheduling passes evaluated
};

struct PlanOptions {
  double horizon = 1200;      // T (slots): bisection range and the makespan of a failed pass
  double u = 1;               // estimate scale: each job adds rho_hat / u to its GPUs' load
  int kappa = 0;              // 0: SJF-BCO loops kappa over 1..max G; else only this value
  bool lbsgf_global = false;  // LBSGF line 7, reading (ii): least-loaded over all candidates
  std::uint64_t seed = 1;     // RAND
};

// One strict-order list-scheduling pass over a simulated clock (spec B.9 S2): a job starts at the
// current clock if its pick finds GPUs, else the clock jumps to the next completion. Running jobs'
// rates follow the model and are recomputed at every start and finish.
class ListSim {
 public:
  ListSim(const Instance& in, const yu::ModelParams& mp);
  double clock() const { return clock_; }
  int num_gpus() const { return static_cast<int>(gpu_server_.size()); }
  int server_of(int g) const { return gpu_server_[g]; }
  const std::vector<int>& server_gpu_ids(int s) const { return server_ids_[s]; }
  int num_servers() const { return static_cast<int>(server_ids_.size()); }
  bool idle(int g) const { return holder_[g] < 0; }
  int idle_count() const { return idle_; }  // GPUs no running job holds
  bool any_running() const { return !running_.empty(); }
  std::vector<double> load;  // U[g], the planners' estimated load per GPU
  void start(const PJob& j, const std::vector<int>& gpus, double remaining = -1);  // -1: all of j.F
  void advance();      // to the next completion (requires any_running())
  void finish_all();
  const std::vector<PlannedJob>& result() const { return out_; }

 private:
  struct Run {
    int job;
    double remaining;          // iterations
    double tau;                // slots per iteration now
    std::vector<int> servers;  // distinct, in order of first appearance
    double per = 0;            // iterations per slot at tau (yu::per_slot), kept with tau
  };
  // Re-rates the running jobs with a server in `touched` (split counts changed there).
  void rerate(const std::vector<char>& touched);
  void rate(Run& r);
  const Instance& in_;
  yu::ModelParams mp_;
  std::vector<int> gpu_server_, holder_;
  std::vector<std::vector<int>> server_ids_;
  std::vector<Run> running_;
  int idle_ = 0;
  std::vector<int> split_on_;  // running split jobs per server (eq. 6)
  std::vector<char> touched_;
  std::vector<PlannedJob> out_;
  double clock_ = 0;
};

// Chooses GPUs for job j at the sim's clock under cap theta, or returns false.
using Pick = std::function<bool(const PJob& j, double theta, ListSim& sim, std::vector<int>& out)>;

// Runs one pass in SJF order (fewest GPUs, then id) with `pick_for(j)` per job; returns the plan
// (ok = false with makespan = horizon if some job can never be placed).
Plan run_pass(const Instance& in, const yu::ModelParams& mp, const PlanOptions& opt, double theta,
              const std::function<const Pick&(const PJob&)>& pick_for);

// The bisection on the cap shared by SJF-BCO, LS and FF: `best_at(theta)` is the best pass at that cap.
Plan bisect(const Instance& in, const yu::ModelParams& mp, const PlanOptions& opt,
            const std::function<Plan(double theta)>& best_at);
Plan plan_sjf_bco(const Instance& in, const yu::ModelParams& mp, const PlanOptions& opt);

// The subroutines (one file each).
bool fa_ffp(const PJob& j, double theta, ListSim& sim, std::vector<int>& out, double u);
bool lbsgf(const PJob& j, double theta, ListSim& sim, std::vector<int>& out, double u, bool global);
bool first_fit_capped(const PJob& j, double theta, ListSim& sim, std::vector<int>& out, double u);

// The physical law (spec B.9 S3(a)): the rate model's compute + ring all-reduce with each NIC shared by
// the split jobs on it, in slots of slot_s seconds; specs[i] is the JobSpec of Instance job i.
IterLaw physical_law(std::vector<const JobSpec*> specs, const ClusterSpec& cluster, double slot_s);

// Planners by name: sjf-bco, ls, ff, rand. Throws InputError for an unknown name.
Plan make_plan(const std::string& name, const Instance& in, const yu::ModelParams& mp, const PlanOptions& opt);

}  // namespace rm::plan
