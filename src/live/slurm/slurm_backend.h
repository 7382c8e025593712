// The Slurm backend of the policy seam (docs/slurm.md; the Backend interface: live/backend.h): the second
// producer of the job views a policy sees, after the simulator. Every step it observes the partition's nodes
// and jobs, adopts the held jobs users submitted for ringmaster, builds a Cluster (GPUs of jobs it does not own
// and of unusable nodes count as busy) and the JobStates of its jobs; the generic side asks the policy; it
// applies the decisions: a start pins the held job to the chosen nodes and releases it; a preemption requeues
// it held. Its own table (adopted jobs, their
// attained service, what is in flight) is written atomically to <state>/state.json after every change, so
// the daemon can be killed at any moment and restarted.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "live/slurm/slurm_ctl.h"
#include "live/table_backend.h"
#include "policy/plugin.h"
#include "sched/run_record.h"

namespace rm::live {


class SlurmBackend final : public TableBackend {
 public:
  SlurmBackend(SlurmCtl& ctl, ServeOptions opt);
  // The real Slurm through its command-line tools (the backend registry's "slurm").
  explicit SlurmBackend(ServeOptions opt);
  ~SlurmBackend() override;
  std::string name() const override { return "slurm"; }
  std::string manager() const override { return "Slurm"; }
  bool completed_state(const std::string& state) const override { return state == "COMPLETED"; }
  // Checks that slurmctld answers and the partition exists (SlurmError / InputError otherwise), reads the
  // partition's nodes into the cluster, and loads <state>/state.json if there is one.
  void connect(double now_s) override;
  std::string describe() const override;
  // squeue and scontrol: adopt new held jobs, notice ends and requeues, book the GPUs Slurm holds.
  Observation observe(double now_s) override;
  // Starts pin a held job to the chosen nodes and release it; preemptions requeue it held.
  void apply(const Decisions& d, double now_s, float decision_us) override;
  void persist(double now_s) override;
  // Cancels the lease (a clean stop); a killed daemon's lease goes stale instead.
  void release_lease();
  // Uninstall (`serve --release-all`): every unfinished job of the partition, and every job the state knows that
  // is elsewhere now, loses ringmaster's marks: its node pin (ReqNodeList) and a ringmaster AdminComment are
  // cleared and, if pending and held, it is released to Slurm; leases are cancelled. Returns the jobs released.
  int release_all() override;
  std::int64_t submit(const Submission& s) override;  // sbatch -H: held, for ringmaster

 private:
  void adopt(const SlurmJob& j);
  LiveJob live_job_of(const SlurmJob& j) const;  // what Slurm says of a job it adopts or refuses
  void observe(const std::vector<SlurmJob>& jobs, double now_s);
  void read_allocation(std::size_t i);  // the GPUs Slurm gave job i once it runs (it spreads --gpus=N itself)
  void read_allocations(const std::vector<std::size_t>& jobs);  // the same for many, read in parallel
  void take_allocation(std::size_t i, const std::vector<std::pair<std::string, std::vector<int>>>& got,
                       const std::string& error);
  static int cpus_per_node(int cpus, std::size_t nodes);  // Slurm: at least one on each node
  bool rebook_on_nodes(Cluster& c, std::size_t i);  // a released job's GPUs anywhere free on its nodes
  // One step, in parts (slurm_backend.cpp): book what Slurm holds, refresh the views, apply the decisions.
  struct StepBook;
  // A released job's CPUs and memory on its nodes (sign -1: given back, its release failed).
  void claim(StepBook& b, const LiveJob& l, int sign = 1) const;
  void book_nodes(StepBook& b, const std::vector<SlurmNode>& nodes);
  void book_full_nodes(StepBook& b);
  void book_jobs(StepBook& b, const std::vector<SlurmJob>& jobs, double now_s);
  void book_holding(StepBook& b, std::size_t i, double now_s);
  void apply_preempt(StepBook& b, JobId id, double now_s);
  void explain_waiting();  // each queued job's `why` after a step's starts
  bool start_fits(StepBook& b, const StartDecision& sd, const std::vector<std::string>& names,
                  const std::vector<int>& count, int& per_node);
  // A start: booked, checked and marked starting (nothing asked of Slurm yet: the step's starts go together);
  // false if refused. finish_start: Slurm's answer for it (error "" = released), undone if it failed.
  bool prepare_start(StepBook& b, const StartDecision& sd, double now_s, SlurmCtl::Release& r);
  void finish_start(StepBook& b, JobId job, const std::string& error);
  void update_rates();
  void save_extra(nlohmann::json& js) const override;
  void load_extra(const nlohmann::json& js) override;

