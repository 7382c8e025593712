// How running jobs turn time into progress: the seam between the one engine loop (engine/engine.h) and the
// execution models (src/models/, the reproduced simulators of src/peers/). Two interfaces, for two kinds of model
// (docs/design.md "The seam"); the engine owns the clock, the arrivals and the cluster book in both.
//
// - A RateModel is told when jobs start and stop (the engine's scheduler places them) and sets how fast each
//   runs; the engine asks it for the next completion and integrates progress up to it (rate, graph).
// - A SteppingModel decides and advances by itself (round, task, every --compat peer): the engine hands it the
//   jobs as they arrive, asks for the time of its next event and tells it to advance to that time, one instant at
//   a time, as SimGrid drives its models. The engine runs no scheduling pass of its own for it.
//
// Time at the seam is the engine's (rm::Time, integer microseconds). A model that counts time otherwise
// converts inside itself, and nowhere else: the task model in whole nanoseconds, the round model and the
// Gavel peer in double seconds, the Tiresias peer in whole seconds. A model instant maps to the microsecond it
// falls in (nanoseconds: floor; seconds: rounded by from_seconds), so several model instants may share one
// engine instant: advance_to(t) runs every one of them.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cluster.h"
#include "sched/job_state.h"

namespace rm {

class JobModelView;  // exec/job_model_view.h

class ExecutionModel {
 public:
  virtual ~ExecutionModel() = default;
  virtual std::string name() const = 0;
  // Model-specific summary figures (e.g. inter-server bytes), appended to summary.json.
  virtual void report(std::vector<std::pair<std::string, double>>& /*extra*/) const {}
  // Whether the engine's book keeps its servers-by-free-GPUs index (what job-level placements search).
  virtual bool searches_book() const { return true; }
  // The model's own per-run files, written beside jobs.csv (name, CSV text).
  virtual void files(std::vector<std::pair<std::string, std::string>>& /*out*/) const {}
};

// The rate interface: the engine integrates progress at the rates the model sets.
class RateModel : public ExecutionModel {
 public:
  // `job` has just been given job.gpus at `now`; job.stall_until is already set.
  virtual void start(JobState& job, Time now) = 0;
  // `job` stops holding its GPUs at `now` (preempted or finished); bring its progress up to now.
  virtual void stop(JobState& job, Time now) = 0;
  // `job`'s speed factor (alloc_speed) changed at `now` while it runs: bring progress up to now, re-rate.
  virtual void respeed(JobState& job, Time now) {
    stop(job, now);
    start(job, now);
  }
  // The time of the next completion, kNever if none.
  virtual Time next_completion() = 0;
  // The jobs that complete at `t` (== next_completion()), appended to `completed`. A model whose jobs change speed
  // on their own (Pollux's jobs at an epoch's end) may also schedule such instants here and complete none there.
  virtual void complete_at(Time t, std::vector<JobState*>& completed) = 0;
  // What a policy may read of the jobs' own models (Pollux's fitted throughput), or null.
  virtual const JobModelView* job_view() const { return nullptr; }
};

// The engine's job views as a stepping model gives them back: let_go(view) says that the model, and all it lets read
// views (its queue order), will never read that view again (a finished job's, whose figures the model keeps itself).
// The engine gives the view's place, and the feed the spec under it, to a job taken later, so that only the jobs
// not yet finished hold views (a million jobs' views held to the end were 680 MB); its jobs() is then refused.
class JobViews {
 public:
  virtual void let_go(JobState& view) = 0;

 protected:
  ~JobViews() = default;
};

// The stepping interface: the model decides, places and finishes its jobs itself, at its own instants.
class SteppingModel : public ExecutionModel {
 public:
  // The engine's cluster book, once, before any job.
  virtual void bind(Cluster& /*book*/) {}
  // Where it may give views back, once, before any job; a model that never does ignores it.
  virtual void bind_views(JobViews& /*views*/) {}
  // The engine has taken `job` from its feed (before it arrives; every job of a trace before the first instant).
  virtual void admit(JobState& /*job*/) {}
  // Every job of a known feed has been admitted; the first instant comes next.
  virtual void begin() {}
  // `job` arrives at `now` (its submit time), before the model's own events of that instant.
  virtual void arrive(JobState& /*job*/, Time /*now*/) {}
  // The engine instant of the model's next event, kNever if none (the engine may stop there: nothing then).
  virtual Time next_event_time() = 0;
  // Runs every event of the model at engine time <= t (t == next_event_time(), or an arrival's instant):
  // afterwards next_event_time() > t. Never past t: the engine alone moves time on.
  virtual void advance_to(Time t) = 0;
  // The model has ended the run (e.g. the round model's measured window is complete): the engine stops.
  virtual bool ended() const { return false; }
  // The engine's loop is over (nothing left to happen, or ended()): the model's checks at the end.
  virtual void end() {}
};

}  // namespace rm
