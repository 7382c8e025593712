// models/rate/pollux_job_model.h: Pollux's jobs under the engine's clock.
#include "models/rate/pollux_job_model.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <memory>
#include <vector>

#include "core/error.h"
#include "exec/completion_heap.h"
#include "models/rate/trainer_jobs.h"
#include "exec/job_model_view.h"
#include "exec/pollux_trainer.h"

namespace rm {
namespace {

class PolluxJobModel final : public RateModel, public JobModelView {
 public:
  explicit PolluxJobModel(PolluxJobModelOptions o) : o_(std::move(o)), tune_(from_seconds(o_.tune_s)) {
    if (!(tune_ > 0)) throw InputError("--job-model", 0, "tune", "the batch re-tuning interval must be > 0 seconds");
  }
  std::string name() const override { return o_.adaptive ? "rate+pollux-jobs" : "rate+pollux-tuned-jobs"; }
  // Tuned jobs keep no profile: a goodput-aware policy weighs them by the performance model instead.
  const JobModelView* job_view() const override { return o_.adaptive ? this : nullptr; }

  void start(JobState& j, Time now) override {
    Job& s = state(j);
    s.placement = trainer_placement(j);
    s.e.prog_time = now;
    j.progress_time = now;
    s.t.update_local_bsz(s.placement);  // Job.reallocate: the batch for the new GPUs
    rerate(j, s, now);
  }

  void stop(JobState& j, Time now) override {
    Job& s = state(j);
    s.e.bring_up_to_date(j, *s.t.app, !s.placement.empty(), now);
    s.placement.clear();
    ++j.epoch;
    log(j, s, now);
  }

  Time next_completion() override { return heap_.next(); }

  void complete_at(Time t, std::vector<JobState*>& completed) override {
    due_.clear();
    heap_.pop_at(t, due_);
    for (JobState* j : due_) {
      Job& s = state(*j);
      s.e.bring_up_to_date(*j, *s.t.app, !s.placement.empty(), t);
      if (s.e.end_epoch_if_due(*j, *s.t.app, t, epochs_)) {
        completed.push_back(j);
        continue;
      }
      s.t.update_local_bsz(s.placement);  // Job.step's end: the batch for what it has observed
      rerate(*j, s, t);
    }
  }

  std::optional<pollux::SpeedupFunction> speedup(const JobState& j) const override {
    const Job* s = find(j);
    return s ? s->t.speedup() : std::nullopt;
  }
  int max_gpus(const JobState& j) const override {
    const Job* s = find(j);
    return std::min(j.spec->max_gpus(), s ? s->t.max_replicas() : 1);
  }

  void report(std::vector<std::pair<std::string, double>>& extra) const override {
    long fits = 0, changes = 0;
    for (const auto& s : jobs_)
      if (s) fits += static_cast<long>(s->t.profile.size()), changes += s->batch_changes;
    extra.emplace_back("pollux_job_epochs", static_cast<double>(epochs_));
    extra.emplace_back("pollux_job_fits", static_cast<double>(fits));
    extra.emplace_back("pollux_batch_changes", static_cast<double>(changes));
  }
  void files(std::vector<std::pair<std::string, std::string>>& out) const override {
    out.emplace_back("pollux_jobs.csv", log_);
  }

 private:
  struct Job {
    pollux::Trainer t;
    std::vector<int> placement;  // GPUs per server, in the order the job's GPUs name them
    EpochProgress e;
    int last_gpus = -1, last_batch = -1, last_accum = -1, last_epoch = -1;
    long batch_changes = 0;
  };

  const Job* find(const JobState& j) const {
    const auto k = static_cast<std::size_t>(j.id());
    return k < jobs_.size() ? jobs_[k].get() : nullptr;
  }

  Job& state(const JobState& j) {
    const auto k = static_cast<std::size_t>(j.id());
    if (k >= jobs_.size()) jobs_.resize(k + 1);
    if (!jobs_[k]) {
      auto s = std::make_unique<Job>();
      const JobSpec& spec = *j.spec;
      const std::string app = trainer_app(spec);
      s->t.app = &pollux_app(o_.traces_dir, app);  // InputError for a model that is not one of Pollux's applications
      if (o_.adaptive) {
        s->t.make_pollux_job();
      } else {
        s->t.target_batch = spec.global_batch;
        // its batch stays and it keeps no profile (as the simulator's baselines: their decisions never read one)
      }
      if (!o_.adaptive && (spec.global_batch < s->t.app->init_batch_size() || spec.global_batch > s->t.app->max_batch_size()))
        throw InputError(spec.file, spec.line, "batch_size",
                         fmt::format("job {}: batch {} is outside {}'s measured batch sizes ({}..{})", spec.name,
                                     spec.global_batch, app, s->t.app->init_batch_size(), s->t.app->max_batch_size()));
      s->e.target = s->t.app->progress(s->t.app->max_epochs());
      if (!(spec.iterations > 0) || !(s->e.target > 0))
        throw InputError(spec.file, spec.line, "iterations", "job " + spec.name + " has no work to do");
      s->e.per_iteration = s->e.target / spec.iterations;
      jobs_[k] = std::move(s);
    }
    return *jobs_[k];
  }

  // The step it runs now (observed: it joins the profile and the fit), its goodput, and its next instant: the
  // epoch's end or the next re-tuning, whichever comes first.
  void rerate(JobState& j, Job& s, Time now) {
    const pollux::Trainer::Step step = s.t.step_at(s.placement, s.e.epoch, true);
    if (!(step.goodput > 0)) throw InvariantError("pollux job model: job " + j.spec->name + " has no goodput");
    s.e.rerate(j, *s.t.app, step.goodput, now, tune_, heap_);
    log(j, s, now);
  }

  // pollux_jobs.csv: a row whenever a job's GPUs, batch, accumulation steps or epoch change.
  void log(const JobState& j, Job& s, Time now) {
    const int gpus = pollux::Trainer::gpus_of(s.placement);
    const int batch = gpus > 0 ? s.t.batch(gpus) : 0;
    if (gpus == s.last_gpus && batch == s.last_batch && s.t.accum == s.last_accum && s.e.epoch == s.last_epoch) return;
    if (gpus > 0 && s.last_gpus > 0 && (batch != s.last_batch || s.t.accum != s.last_accum)) ++s.batch_changes;
    if (log_.empty()) log_ = "time_s,job_id,gpus,servers,batch_size,accum_steps,epoch,progress\n";
    log_ += fmt::format("{:.6f},{},{},{},{},{},{},{:.9g}\n", to_seconds(now), j.spec->name, gpus, s.placement.size(),
                        batch, gpus > 0 ? s.t.accum : 0, s.e.epoch, s.e.progress);
    s.last_gpus = gpus, s.last_batch = batch, s.last_accum = s.t.accum, s.last_epoch = s.e.epoch;
  }

  PolluxJobModelOptions o_;
  Time tune_;
  std::vector<std::unique_ptr<Job>> jobs_;
  CompletionHeap heap_;
  std::vector<JobState*> due_;
  long epochs_ = 0;
  std::string log_;
};

}  // namespace

void widen_for_pollux_jobs(std::vector<JobSpec>& jobs, const std::string& traces_dir) {
  for (JobSpec& j : jobs) {
    if (!j.elastic()) continue;
    j.gpus_max = std::max(j.gpus_max, pollux::replica_cap(pollux_app(traces_dir, trainer_app(j))));
  }
}

std::unique_ptr<RateModel> make_pollux_job_model(const PolluxJobModelOptions& o) {
  return std::make_unique<PolluxJobModel>(o);
}

}  // namespace rm