  // Start-up: another partition on our nodes that can preempt our jobs (a higher PriorityTier with preemption
  // on) or lets ordinary users run there beside the queue is a warning naming it and the slurm.conf fix.
  void check_overlaps(const std::vector<SlurmNode>& nodes);
  // Start-up: memory a job asks by default (Slurm would give a job without --mem a whole node's memory).
  void check_memory_defaults();
  // Whether job j can never run on the partition ("" if it can): more GPUs, memory or CPUs than it has.
  std::string never_fits(const SlurmJob& j) const;
  // Refuse job j visibly: in the books as unschedulable, its AdminComment saying why, a warning in the log.
  void refuse(const SlurmJob& j, const std::string& why);
  // No usable state (`serve --recover`): the partition's running jobs adopted on the GPUs Slurm gave them, its
  // released-but-not-started ones held again; held ones are adopted by the next observe as new.
  void recover(double now_s);
  // The partition gone, down or with other nodes than at start: why ("" if as at start), logged when it changes.
  void check_partition(const std::vector<SlurmNode>& nodes);
  // Memory job i needs on a node where it has `gpus` GPUs (its --mem, else the partition's DefMemPerGPU).
  double mem_on_node(const LiveJob& l, int gpus) const;
  // GPUs a job ringmaster does not schedule holds on the partition's nodes (any partition): the indices Slurm
  // gave it, read once per start; where unreadable, all of its nodes' GPUs (never a guessed split).
  void book_foreign(StepBook& b, const SlurmJob& j);

  std::unique_ptr<SlurmCtl> owned_ctl_;  // the registry's: run_command
  double def_mem_per_gpu_ = 0;            // the partition's JobDefaults=DefMemPerGPU (or the cluster's), MB
  std::map<std::int64_t, std::pair<double, std::vector<GpuRef>>> foreign_;  // job -> (its start, its GPUs)
  SlurmCtl& ctl_;
  std::unique_ptr<StepBook> book_;   // the current step's, from observe to apply
  std::set<std::int64_t> ignored_;  // held jobs it will not schedule (no GPUs, never fits), logged once
  std::set<std::string> node_usable_;
  std::set<std::int64_t> unfinished_;  // the step's jobs Slurm lists as pending or running (dependencies)  // nodes usable at the last step (a change is logged)
  // A queued job's reason not to be offered to the policy now (LiveJob::blocked): a dependency Slurm has not
  // seen satisfied (one that never can be is a warning, once), or the back-off after a start timeout.
  void block_if_waiting(LiveJob& l, const SlurmJob& j, double now_s);

  // The lease (serve only, ServeOptions::lease): a held, never-released job named ringmaster-lease in the
  // partition, owned by root, whose comment names this daemon (host, pid, state folder) and its last renewal.
  // A second daemon for the partition sees a fresh lease and refuses to start (exit 2, naming it); a lease not
  // renewed for kLeaseTtl seconds, or left by this state folder's previous (dead) daemon, is taken over.
  bool is_lease(const SlurmJob& j) const;
  void take_lease(double now_s);
  void renew_lease(double now_s);
  std::string lease_text(double now_s) const;
  std::int64_t lease_id_ = 0;
  double lease_renewed_s_ = 0;
};

}  // namespace rm::live
