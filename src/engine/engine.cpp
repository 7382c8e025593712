#include "engine/engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "core/error.h"
#include "exec/comm_model.h"
#include "exec/perf_model.h"
#include "exec/cpu_speed.h"
#include "workload/cpu_profile_map.h"

namespace rm {
namespace {
std::string secs(Time t) { return fmt::format("{}", to_seconds(t)); }
}  // namespace

Engine::Engine(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs, Scheduler& scheduler,
               std::unique_ptr<ExecutionModel> exec, EngineOptions opt)
    : Engine(cluster, std::make_unique<VectorFeed>(jobs), nullptr, &scheduler, std::move(exec), std::move(opt)) {}

Engine::Engine(const ClusterSpec& cluster, JobFeed& feed, Scheduler* scheduler, std::unique_ptr<ExecutionModel> exec,
               EngineOptions opt)
    : Engine(cluster, nullptr, &feed, scheduler, std::move(exec), std::move(opt)) {}

Engine::Engine(const ClusterSpec& cluster, std::unique_ptr<JobFeed> own, JobFeed* feed, Scheduler* scheduler,
               std::unique_ptr<ExecutionModel> exec, EngineOptions opt)
    : own_feed_(std::move(own)),
      feed_(feed ? *feed : *own_feed_),
      cluster_(cluster, exec->searches_book()),
      scheduler_(scheduler),
      exec_(std::move(exec)),
      opt_(std::move(opt)),
      rate_(dynamic_cast<RateModel*>(exec_.get())),
      stepper_(dynamic_cast<SteppingModel*>(exec_.get())),
      own_perf_(opt_.perf ? nullptr : make_perf_model("analytic", "", cluster_.spec())),
      perf_(opt_.perf ? opt_.perf : own_perf_.get()),
      type_iteration_s_([p = perf_](const JobSpec& j, int type) { return p->ideal_iteration_s(j, type); }),
      span_iteration_s_([p = perf_](const JobSpec& j, const std::vector<int>& servers, const std::vector<int>& on) {
        p->quiet(true);  // a policy's what-if: not a job falling back in the run
        const double v = p->iteration_s(j, Span{servers, on}, [](int) { return 1; });  // alone: a split job counts itself
        p->quiet(false);
        return v;
      }) {
  if (!rate_ == !stepper_) throw InvariantError("an execution model is a rate model or a stepping model");
  if (!scheduler_ && !stepper_) throw InvariantError("the engine needs a scheduler unless its model is a stepping model");
  const ClusterTotals tot = totals_of(cluster);
  cpus_per_gpu_ = tot.gpus > 0 ? tot.cpus / tot.gpus : 0;
  dram_per_gpu_ = tot.gpus > 0 ? tot.mem_gb / tot.gpus : 0;
  if (stepper_) {
    stepper_->bind(cluster_);
    stepper_->bind_views(views_);
  }
  if (feed_.known_up_front() && !feed_.by_submit()) {
    while (const JobSpec* s = feed_.next()) admit(*s);
    feed_done_ = true;
    const auto by_submit = [](const JobState* a, const JobState* b) { return a->spec->submit < b->spec->submit; };
    if (!std::is_sorted(arrivals_.begin(), arrivals_.end(), by_submit)) {
      if (!stepper_) throw InvariantError("jobs must be sorted by submit time");
      std::stable_sort(arrivals_.begin(), arrivals_.end(), by_submit);
    }
  } else {
    take_jobs();
  }
  if (stepper_) stepper_->begin();
}

Engine::~Engine() = default;

const Chunked<JobState>& Engine::jobs() const {
  if (!let_go_.empty())
    throw InvariantError("the engine's job states are gone: the " + exec_->name() + " model let them go (its result holds the jobs)");
  return states_;
}

// A view let go: its place (and the feed's spec under it) for the next job taken.
void Engine::Views::let_go(JobState& v) {
  Engine& g = *e;
  if (!v.spec) throw InvariantError("a view let go twice");
  const JobId id = v.spec->id;
  if (id < 0 || id >= static_cast<JobId>(g.taken_)) throw InvariantError("let_go names unknown job");
  const auto i = static_cast<std::size_t>(id);
  if (g.let_go_.size() <= i) g.let_go_.resize(std::max(g.taken_, 2 * i + 1));
  if (g.let_go_[i]) throw InvariantError("job " + std::to_string(id) + " let go twice");
  if (v.status == JobStatus::Pending) throw InvariantError("job " + std::to_string(id) + " let go before it arrived");
  g.let_go_[i] = true;
  g.feed_.let_go(*v.spec);
  v.spec = nullptr;
  g.free_views_.push_back(&v);
}

// A generator's next job, once every job taken so far has arrived.
void Engine::take_jobs() {
  if (feed_done_ || next_arrival_ < arrivals_.size()) return;
  const JobSpec* s = feed_.next();
  if (!s) {
    feed_done_ = true;
    return;
  }
  if (!arrivals_.empty() && s->submit < arrivals_.back()->spec->submit)
    throw InvariantError("a generator's jobs must come by submit time");
  admit(*s);
}

JobState& Engine::admit(const JobSpec& spec) {
  if (spec.id != static_cast<JobId>(taken_)) throw InvariantError("job ids must be dense and in order");
  ++taken_;
  JobState* reused = nullptr;
  if (!free_views_.empty()) {  // a view a stepping model let go
    reused = free_views_.back();
    free_views_.pop_back();
    *reused = JobState{};
  }
  JobState& s = reused ? *reused : states_.emplace_back();
  arrivals_.push_back(&s);
  s.spec = &spec;
  if (stepper_) {  // the model fills the view its orders read
    stepper_->admit(s);
    return s;
  }
  s.remaining = spec.iterations;
  s.ideal_type = opt_.trace_type;
  s.ideal_iter_time = perf_->ideal_iteration_s(spec, s.ideal_type);
  s.arrival_s = to_seconds(spec.submit);
  // The job-level engine books GPUs only: a job's CPU and DRAM demand is its GPU-proportional share.
  s.cpu_demand = spec.num_gpus * cpus_per_gpu_;
  s.mem_demand = spec.num_gpus * dram_per_gpu_;
  if (opt_.cpu_profiles) {  // best case on the first server's shape (docs/policies.md)
    const ServerSpec& s0 = cluster_.spec().servers.at(0);
    const auto pc = synergy::profile_for(*opt_.cpu_profiles, spec.model, opt_.seed);
    const auto b = synergy::best_case(*pc.profile, spec.num_gpus,
                                      {static_cast<double>(s0.gpus), static_cast<double>(s0.cpus), s0.dram_gb,
                                       s0.storage_mbps > 0 ? s0.storage_mbps : 1.0});
    s.cpu_profile = pc.profile;
    s.cpu_demand = b.cpus;
    s.mem_demand = b.mem_gb;
    s.best_speedup = b.sigma;
  }
  return s;
}

// The jobs whose submit time is now arrive (before completions and wake-ups); true if any did.
bool Engine::arrive_due() {
  bool any = false;
  while (next_arrival_ < arrivals_.size() && arrivals_[next_arrival_]->spec->submit == now_) {
    JobState& j = *arrivals_[next_arrival_++];
    j.status = JobStatus::Queued;
    j.queued_since = now_;
    ++events_;
    any = true;
    if (stepper_) {
      stepper_->arrive(j, now_);
    } else {
      active_.push_back(&j);
      arrived_since_pass_.push_back(&j);
      ++queued_;
    }
    take_jobs();  // a generator's next job
  }
  return any;
}

// The one loop that moves simulated time (docs/design.md "The seam list"): to the earliest of the next arrival, the
// model's next event (a completion, or a stepping model's own instant) and the scheduler's next wake-up.
void Engine::run() {
  std::vector<JobState*> completed;
  std::int64_t loops = 0;
  bool started = false;
  while (!(stepper_ && stepper_->ended())) {
    Time t = next_submit();
    t = std::min(t, stepper_ ? stepper_->next_event_time() : rate_->next_completion());
    if (!wakeups_.empty()) t = std::min(t, wakeups_.top());
    if (t == kNever) break;
    if (!started) now_ = std::min<Time>(0, t);  // a model's own clock may start before 0
    started = true;
    if (t < now_) throw InvariantError("time went backwards: " + std::to_string(t) + " < " + std::to_string(now_));
    busy_gpu_us_ += (t - now_) * (cluster_.total_gpus() - cluster_.free_gpus());
    now_ = t;
    bool changed = arrive_due();
    if (stepper_) {  // the model's own events at this instant, after the arrivals; it keeps its own series
      if (stepper_->next_event_time() <= now_) stepper_->advance_to(now_);
      continue;
    }
    if (rate_->next_completion() == now_) {
      completed.clear();
      rate_->complete_at(now_, completed);
      for (JobState* j : completed) complete(*j);
      changed = changed || !completed.empty();
    }
    while (!wakeups_.empty() && wakeups_.top() <= now_) {
      wakeups_.pop();
      ++events_;
      changed = true;
    }
    if (changed) schedule();
    record();
    if (opt_.progress && (++loops & 4095) == 0)
      opt_.progress({static_cast<std::int64_t>(finished_), static_cast<std::int64_t>(taken_), to_seconds(now_),
                     events_});
  }
  const double us_per_tick = clock_.us_per_tick();
  for (float& d : decision_us_) d = static_cast<float>(d * us_per_tick);
  if (stepper_) stepper_->end();
  else check_final();
}

void Engine::record_stretch(const JobState& j) {
  if (!opt_.record_stretches) return;
  GpuStretch s{j.id(), j.last_start, now_, {}, static_cast<int>(j.gpus.size())};
  for (const auto& g : j.gpus)
    if (opt_.stretch_servers < 0 || g.server < opt_.stretch_servers) s.gpus.push_back({g.server, g.gpu});
  // An elastic job's every stretch is kept (elastic.csv: its GPU count over time), on sampled servers or not.
  if (!s.gpus.empty() || j.spec->elastic()) stretches_.push_back(std::move(s));
}

void Engine::complete(JobState& j) {
  if (j.status != JobStatus::Running) throw InvariantError("job " + j.spec->name + " completed while not running");
  rate_->stop(j, now_);
  // Work conservation: the execution model's completion must coincide with zero iterations left.
  const double tol = 1e-6 * std::max(1.0, j.spec->iterations) + 2e-6 / std::max(j.iter_time, 1e-12);
  if (std::fabs(j.remaining) > tol)
    throw InvariantError("job " + j.spec->name + " completed with " + std::to_string(j.remaining) +
                         " iterations left");
  j.remaining = 0;
  record_stretch(j);
  cluster_.release(j.id(), j.gpus);
  release_shares(j);
  j.run_us += now_ - j.last_start;
  j.gpu_us += (now_ - j.last_start) * static_cast<Time>(j.gpus.size());
  j.status = JobStatus::Finished;
  j.finish = now_;
  // Freed, not just emptied (`= {}` assigns an empty list and keeps the capacity): a million finished jobs would
  // keep theirs.
  j.gpus = std::vector<GpuRef>();
  j.servers = std::vector<int>();
  --running_;
  ++finished_;
  ++finished_in_active_;
  finished_since_pass_.push_back(&j);
  ++events_;
}

void Engine::schedule() {
  if (finished_in_active_ > 64 && 2 * finished_in_active_ > active_.size()) {
    std::erase_if(active_, [](const JobState* j) { return j->status == JobStatus::Finished; });
    finished_in_active_ = 0;
  }
  SchedContext ctx{now_,        cluster_, ActiveJobs(active_), queued_, true, finished_since_pass_, arrived_since_pass_,
                   &type_iteration_s_, &span_iteration_s_, rate_ ? rate_->job_view() : nullptr};
  const std::uint64_t t0 = TickClock::ticks();
  Decisions d = scheduler_->schedule(ctx);
  decision_us_.push_back(static_cast<float>(TickClock::ticks() - t0));  // ticks: run() converts them
  decision_waiting_.push_back(queued_);
  finished_since_pass_.clear();
  arrived_since_pass_.clear();
  apply(d);
}

void Engine::release_shares(JobState& j) {
  if (j.shares.empty()) return;
  cluster_.give_shares(j.id(), j.shares);
  j.shares.clear();
  j.alloc_speed = 1;
}

void Engine::apply(const Decisions& d) {
  auto state = [&](JobId id) -> JobState& {
    if (id < 0 || id >= static_cast<JobId>(states_.size())) throw InvariantError("decision names unknown job");
    return states_[id];
  };
  for (JobId id : d.preempt) {
    JobState& j = state(id);
    if (!j.running()) throw InvariantError("preempting job " + j.spec->name + " that is not running");
    let_go(j);
    j.status = JobStatus::Queued;
    j.queued_since = now_;
    ++j.preemptions;
    ++preemptions_;
    --running_;
    ++queued_;
  }
  reallocate(d.reallocate);
  for (const auto& rz : d.resize) {
    JobState& j = state(rz.job);
    if (!j.running() || j.shares.empty()) throw InvariantError("resizing job " + j.spec->name + " that holds no CPUs");
    cluster_.give_shares(j.id(), j.shares);
    cluster_.take_shares(j.id(), rz.shares);
    j.shares = rz.shares;
    const double speed = cpu_speed(j, j.shares, cluster_.spec(), opt_.matrix_speed);
    if (speed != j.alloc_speed) {
      j.alloc_speed = speed;
      rate_->respeed(j, now_);
    }
  }
  for (const auto& s : d.start) {
    JobState& j = state(s.job);
    if (j.status != JobStatus::Queued) throw InvariantError("starting job " + j.spec->name + " that is not queued");
    check_width(j, s.gpus.size());
    j.status = JobStatus::Running;
    if (j.first_start == kNever) j.first_start = now_;
    hold(j, s, j.preemptions == 0 ? 0 : restart_cost(j), false);
    --queued_;
    ++running_;
  }
  if (d.wake_at != kNever) {
    if (d.wake_at <= now_) throw InvariantError("scheduler asked to be woken in the past");
    if (wakeups_.empty() || wakeups_.top() != d.wake_at) wakeups_.push(d.wake_at);
  }
}

// A start's or a reallocation's GPU count: the job's own (rigid), or within its range (elastic).
void Engine::check_width(const JobState& j, std::size_t n) const {
  const auto at = [&] { return " at t=" + secs(now_) + " s"; };
  if (!j.spec->elastic() && static_cast<int>(n) != j.spec->num_gpus)
    throw InvariantError("job " + j.spec->name + " given " + std::to_string(n) + " GPUs, asked for " +
                         std::to_string(j.spec->num_gpus) + at());
  if (j.spec->elastic() && (static_cast<int>(n) < j.spec->gpus_min || static_cast<int>(n) > j.spec->gpus_max))
    throw InvariantError("elastic job " + j.spec->name + " given " + std::to_string(n) + " GPUs, outside its range [" +
                         std::to_string(j.spec->gpus_min) + ", " + std::to_string(j.spec->gpus_max) + "]" + at());
}

// Books `gpus` for j: never a GPU held by another job (double-booking), never two GPU types. `named`: a reallocation's
// set is checked GPU by GPU first, so the error names the job and the time (a start's, by the book's own check).
void Engine::take(const JobState& j, const std::vector<GpuRef>& gpus, bool named) {
  for (std::size_t a = 0; named && a < gpus.size(); ++a) {
    const GpuRef& g = gpus[a];
    if (g.server < 0 || g.server >= cluster_.num_servers() || g.gpu < 0 || g.gpu >= cluster_.server(g.server).gpus)
      throw InvariantError("job " + j.spec->name + " given server " + std::to_string(g.server) + " GPU " +
                           std::to_string(g.gpu) + ", which does not exist, at t=" + secs(now_) + " s");
    if (!cluster_.is_free(g))
      throw InvariantError("job " + j.spec->name + " given server " + std::to_string(g.server) + " GPU " +
                           std::to_string(g.gpu) + ", which is not free (double-booking), at t=" + secs(now_) + " s");
    for (std::size_t b = 0; b < a; ++b)
      if (g.server == gpus[b].server && g.gpu == gpus[b].gpu)
        throw InvariantError("job " + j.spec->name + " given server " + std::to_string(g.server) + " GPU " +
                             std::to_string(g.gpu) + " twice, at t=" + secs(now_) + " s");
  }
  cluster_.allocate(j.id(), gpus);  // throws on a GPU given twice in one set
  if (cluster_.types().count() > 1)    // and a job's GPUs are all of one type
    for (const GpuRef& g : gpus)
      if (cluster_.types().of_server[static_cast<std::size_t>(g.server)] !=
          cluster_.types().of_server[static_cast<std::size_t>(gpus.front().server)])
        throw InvariantError("job " + j.spec->name + " was placed on two GPU types");
}

// j stops holding its GPUs at now (a preemption, a reallocation's old set): progress up to now, the restart cost
// it has not paid yet taken back, its stretch recorded, GPUs and CPU/DRAM shares released, its run and GPU time.
void Engine::let_go(JobState& j) {
  rate_->stop(j, now_);
  if (j.stall_until > now_) j.overhead_us -= std::min(j.last_overhead, j.stall_until - now_);  // not all paid
  record_stretch(j);
  cluster_.release(j.id(), j.gpus);
  release_shares(j);
  j.run_us += now_ - j.last_start;
  j.gpu_us += (now_ - j.last_start) * static_cast<Time>(j.gpus.size());
  j.gpus.clear();
  j.servers.clear();
}

// What a restart costs j (a resume after a preemption, or a reallocation): --preempt-overhead or the per-job model.
Time Engine::restart_cost(const JobState& j) const {
  return opt_.preempt_cost ? from_seconds(opt_.preempt_cost(*j.spec)) : opt_.preempt_overhead;
}

// j takes s's GPUs (and CPU/DRAM shares) at now and makes no progress for `overhead` plus the start delay; its ideal
// moves to the GPU type it runs on. `named`: check the set GPU by GPU first (take).
void Engine::hold(JobState& j, const StartDecision& s, Time overhead, bool named) {
  take(j, s.gpus, named);
  j.gpus = s.gpus;
  if (!s.shares.empty()) {
    cluster_.take_shares(j.id(), s.shares);  // throws when more CPUs or DRAM than free
    j.shares = s.shares;
    j.alloc_speed = cpu_speed(j, j.shares, cluster_.spec(), opt_.matrix_speed);
  }
  j.last_start = now_;
  j.last_overhead = overhead;
  j.overhead_us += overhead;
  j.stall_until = now_ + opt_.start_delay + overhead;
  if (const int type = cluster_.types().of_server[static_cast<std::size_t>(s.gpus.front().server)]; type != j.ideal_type)
    j.move_to_type(type, perf_->ideal_iteration_s(*j.spec, type));  // ideal on the type it runs on
  rate_->start(j, now_);
  j.max_servers = std::max(j.max_servers, static_cast<int>(j.servers.size()));
  j.type_server = s.gpus.front().server;
  held_range(j);
}

void Engine::held_range(JobState& j) {
  const int n = static_cast<int>(j.gpus.size());
  j.held_min = j.held_min > 0 ? std::min(j.held_min, n) : n;
  j.held_max = std::max(j.held_max, n);
}

// Running elastic jobs given another set of GPUs: all the old sets are released first (one job's shrink makes room
// for another's growth in the same pass), then each job takes its new set and restarts: progress up to now, the
// restart delay (the preemption cost's checkpoint-restore: docs/elastic.md), counted in reallocations.
void Engine::reallocate(const std::vector<StartDecision>& moves) {
  if (moves.empty()) return;
  std::vector<JobState*> js;
  for (const auto& m : moves) {
    if (m.job < 0 || m.job >= static_cast<JobId>(states_.size())) throw InvariantError("decision names unknown job");
    JobState& j = states_[m.job];
    if (!j.running())
      throw InvariantError("reallocating job " + j.spec->name + ", which is not running, at t=" + secs(now_) + " s");
    if (!j.spec->elastic())
      throw InvariantError("reallocating rigid job " + j.spec->name + " at t=" + secs(now_) +
                           " s (only elastic jobs change their GPUs while they run)");
    for (const JobState* o : js)
      if (o == &j) throw InvariantError("job " + j.spec->name + " reallocated twice at t=" + secs(now_) + " s");
    check_width(j, m.gpus.size());
    js.push_back(&j);
  }
  for (JobState* j : js) let_go(*j);
  for (std::size_t k = 0; k < moves.size(); ++k) {
    JobState& j = *js[k];
    hold(j, moves[k], restart_cost(j), true);
    ++j.reallocations;
    ++reallocations_;
  }
}

void Engine::record() {
  SeriesRow r{now_, queued_, running_, cluster_.total_gpus() - cluster_.free_gpus()};
  if (!series_.empty() && series_.back().t == now_) series_.back() = r;
  else if (series_.empty() || series_.back().queued != r.queued || series_.back().running != r.running ||
           series_.back().busy_gpus != r.busy_gpus)
    series_.push_back(r);
}

void Engine::check_final() const {
  Time held = 0;
  for (const auto& j : states_) {
    if (j.status != JobStatus::Finished && scheduler_->in_python())
      throw InputError("--policy", 0, scheduler_->name(),
                       "job " + j.spec->name + " never finished: the Python policy left it waiting with nothing running "
                       "and nothing more to arrive (a placement or scheduler that never starts it)");
    if (j.status != JobStatus::Finished)
      throw InvariantError("job " + j.spec->name + " never finished (nothing left that could start it)");
    held += j.gpu_us;
  }
  if (held != busy_gpu_us_)
    throw InvariantError("GPU-seconds not conserved: jobs held " + std::to_string(held) + " GPU-us, cluster was busy " +
                         std::to_string(busy_gpu_us_));
  if (cluster_.free_gpus() != cluster_.total_gpus()) throw InvariantError("GPUs still held at the end");
  for (int s = 0; s < cluster_.num_servers(); ++s)
    if (std::abs(cluster_.free_cpus(s) - cluster_.server(s).cpus) > 1e-6 ||
        std::abs(cluster_.free_mem_gb(s) - cluster_.server(s).dram_gb) > 1e-6)
      throw InvariantError("CPUs or DRAM still held at the end on server " + std::to_string(s));
}

RunRecord record_of(Engine& e) {
  RunRecord r;
  r.jobs.reserve(e.jobs().size());
  for (const auto& j : e.jobs()) {
    // Alone at its best placement on an idle cluster, at its best CPU/DRAM share, on the types it ran on.
    const Time ideal = from_seconds(j.ideal_s());
    const int type = j.type_server < 0 ? -1 : gpu_type_index(r, e.cluster().spec().servers[j.type_server].gpu_type);
    r.jobs.push_back({j.spec, j.first_start, j.finish, j.run_us, j.preemptions, j.overhead_us, ideal, j.max_servers, type});
    if (j.spec->elastic()) {  // jobs.csv's gpus_min, gpus_max, gpu_seconds, reallocations (each resume counts)
      JobRecord& x = r.jobs.back();
      x.gpus_min = j.held_min > 0 ? j.held_min : j.spec->num_gpus;
      x.gpus_max = j.held_max > 0 ? j.held_max : j.spec->num_gpus;
      x.gpu_seconds = to_seconds(j.gpu_us);
      x.reallocations = j.reallocations + j.preemptions;
    }
  }
  r.series = std::move(e.series_);
  r.stretches = std::move(e.stretches_);
  r.total_gpus = e.cluster().total_gpus();
  r.busy_gpu_us = e.busy_gpu_us();
  r.events = e.events();
  r.preemptions = e.preemptions();
  if (e.reallocations_ > 0) r.extra.push_back({"reallocations", static_cast<double>(e.reallocations_)});
  e.exec().report(r.extra);
  e.exec().files(r.files);
  e.scheduler().report(r.extra, r.timing);
  r.decision_us = std::move(e.decision_us_);
  r.decision_waiting = std::move(e.decision_waiting_);
  return r;
}

}  // namespace rm
