// models/rate/sia_job_model.h: Sia's jobs under the engine's clock (the shape of models/rate/pollux_job_model.cpp,
// with a job's type taken from its servers).
#include "models/rate/sia_job_model.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <memory>
#include <vector>

#include "core/error.h"
#include "exec/completion_heap.h"
#include "models/rate/trainer_jobs.h"
#include "exec/job_model_view.h"
#include "exec/pollux_app.h"
#include "exec/sia_trainer.h"

namespace rm {
namespace {

class SiaJobModel final : public RateModel, public JobModelView {
 public:
  explicit SiaJobModel(SiaJobModelOptions o) : o_(std::move(o)), tune_(from_seconds(o_.tune_s)) {
    if (!(tune_ > 0)) throw InputError("--job-model", 0, "tune", "the batch re-tuning interval must be > 0 seconds");
  }
  std::string name() const override { return "rate+sia-jobs"; }
  const JobModelView* job_view() const override { return this; }

  void start(JobState& j, Time now) override {
    Job& s = state(j);
    s.t.placement = trainer_placement(j);
    const int type = o_.type_of_server.at(static_cast<std::size_t>(j.gpus.front().server));
    for (const GpuRef& g : j.gpus)
      if (o_.type_of_server.at(static_cast<std::size_t>(g.server)) != type)
        throw InvariantError("sia job model: job " + j.spec->name + " was given GPUs of two types");
    s.t.cluster = type;
    s.e.prog_time = now;
    j.progress_time = now;
    s.t.update_local_bsz();  // Job.reallocate / Job.migrate: the batch for the new GPUs
    rerate(j, s, now);
  }

  void stop(JobState& j, Time now) override {
    Job& s = state(j);
    s.e.bring_up_to_date(j, curves(s), !s.t.placement.empty(), now);
    s.t.placement.clear();
    ++j.epoch;
    log(j, s, now);
  }

  Time next_completion() override { return heap_.next(); }

  void complete_at(Time t, std::vector<JobState*>& completed) override {
    due_.clear();
    heap_.pop_at(t, due_);
    for (JobState* j : due_) {
      Job& s = state(*j);
      s.e.bring_up_to_date(*j, curves(s), !s.t.placement.empty(), t);
      if (s.e.end_epoch_if_due(*j, curves(s), t, epochs_)) {
        completed.push_back(j);
        continue;
      }
      s.t.update_local_bsz();  // Job.step's end: the batch for what it has observed
      rerate(*j, s, t);
    }
  }

  std::optional<pollux::SpeedupFunction> speedup(const JobState&) const override { return std::nullopt; }
  int max_gpus(const JobState& j) const override { return j.spec->max_gpus(); }
  const sia::SiaTrainer* sia_trainer(const JobState& j) const override {
    const Job* s = find(j);
    return s ? &s->t : nullptr;
  }

  void report(std::vector<std::pair<std::string, double>>& extra) const override {
    long fits = 0, changes = 0, types = 0;
    for (const auto& s : jobs_) {
      if (!s) continue;
      for (const auto& p : s->t.profiles) fits += static_cast<long>(p.size()), types += !p.empty();
      changes += s->batch_changes;
    }
    extra.emplace_back("sia_job_epochs", static_cast<double>(epochs_));
    extra.emplace_back("sia_job_fits", static_cast<double>(fits));
    extra.emplace_back("sia_job_profiled_types", static_cast<double>(types));
    extra.emplace_back("sia_batch_changes", static_cast<double>(changes));
  }
  void files(std::vector<std::pair<std::string, std::string>>& out) const override { out.emplace_back("sia_jobs.csv", log_); }

 private:
  struct Job {
    sia::SiaTrainer t;
    EpochProgress e;
    int last_gpus = -1, last_batch = -1, last_accum = -1, last_epoch = -1, last_type = -2;
    long batch_changes = 0;
  };

