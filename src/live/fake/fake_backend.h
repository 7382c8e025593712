// An in-process cluster that tests (and `serve --backend fake`, `replay --backend fake`) can script, as
// LevelDB's Env lets tests replace the world: the servers of a ringmaster cluster (--cluster, default tiny),
// jobs that arrive when the script says, starts and preemptions that take effect at once, and a job that ends
// when it has held its GPUs for its ideal duration (its hints' duration or iterations x the ideal iteration
// time, as the views count progress), ending at that exact instant. It keeps the same table, state file and
// outputs as every backend (live/table_backend.h), so a restart recovers its jobs; it can be told to be
// unreachable for a few observations, to exercise the loop's retries.
// With the rate law (`--backend sim`) a running job progresses at its ideal speed over the rate model's slowdown
// on its placement (split jobs sharing a server slow each other, exec/comm_model.h: the law the simulator's rate
// model and `replay`'s payloads follow), integrated exactly between observations: the simulated cluster.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "live/table_backend.h"

namespace rm::live {

class FakeBackend final : public TableBackend {
 public:
  // `clock` stamps submissions (what `replay` submits); tests pass a scripted one.
  explicit FakeBackend(ServeOptions opt, Clock clock = wall_now, bool rate_law = false);
  std::string name() const override { return rate_law_ ? "sim" : "fake"; }
  std::string manager() const override { return rate_law_ ? "the simulated cluster" : "the fake cluster"; }
  bool completed_state(const std::string& state) const override;
  void connect(double now_s) override;
  std::string describe() const override;
  Observation observe(double now_s) override;
  void apply(const Decisions& d, double now_s, float decision_us) override;
  void persist(double now_s) override;
  // Held until the next observation, as a Slurm job submitted -H: the hints ("rm:model=...;duration=...") are
  // read as the Slurm backend reads a job's comment.
  std::int64_t submit(const Submission& s) override;

  // The script: a job of `gpus` GPUs arriving at submit_s (epoch seconds), described by its hints.
  // actual_s > 0: the job really runs that long, whatever its hints say (a false hint).
  std::int64_t add(const std::string& hints, int gpus, double submit_s, double actual_s = -1);
  // The next n observations throw BackendError (the manager does not answer).
  void fail_next(int n) { fail_ = n; }

 private:
  struct Pending {
    std::int64_t id;
    std::string hints;
    int gpus;
    double submit_s;
    double actual_s = -1;
  };
  void adopt(const Pending& p);
  void finish_done(double now_s);  // jobs whose work is done by now_s end when it was done
  void advance(double now_s);      // the rate law: progress at each job's slowdown, ends in time order
  void end_job(std::size_t i, double end_s);
  void save_extra(nlohmann::json& js) const override;
  void load_extra(const nlohmann::json& js) override;

  Clock clock_;
  bool rate_law_;
  std::vector<double> done_;        // rate law: ideal seconds of work done, per job
  std::vector<double> actual_s_;    // per job: its true length where the script gave one (else -1: its hints')
  double advanced_s_ = -1;          // rate law: the time progress is integrated to
  std::vector<Pending> pending_;
  std::int64_t next_id_ = 1;
  int fail_ = 0;
  std::unique_ptr<Cluster> book_;   // the current observation's GPUs
};

}  // namespace rm::live
