// What every backend keeps, whatever its cluster manager (live/backend.h): the adopted jobs (spec, view and
// LiveJob, id = index), time 0, the series and decision latencies, the state file (atomic JSON, rewritten after
// every step, recovered at connect) and the outputs. A backend derives from it and adds only how it observes
// its cluster and applies decisions (slurm_backend.cpp, fake/fake_backend.cpp).
#pragma once
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "live/backend.h"
#include "live/hints.h"
#include "sched/run_record.h"

namespace rm::live {

// "up", "down" or "drain" for a node state as Slurm prints it (IDLE, MIXED+DRAIN, DOWN+NOT_RESPONDING, ...).
std::string node_class(const std::string& state);

class TableBackend : public Backend {
 public:
  explicit TableBackend(ServeOptions opt) : opt_(std::move(opt)) {}
  const ClusterSpec& cluster() const override { return spec_; }
  const std::deque<LiveJob>& jobs() const override { return live_; }
  const std::deque<JobState>& views() const override { return states_; }
  std::string state_dir() const override { return opt_.state_dir; }
  const std::vector<float>& decision_us() const override { return decision_us_; }
  void write_outputs(const std::string& dir, const std::string& scheduler_name,
                     const OutputScope* scope = nullptr) const override;
  const std::vector<std::string>& node_names() const { return node_names_; }
  std::string metrics_text(bool manager_up) const override;

 protected:
  void log(const std::string& s) const;
  void warn(const std::string& s) const;
  Time at(double epoch_s) const;
  // The catalogue's figures and the iterations of a duration, as for a trace's job (workload/trace.h).
  JobSpec resolve_spec(const JobSpec& s) const;
  // A manager's job as a resolved spec: its hints (the rm: comment: name, model, user and recurrence key, tp/pp,
  // iterations or duration, default --default-duration) over what the manager says (`user`, `job_name`).
  // A model/tp/pp hint that does not resolve falls back to resnet50 on one stage, its error kept in h.errors
  // and logged; a job with nothing of the user's to drop that still does not resolve throws InputError.
  JobSpec spec_from_hints(JobHints& h, std::int64_t id, const std::string& origin, double submit_s, int gpus,
                          const std::string& user, const std::string& job_name) const;
  // The same spec before the catalogue resolves it (a refused job's: it would not resolve).
  JobSpec hinted_spec(const JobHints& h, std::int64_t id, const std::string& origin, double submit_s, int gpus,
                      const std::string& user, const std::string& job_name) const;
  // Job i stops holding its GPUs at end_s (finished, preempted, requeued or held by the manager): a running
  // job's stretch is recorded (ending for `reason`, LiveRun::end_reason) and its service counted; `next` is
  // "queued" or "finished".
  void stop(std::size_t i, double end_s, const char* next, const std::string& reason);
  void record_run(std::size_t i, double end_s, const std::string& reason);  // runs.csv: GPUs per node
  // Job i's current stretch, ended at end_s, appended to `out` (record_run's, and a running job's row at exit).
  void run_so_far(std::size_t i, double end_s, double noticed_s, const std::string& reason,
                  std::vector<LiveRun>& out) const;
  // A job joins the table: its resolved spec (its id set here), its view (queued, its ideal iteration time),
  // what the backend knows of it, and its manager id. Returns the view.
  JobState& add_job(JobSpec r, LiveJob l);
  // The views: what the simulator's engine would show the policy at this instant. Returns the unfinished jobs in
  // submit order; counts the queued and running ones.
  std::vector<JobId> refresh_views(double now_s, int& queued, int& running);
  // The step's Observation over `book` (the backend's GPUs as it books them): views refreshed, counts kept.
  Observation observation(double now_s, const Cluster& book);
  std::vector<int> split_counts() const;  // split jobs running or starting, per server
  // The rate model's iteration time of job id on gpus, with split_on split jobs per server, over the ideal one.
  double slowdown_of(JobId id, const std::vector<GpuRef>& gpus, const std::vector<int>& split_on) const;
  // <state>/state.json, written atomically, the one it replaces kept as state.prev.json (the last good copy);
  // load() reads it back, or the last good copy when state.json is missing or unreadable (said in the log).
  // Returns false when neither exists; InputError if unreadable or another partition's. A backend adds its own
  // keys through save_extra / load_extra. `status` (the step's figures for `ringmaster status`) goes with it.
  void save() const;
  bool load();
  nlohmann::json job_json(std::size_t i) const;  // job i as state.json and the journal keep it
  void load_job(const nlohmann::json& jj);       // the inverse: job jj joins the table (its id the next index)
  void journal_ended() const;                    // ended jobs not yet in <state>/ended.jsonl appended there
  // The step's timing, kept for `ringmaster status`, the metrics and summary.json: the step began (steady clock)
  void step_began();
  void step_ended();
  void record_decision(float us);  // the policy's decision time (kept for the outputs, summed for the metrics)
  virtual void save_extra(nlohmann::json& /*js*/) const {}
  virtual void load_extra(const nlohmann::json& /*js*/) {}

  ServeOptions opt_;
  ClusterSpec spec_;
  std::vector<std::string> node_names_;
  std::map<std::string, int> node_index_;
  int queued_ = 0, running_ = 0;    // the current step's views
  double origin_s_ = -1;            // epoch seconds of time 0 (the first connect; kept across restarts)
  std::deque<JobSpec> specs_;       // id = index
  std::deque<JobState> states_;
  std::deque<LiveJob> live_;
  std::map<std::int64_t, JobId> by_manager_id_;  // the manager's job id -> ours
  std::vector<float> decision_us_;
  std::vector<SeriesRow> series_;
  std::int64_t steps_ = 0, preemptions_ = 0;
  std::vector<float> step_ms_;      // observe -> decide -> apply -> persist, per step (the latest 20,000)
  double step_t0_ = 0;              // steady-clock seconds at the current step's start
  std::string paused_;              // why nothing is released now (its partition gone or changed); "" = running
  // The daemon's counters since it started (Prometheus: cumulative; a restart resets them, which rate() handles).
  double step_s_sum_ = 0, decision_s_sum_ = 0;
  std::int64_t step_n_ = 0, decision_n_ = 0, refusals_ = 0, start_timeouts_ = 0, preempt_failures_ = 0, hint_overruns_ = 0;
  mutable bool state_failing_ = false;  // the last save failed
  mutable std::set<std::size_t> journaled_;  // ended jobs already in <state>/ended.jsonl
  std::map<std::string, std::string> node_states_;  // the partition's nodes as the manager last said (metrics, status)
  double now_s_ = 0;                // the current step's wall time
};

}  // namespace rm::live
