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

#include "live/slurm_ctl.h"
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
  // Checks that slurmctld answers and the partition exists (SlurmError / InputError otherwise), reads the
  // partition's nodes into the cluster, and loads <state>/state.json if there is one.
  void connect(double now_s) override;
  std::string describe() const override;
  // squeue and scontrol: adopt new held jobs, notice ends and requeues, book the GPUs Slurm holds.
  Observation observe(double now_s) override;
  // Starts pin a held job to the chosen nodes and release it; preemptions requeue it held.
  void apply(const Decisions& d, double now_s, float decision_us) override;
  void persist(double now_s) override;
  std::int64_t submit(const Submission& s) override;  // sbatch -H: held, for ringmaster

 private:
  void adopt(const SlurmJob& j);
  void observe(const std::vector<SlurmJob>& jobs, double now_s);
  void read_allocation(std::size_t i);  // the GPUs Slurm gave job i once it runs (it spreads --gpus=N itself)
  static int cpus_per_node(int cpus, std::size_t nodes);  // Slurm: at least one on each node
  bool rebook_on_nodes(Cluster& c, std::size_t i);  // a released job's GPUs anywhere free on its nodes
  // One step, in parts (slurm_backend.cpp): book what Slurm holds, refresh the views, apply the decisions.
  struct StepBook;
  void claim(StepBook& b, const LiveJob& l) const;  // a released job's CPUs and memory on its nodes
  void book_nodes(StepBook& b, const std::vector<SlurmNode>& nodes);
  void book_jobs(StepBook& b, const std::vector<SlurmJob>& jobs, double now_s);
  void book_holding(StepBook& b, std::size_t i, double now_s);
  void apply_preempt(StepBook& b, JobId id, double now_s);
  bool start_fits(StepBook& b, const StartDecision& sd, const std::vector<std::string>& names,
                  const std::vector<int>& count, int& per_node);
  void apply_start(StepBook& b, const StartDecision& sd, double now_s);
  void update_rates();
  void save_extra(nlohmann::json& js) const override;
  void load_extra(const nlohmann::json& js) override;

  std::unique_ptr<SlurmCtl> owned_ctl_;  // the registry's: run_command
  SlurmCtl& ctl_;
  std::unique_ptr<StepBook> book_;   // the current step's, from observe to apply
  std::set<std::int64_t> ignored_;  // held jobs it will not schedule (no GPUs, never fits), logged once
};

}  // namespace rm::live