  // The validation curves (the same on every type).
  static const PolluxApp& curves(const Job& s) { return *s.t.apps.front(); }

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
      s->t.name = spec.name;
      s->t.app_name = trainer_app(spec);
      std::vector<const PolluxApp*> apps;
      try {
        for (const auto& type : o_.type_names) apps.push_back(&sia_app(o_.traces_dir, type, s->t.app_name));
      } catch (const InputError& e) {
        throw InputError(spec.file, spec.line, "application", e.what());
      }
      s->t.target_batch = s->t.app_name == "ncf" ? 32768 : spec.global_batch;  // S:cluster.py:67-70
      if (s->t.target_batch < apps.front()->init_batch_size())
        throw InputError(spec.file, spec.line, "batch_size",
                         fmt::format("job {}: batch {} is below {}'s least measured batch ({})", spec.name,
                                     s->t.target_batch, s->t.app_name, apps.front()->init_batch_size()));
      s->t.init(std::move(apps));
      s->e.target = curves(*s).progress(curves(*s).max_epochs());
      if (!(spec.iterations > 0) || !(s->e.target > 0))
        throw InputError(spec.file, spec.line, "iterations", "job " + spec.name + " has no work to do");
      s->e.per_iteration = s->e.target / spec.iterations;
      jobs_[k] = std::move(s);
    }
    return *jobs_[k];
  }

  void rerate(JobState& j, Job& s, Time now) {
    const double goodput = s.t.step_goodput(s.e.epoch);
    if (!(goodput > 0)) throw InvariantError("sia job model: job " + j.spec->name + " has no goodput");
    s.e.rerate(j, curves(s), goodput, now, tune_, heap_);
    log(j, s, now);
  }

  // sia_jobs.csv: a row whenever a job's type, GPUs, batch, accumulation steps or epoch change.
  void log(const JobState& j, Job& s, Time now) {
    const int gpus = s.t.gpus();
    const int batch = gpus > 0 ? gpus * s.t.atomic * (s.t.accum + 1) : 0;
    const int type = gpus > 0 ? s.t.cluster : -1;
    if (gpus == s.last_gpus && batch == s.last_batch && s.t.accum == s.last_accum && s.e.epoch == s.last_epoch &&
        type == s.last_type)
      return;
    if (gpus > 0 && s.last_gpus > 0 && (batch != s.last_batch || s.t.accum != s.last_accum)) ++s.batch_changes;
    if (log_.empty()) log_ = "time_s,job_id,gpu_type,gpus,servers,batch_size,accum_steps,epoch,progress\n";
    log_ += fmt::format("{:.6f},{},{},{},{},{},{},{},{:.9g}\n", to_seconds(now), j.spec->name,
                        type >= 0 ? o_.type_names[static_cast<std::size_t>(type)] : "", gpus, s.t.placement.size(), batch,
                        gpus > 0 ? s.t.accum : 0, s.e.epoch, s.e.progress);
    s.last_gpus = gpus, s.last_batch = batch, s.last_accum = s.t.accum, s.last_epoch = s.e.epoch, s.last_type = type;
  }

  SiaJobModelOptions o_;
  Time tune_;
  std::vector<std::unique_ptr<Job>> jobs_;
  CompletionHeap heap_;
  std::vector<JobState*> due_;
  long epochs_ = 0;
  std::string log_;
};

}  // namespace

void widen_for_sia_jobs(std::vector<JobSpec>& jobs, const SiaJobModelOptions& o) {
  for (JobSpec& j : jobs) {
    if (!j.elastic()) continue;
    const std::string app = trainer_app(j);
    int cap = 1;
    for (const auto& type : o.type_names) {
      const PolluxApp& a = sia_app(o.traces_dir, type, app);
      cap = std::max(cap, app == "ncf" ? 1 : std::min(64, a.max_batch_size() / a.min_local_bsz()));
    }
    j.gpus_max = std::max(j.gpus_max, cap);
  }
}

std::unique_ptr<RateModel> make_sia_job_model(const SiaJobModelOptions& o) { return std::make_unique<SiaJobModel>(o); }

}  // namespace rm
