// Python policies (python_layer.h): the job view, the queue-order adapter, the loader and the error reports.
#include "python/python_layer.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "policy/allocation/allocations.h"
#include "policy/external.h"
#include "policy/order/orders.h"
#include "sched/job_state.h"

namespace py = pybind11;

namespace rm::python {
namespace {

// What a Python policy sees of a job at the pass's time: read-only, the figures a C++ order reads (no simulator
// truth: the remaining work is what the backend expects at the job's ideal speed).
// Views are valid while the run that made them lasts: each carries the run's epoch, bumped when a run ends.
std::uint64_t g_view_epoch = 0;

struct JobView {
  const JobState* j;
  Time now;
  std::uint64_t epoch = g_view_epoch;
};

// A server as a policy sees it within one decision: its fixed figures and what is free now (this pass's earlier
// choices counted). Valid only during the call it was handed to.
struct ServerView {
  const FreeMap* free;
  int s;
  std::uint64_t epoch = g_view_epoch;
};

// The whole cluster at a pass, for a Python scheduler: the active jobs and the servers.
struct ClusterView {
  Time now;
  std::vector<const JobState*> jobs;  // arrival order
  const FreeMap* free;
  std::uint64_t epoch = g_view_epoch;
};

py::list server_list(const FreeMap& free, bool only_free) {
  py::list out;
  for (int s = only_free ? free.next_free_server(0) : 0; s < free.num_servers();
       s = only_free ? free.next_free_server(s + 1) : s + 1)
    out.append(ServerView{&free, s});
  return out;
}

// A list of jobs that makes each JobView when it is read: a scheduler that stops at the queue's head pays for the
// jobs it reads, not for the whole queue (len, [i], [-1], iteration, sorted() all work as on a list).
struct JobList {
  std::shared_ptr<const std::vector<const JobState*>> jobs;
  Time now;
  std::uint64_t epoch = g_view_epoch;
};

// A view read after its run ended: a Python error naming it, never a read of freed memory.
template <class V>
const V& live(const V& v) {
  if (v.epoch != g_view_epoch)
    throw py::value_error("this view belongs to a simulation run that has ended: read what you need from it "
                          "during the policy call that received it");
  return v;
}

struct JobListIter {
  JobList list;
  std::size_t i = 0;
};

JobList job_list(const ClusterView& v, int which) {  // 0 all, 1 waiting, 2 running
  auto out = std::make_shared<std::vector<const JobState*>>();
  for (const JobState* j : v.jobs)
    if (which == 0 || (which == 1 && j->status == JobStatus::Queued) || (which == 2 && j->running())) out->push_back(j);
  return {std::move(out), v.now};
}

py::object opt_seconds(Time t) { return t == kNever ? py::object(py::none()) : py::object(py::float_(to_seconds(t))); }

// The class of a part, its file for messages.
struct Loaded {
  py::object obj;
  std::string file, cls;
};

std::vector<py::object>& registered() {
  static std::vector<py::object>* v = new std::vector<py::object>();  // lives as long as the interpreter
  return *v;
}

std::string traceback_text(py::error_already_set& e) {
  try {
    py::list lines = py::module_::import("traceback").attr("format_exception")(e.type(), e.value(), e.trace());
    std::string out;
    for (const auto& l : lines) out += l.cast<std::string>();
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  } catch (...) {
    return e.what();
  }
}

// An exception in the user's code: the traceback, the job and the time it happened.
[[noreturn]] void user_error(py::error_already_set& e, const Loaded& where, const std::string& method,
                             const JobState* j, Time now) {
  std::string ctx = j ? fmt::format(" for job {} at t={} s", j->spec->name, to_seconds(now))
                     : now >= 0 ? fmt::format(" at t={} s", to_seconds(now)) : std::string();
  throw InputError(where.file, 0, where.cls + "." + method, "raised" + ctx + ":\n" + traceback_text(e));
}

// A wrong answer from the user's code (a wrong type, a GPU given twice, ...): the method, and the message with the
// job and the time.
[[noreturn]] void bad_answer(const Loaded& where, const std::string& method, const std::string& msg) {
  throw InputError(where.file, 0, where.cls + "." + method, msg);
}

std::string type_name(const py::handle& o) { return py::str(py::type::of(o).attr("__name__")).cast<std::string>(); }

std::string at(const JobState& j, Time now) { return fmt::format("job {} at t={} s", j.spec->name, to_seconds(now)); }

// A list of (server, gpu) pairs from the user's answer; a wrong shape is reported as the method's error.
std::vector<GpuRef> gpu_refs(const py::handle& o, const Loaded& l, const std::string& method, const std::string& ctx) {
  std::vector<GpuRef> out;
  try {
    for (const auto& item : py::reinterpret_borrow<py::iterable>(o)) {
      auto pair = item.cast<std::pair<int, int>>();
      out.push_back({pair.first, pair.second});
    }
  } catch (const py::cast_error&) {
    bad_answer(l, method, "must give the GPUs as a list of (server, gpu) pairs of ints, gave " + type_name(o) + " for " + ctx);
  } catch (const py::error_already_set&) {
    bad_answer(l, method, "must give the GPUs as a list of (server, gpu) pairs of ints, gave " + type_name(o) + " for " + ctx);
  }
  return out;
}

// Checks GPUs a Python policy chose for job j against `free` (it does not take them): each GPU real, not given twice
// (`given`: the GPUs this decision gave already, to their job), free, with the memory the job needs; then the job's
// count.
void check_gpus(const std::vector<GpuRef>& gpus, const JobState& j, Time now, const FreeMap& free, const Cluster* cluster,
                std::map<std::pair<int, int>, const JobState*>& given, const Loaded& l, const std::string& method) {
  const std::string ctx = at(j, now);
  for (const auto& g : gpus) {
    if (g.server < 0 || g.server >= free.num_servers() || g.gpu < 0 || g.gpu >= free.spec().servers[g.server].gpus)
      bad_answer(l, method, fmt::format("gave server {} GPU {} to {}: no such GPU", g.server, g.gpu, ctx));
    if (auto it = given.find({g.server, g.gpu}); it != given.end())
      bad_answer(l, method,
                 it->second == &j ? fmt::format("a GPU given twice: server {} GPU {} to {}", g.server, g.gpu, ctx)
                                  : fmt::format("a GPU given twice: server {} GPU {} to job {} and to {}", g.server,
                                                g.gpu, it->second->spec->name, ctx));
    if (!free.is_free(g)) {
      const JobId owner = cluster ? cluster->owner(g) : kNoJob;
      bad_answer(l, method,
                 fmt::format("gave server {} GPU {} to {}, but it is not free{}", g.server, g.gpu, ctx,
                             owner == kNoJob ? std::string() : fmt::format(" (job id {} holds it)", owner)));
    }
    if (!free.fits_memory(*j.spec, g.server))
      bad_answer(l, method,
                 fmt::format("gave server {} GPU {} to {}: its {} GB are less than the job's {} MB per worker", g.server,
                             g.gpu, ctx, free.spec().servers[g.server].gpu_mem_gb, j.spec->gpu_mem_mb));
    given[{g.server, g.gpu}] = &j;
  }
  if (j.spec->elastic() && (static_cast<int>(gpus.size()) < j.spec->gpus_min || static_cast<int>(gpus.size()) > j.spec->gpus_max))
    bad_answer(l, method, fmt::format("gave {} GPUs to elastic {}, outside its range [{}, {}]", gpus.size(), ctx,
                                      j.spec->gpus_min, j.spec->gpus_max));
  if (!j.spec->elastic() && static_cast<int>(gpus.size()) != j.spec->num_gpus)
    bad_answer(l, method, fmt::format("gave {} GPUs to {}, which asks for {}", gpus.size(), ctx, j.spec->num_gpus));
}

// A flag attribute of the user's class (preemptive, backfill, ...): True, False or None (the default); anything else
// is the class's error, named, not pybind11's cast message.
bool truthy_attr(const py::object& o, const char* name, bool dflt, const Loaded& l) {
  if (!py::hasattr(o, name)) return dflt;
  py::object v = o.attr(name);
  if (v.is_none()) return dflt;
  if (!py::isinstance<py::bool_>(v))
    throw InputError(l.file, 0, l.cls + "." + name, "must be True or False, is " + type_name(v));
  return v.cast<bool>();
}

// A number the user's code returned, as a double: ints beyond a double's range (10**400) and NaN are the method's
// error, named with the job and time.
double user_number(const py::object& r, const Loaded& l, const std::string& method, const JobState& j, Time now) {
  const double d = PyFloat_AsDouble(r.ptr());
  if (d == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    bad_answer(l, method, "returned a number beyond a double's range for " + at(j, now));
  }
  if (std::isnan(d)) bad_answer(l, method, "returned NaN for " + at(j, now));
  return d;
}

class PyOrder final : public QueueOrder {
 public:
  explicit PyOrder(Loaded l) : l_(std::move(l)) {
    key_ = py::hasattr(l_.obj, "key") ? l_.obj.attr("key") : l_.obj;  // a class's key, or a plain function
    if (py::hasattr(l_.obj, "next_change") && !l_.obj.attr("next_change").is_none()) next_ = l_.obj.attr("next_change");
    preemptive_ = truthy_attr(l_.obj, "preemptive", false, l_);
    backfill_ = truthy_attr(l_.obj, "backfill", preemptive_, l_);
    fixed_ = truthy_attr(l_.obj, "key_fixed_while_waiting", false, l_);
    const std::string rk = py::hasattr(l_.obj, "running_key") ? py::str(l_.obj.attr("running_key")).cast<std::string>()
                                                              : std::string("moves");
    if (rk == "moves") running_ = RunningKey::Moves;
    else if (rk == "falls") running_ = RunningKey::Falls;
    else if (rk == "steps") running_ = RunningKey::Steps;
    else
      throw InputError(l_.file, 0, l_.cls + ".running_key", "must be 'moves', 'falls' or 'steps', not '" + rk + "'");
    name_ = py::hasattr(l_.obj, "name") ? py::str(l_.obj.attr("name")).cast<std::string>() : "py:" + l_.cls;
  }
  std::string name() const override { return name_; }
  bool in_python() const override { return true; }
  double key(const JobState& j, Time now) const override {
    py::object r;
    try {
      r = key_(JobView{&j, now});
    } catch (py::error_already_set& e) {
      user_error(e, l_, "key", &j, now);
    }
    if (!py::isinstance<py::float_>(r) && !py::isinstance<py::int_>(r))
      throw InputError(l_.file, 0, l_.cls + ".key",
                       fmt::format("must return a number, returned {} for job {} at t={} s",
                                   py::str(py::type::of(r).attr("__name__")).cast<std::string>(), j.spec->name,
                                   to_seconds(now)));
    return user_number(r, l_, "key", j, now);
  }
  bool has_next_change() const override { return static_cast<bool>(next_); }
  Time next_change(const JobState& j, Time now) const override {
    if (!next_) return kNever;
    py::object r;
    try {
      r = next_(JobView{&j, now});
    } catch (py::error_already_set& e) {
      user_error(e, l_, "next_change", &j, now);
    }
    if (r.is_none()) return kNever;
    if (!py::isinstance<py::int_>(r))
      throw InputError(l_.file, 0, l_.cls + ".next_change",
                       "must return None or a time in microseconds (an int, e.g. job.first_time_attained(x))");
    Time t = 0;
    try {
      t = r.cast<Time>();
    } catch (const py::cast_error&) {
      bad_answer(l_, "next_change", "returned a time beyond the microsecond clock's range for " + at(j, now));
    }
    if (t <= now)
      throw InputError(l_.file, 0, l_.cls + ".next_change",
                       fmt::format("returned {} us for job {}, not after now ({} us)", t, j.spec->name, now));
    return t;
  }
  bool key_fixed_while_waiting() const override { return fixed_; }
  RunningKey running_key() const override { return running_; }
  bool default_preemptive() const override { return preemptive_; }
  bool default_backfill() const override { return backfill_; }

 private:
  Loaded l_;
  py::object key_, next_;
  bool preemptive_ = false, backfill_ = false, fixed_ = false;
  RunningKey running_ = RunningKey::Moves;
  std::string name_;
};

py::object method_or_none(const py::object& o, const char* name) {
  if (!py::hasattr(o, name)) return py::none();
  return o.attr(name);
}

std::string name_of(const Loaded& l) {
  return py::hasattr(l.obj, "name") ? py::str(l.obj.attr("name")).cast<std::string>() : "py:" + l.cls;
}

// A placement: place(job, servers) -> [(server, gpu), ...] | None, checked; or, without place, the servers with free
// GPUs (and the memory the job needs) that filter(job, server) keeps, by score(job, server) descending (ties: lower
// index), GPUs taken from the best first, lowest indices first.
class PyPlacement final : public Placement {
 public:
  explicit PyPlacement(Loaded l) : l_(std::move(l)) {
    place_ = method_or_none(l_.obj, "place");
    filter_ = method_or_none(l_.obj, "filter");
    score_ = method_or_none(l_.obj, "score");
    name_ = name_of(l_);
  }
  std::string name() const override { return name_; }
  bool in_python() const override { return true; }
  std::optional<std::vector<GpuRef>> place(const JobState& j, const FreeMap& free) override {
    const int n = j.spec->num_gpus;
    if (free.total_free() < n) return std::nullopt;  // never tried: schedulers pass over it unasked
    const Time now = now_;
    if (!place_.is_none()) return call_place(j, free, now);
    struct Cand {
      double score;
      int s;
    };
    std::vector<Cand> cands;
    for (int s = free.next_free_server(0); s < free.num_servers(); s = free.next_free_server(s + 1)) {
      if (!free.fits_memory(*j.spec, s)) continue;
      const ServerView v{&free, s};
      if (!filter_.is_none()) {
        py::object keep = call(filter_, "filter", j, now, v);
        if (!py::isinstance<py::bool_>(keep))
          bad_answer(l_, "filter", "must return True or False, returned " + type_name(keep) + " for " + at(j, now));
        if (!keep.cast<bool>()) continue;
      }
      double sc = 0;
      if (!score_.is_none()) {
        py::object r = call(score_, "score", j, now, v);
        if (!(py::isinstance<py::float_>(r) || py::isinstance<py::int_>(r)) || py::isinstance<py::bool_>(r))
          bad_answer(l_, "score", "must return a number, returned " + type_name(r) + " for " + at(j, now));
        sc = user_number(r, l_, "score", j, now);
      }
      cands.push_back({sc, s});
    }
    std::stable_sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) { return a.score > b.score; });
    std::vector<GpuRef> out;
    for (const auto& c : cands) {
      const int k = std::min(n - static_cast<int>(out.size()), free.free_on(c.s));
      for (const auto& g : free.take_from(c.s, k)) out.push_back(g);
      if (static_cast<int>(out.size()) == n) return out;
    }
    return std::nullopt;
  }
  void begin_pass(Time now) override { now_ = now; }

 private:
  py::object call(const py::object& f, const char* method, const JobState& j, Time now, const ServerView& v) {
    try {
      return f(JobView{&j, now}, v);
    } catch (py::error_already_set& e) {
      user_error(e, l_, method, &j, now);
    }
  }
  std::optional<std::vector<GpuRef>> call_place(const JobState& j, const FreeMap& free, Time now) {
    py::object r;
    try {
      r = place_(JobView{&j, now}, server_list(free, true));
    } catch (py::error_already_set& e) {
      user_error(e, l_, "place", &j, now);
    }
    if (r.is_none()) return std::nullopt;
    if (!py::isinstance<py::iterable>(r) || py::isinstance<py::str>(r))
      bad_answer(l_, "place", "must return a list of (server, gpu) pairs or None, returned " + type_name(r) + " for " + at(j, now));
    std::vector<GpuRef> gpus = gpu_refs(r, l_, "place", at(j, now));
    std::map<std::pair<int, int>, const JobState*> given;
    check_gpus(gpus, j, now, free, nullptr, given, l_, "place");
    return gpus;
  }
  Loaded l_;
  py::object place_, filter_, score_;
  std::string name_;
  Time now_ = 0;
};

// An allocation: allocate(job, servers) -> [(cpus, mem_gb), ...] (one per server of the placement) | None (the job
// waits). `servers` lists, per server of the placement, a dict: server (a ServerView), gpus, fair_cpus, fair_mem_gb
// (the GPU-proportional share), best_cpus, best_mem_gb (the job's best case where its profile is known).
class PyAllocation final : public Allocation {
 public:
  explicit PyAllocation(Loaded l) : l_(std::move(l)) {
    allocate_ = l_.obj.attr("allocate");
    name_ = name_of(l_);
  }
  std::string name() const override { return name_; }
  bool in_python() const override { return true; }
  bool may_refuse() const override { return truthy_attr(l_.obj, "may_refuse", true, l_); }
  void begin_pass(Time now) override { now_ = now; }
  bool allocate(const JobState& j, StartDecision& d, FreeMap& free) override {
    const auto needs = share_needs(j, d.gpus, free.spec());
    py::list servers;
    for (const auto& x : needs) {
      py::dict e;
      e["server"] = ServerView{&free, x.server};
      e["gpus"] = x.gpus;
      e["fair_cpus"] = x.prop_cpus;
      e["fair_mem_gb"] = x.prop_mem;
      e["best_cpus"] = x.best_cpus;
      e["best_mem_gb"] = x.best_mem;
      servers.append(e);
    }
    py::object r;
    try {
      r = allocate_(JobView{&j, now_}, servers);
    } catch (py::error_already_set& e) {
      user_error(e, l_, "allocate", &j, now_);
    }
    const std::string ctx = at(j, now_);
    if (r.is_none()) {
      // A class that says it never refuses (may_refuse = False, which lets a-srpt-p plan on it) and then refuses
      // would leave the planner retrying forever: its error, named.
      if (!may_refuse())
        bad_answer(l_, "allocate", "returned None (a refusal) for " + ctx + ", but the class says may_refuse = False");
      return false;
    }
    std::vector<std::pair<double, double>> shares;
    try {
      shares = r.cast<std::vector<std::pair<double, double>>>();
    } catch (const py::cast_error&) {
      bad_answer(l_, "allocate", "must return a list of (cpus, mem_gb) pairs, one per server, or None; returned " +
                                     type_name(r) + " for " + ctx);
    }
    if (shares.size() != needs.size())
      bad_answer(l_, "allocate", fmt::format("returned {} shares for {}, placed on {} servers", shares.size(), ctx, needs.size()));
    std::vector<ServerShare> out;
    for (std::size_t k = 0; k < needs.size(); ++k) {
      const auto [cpus, mem] = shares[k];
      const int s = needs[k].server;
      if (!(cpus >= 0) || !(mem >= 0) || !std::isfinite(cpus) || !std::isfinite(mem))
        bad_answer(l_, "allocate", fmt::format("gave {} CPUs and {} GB on server {} to {}: not finite and >= 0", cpus, mem, s, ctx));
      if (cpus > free.free_cpus(s) + 1e-9 || mem > free.free_mem_gb(s) + 1e-9)
        bad_answer(l_, "allocate",
                   fmt::format("gave {} CPUs and {} GB on server {} to {}, where {} CPUs and {} GB are free", cpus, mem,
                               s, ctx, free.free_cpus(s), free.free_mem_gb(s)));
      out.push_back({s, cpus, mem});
    }
    return commit_shares(std::move(out), d, free);
  }

 private:
  Loaded l_;
  py::object allocate_;
  std::string name_;
  Time now_ = 0;
};

// A whole scheduler: schedule(view) -> ringmaster.Decisions | dict | None, once per pass (the GIL taken once), its
// decisions checked before the engine sees them.
class PyScheduler final : public Scheduler {
 public:
  explicit PyScheduler(Loaded l) : l_(std::move(l)) {
    schedule_ = l_.obj.attr("schedule");
    name_ = name_of(l_);
  }
  std::string name() const override { return name_; }
  bool in_python() const override { return true; }
  Decisions schedule(const SchedContext& ctx) override {
    FreeMap free(ctx.cluster);
    ClusterView v{ctx.now, {}, &free};
    bool by_id_order = true;  // the simulator's ids rise in arrival order: a decision's job found by bisection
    for (const JobState* j : ctx.active) {
      if (!v.jobs.empty() && v.jobs.back()->id() >= j->id()) by_id_order = false;
      v.jobs.push_back(j);
    }
    std::unordered_map<JobId, const JobState*> by_id;  // otherwise (serve), made at the first decision
    auto find = [&](JobId id) -> const JobState* {
      if (by_id_order) {
        auto it = std::lower_bound(v.jobs.begin(), v.jobs.end(), id,
                                   [](const JobState* j, JobId x) { return j->id() < x; });
        return it != v.jobs.end() && (*it)->id() == id ? *it : nullptr;
      }
      if (by_id.empty())
        for (const JobState* j : v.jobs) by_id[j->id()] = j;
      auto it = by_id.find(id);
      return it == by_id.end() ? nullptr : it->second;
    };
    py::object r;
    try {
      r = schedule_(v);
    } catch (py::error_already_set& e) {
      user_error(e, l_, "schedule", nullptr, ctx.now);
    }
    Decisions d;
    if (r.is_none()) return d;
    py::object starts, preempts, resizes, wake;
    if (py::isinstance<py::dict>(r)) {
      py::dict dd = r.cast<py::dict>();
      for (const auto& [k, _] : dd) {
        const std::string key = py::str(k).cast<std::string>();
        if (key != "start" && key != "preempt" && key != "resize" && key != "wake_at_s")
          bad_answer(l_, "schedule", "returned a dict with key '" + key + "' (start, preempt, resize, wake_at_s)" + when(ctx.now));
      }
      starts = dd.contains("start") ? py::object(dd["start"]) : py::object(py::list());
      preempts = dd.contains("preempt") ? py::object(dd["preempt"]) : py::object(py::list());
      resizes = dd.contains("resize") ? py::object(dd["resize"]) : py::object(py::list());
      wake = dd.contains("wake_at_s") ? py::object(dd["wake_at_s"]) : py::object(py::none());
    } else if (py::hasattr(r, "starts") && py::hasattr(r, "preempts")) {
      starts = r.attr("starts");
      preempts = r.attr("preempts");
      resizes = py::getattr(r, "resizes", py::list());
      wake = py::getattr(r, "wake_at_s", py::none());
    } else {
      bad_answer(l_, "schedule", "must return ringmaster.Decisions, a dict or None, returned " + type_name(r) + when(ctx.now));
    }
    auto job_of = [&](const py::handle& h, const char* what) -> const JobState* {
      JobId id = kNoJob;
      if (py::isinstance<JobView>(h)) id = h.cast<const JobView&>().j->id();
      else if (py::isinstance<py::int_>(h)) id = h.cast<JobId>();
      else bad_answer(l_, "schedule", std::string(what) + " must name a job by its JobView or id, not " + type_name(h) + when(ctx.now));
      const JobState* j = find(id);
      if (!j || j->status == JobStatus::Finished)
        bad_answer(l_, "schedule", fmt::format("a decision for job id {}{}, which is not in the system (finished or not "
                                               "arrived)", id, when(ctx.now)));
      return j;
    };
    std::set<JobId> stopped;
    for (const auto& h : iterable(preempts, "preempt", ctx.now)) {
      const JobState* j = job_of(h, "a preemption");
      if (!j->running())
        bad_answer(l_, "schedule", "a decision for " + at(*j, ctx.now) + ", which is not running: preempts only stop running jobs");
      if (!stopped.insert(j->id()).second) bad_answer(l_, "schedule", "preempts " + at(*j, ctx.now) + " twice");
      d.preempt.push_back(j->id());
      free.give(j->gpus);
    }
    const auto pair_of = [&](const py::handle& h, const char* what) {
      py::tuple t;
      try {
        t = h.cast<py::tuple>();
      } catch (const py::cast_error&) {
      }
      if (!t || t.size() != 2)
        bad_answer(l_, "schedule", std::string("each ") + what + " must be a (job, gpus) pair, not " + type_name(h) + when(ctx.now));
      return t;
    };
    std::map<std::pair<int, int>, const JobState*> given;
    // Resizes (docs/elastic.md): running elastic jobs given another set of GPUs; every old set is free to the new
    // ones and to this pass's starts, as the engine applies them.
    std::vector<std::pair<const JobState*, py::object>> moves;
    std::set<JobId> resized;
    for (const auto& h : iterable(resizes, "resize", ctx.now)) {
      py::tuple t = pair_of(h, "resize");
      const JobState* j = job_of(t[0], "a resize");
      if (!j->running())
        bad_answer(l_, "schedule", "a resize of " + at(*j, ctx.now) + ", which is not running: start it instead");
      if (!j->spec->elastic())
        bad_answer(l_, "schedule", "a resize of " + at(*j, ctx.now) + ", which is rigid (no gpus_min/gpus_max): only "
                                   "elastic jobs change their GPUs while they run");
      if (stopped.count(j->id())) bad_answer(l_, "schedule", "a resize of " + at(*j, ctx.now) + ", which it also preempts");
      if (!resized.insert(j->id()).second) bad_answer(l_, "schedule", "resizes " + at(*j, ctx.now) + " twice");
      free.give(j->gpus);
      moves.push_back({j, py::reinterpret_borrow<py::object>(t[1])});
    }
    for (const auto& [j, g] : moves) {
      StartDecision s;
      s.job = j->id();
      s.gpus = gpu_refs(g, l_, "schedule", at(*j, ctx.now));
      check_gpus(s.gpus, *j, ctx.now, free, &ctx.cluster, given, l_, "schedule");
      free.take(s.gpus);
      d.reallocate.push_back(std::move(s));
    }
    std::set<JobId> started;
    for (const auto& h : iterable(starts, "start", ctx.now)) {
      py::tuple t = pair_of(h, "start");
      const JobState* j = job_of(t[0], "a start");
      if (j->status != JobStatus::Queued)
        bad_answer(l_, "schedule", "a decision for " + at(*j, ctx.now) + ", which is not waiting (it is running)");
      if (!started.insert(j->id()).second) bad_answer(l_, "schedule", "starts " + at(*j, ctx.now) + " twice");
      StartDecision s;
      s.job = j->id();
      s.gpus = gpu_refs(t[1], l_, "schedule", at(*j, ctx.now));
      check_gpus(s.gpus, *j, ctx.now, free, &ctx.cluster, given, l_, "schedule");
      free.take(s.gpus);
      d.start.push_back(std::move(s));
    }
    if (!wake.is_none()) {
      if (!(py::isinstance<py::float_>(wake) || py::isinstance<py::int_>(wake)))
        bad_answer(l_, "schedule", "wake_at_s must be a number of seconds or None, not " + type_name(wake) + when(ctx.now));
      const double w = wake.cast<double>();
      const Time t = from_seconds(w);
      if (!std::isfinite(w) || t <= ctx.now)
        bad_answer(l_, "schedule", fmt::format("wake_at_s = {} is not after now{}", w, when(ctx.now)));
      d.wake_at = t;
    }
    return d;
  }

 private:
  static std::string when(Time now) { return fmt::format(" at t={} s", to_seconds(now)); }
  py::iterable iterable(const py::object& o, const char* key, Time now) {
    if (!py::isinstance<py::iterable>(o) || py::isinstance<py::str>(o))
      bad_answer(l_, "schedule", std::string(key) + " must be a list, not " + type_name(o) + when(now));
    return py::reinterpret_borrow<py::iterable>(o);
  }
  Loaded l_;
  py::object schedule_;
  std::string name_;
};

// A file's namespace, run once per process while the file is unchanged (the grammar and the builder both ask).
py::dict run_file(const std::string& file) {
  static auto* cache = new std::map<std::string, std::pair<std::filesystem::file_time_type, py::dict>>();
  const auto mtime = std::filesystem::last_write_time(file);
  const std::string key = std::filesystem::absolute(file).lexically_normal().string();
  if (auto it = cache->find(key); it != cache->end() && it->second.first == mtime) return it->second.second;
  py::dict ns;
  try {
    ns = py::module_::import("runpy").attr("run_path")(file, py::arg("run_name") = "ringmaster_policy");
  } catch (py::error_already_set& e) {
    throw InputError(file, 0, "file", "raised while loading:\n" + traceback_text(e));
  }
  (*cache)[key] = {mtime, ns};
  return ns;
}

// The class (or object) a part names, with its file and name for messages; not yet instantiated.
Loaded find_class(const std::map<std::string, std::string>& kv) {
  Loaded l;
  if (const auto o = kv.find("obj"); o != kv.end()) {
    std::size_t i = 0;
    try {
      i = std::stoul(o->second);
    } catch (...) {
      i = registered().size();
    }
    if (i >= registered().size()) throw InputError("--policy", 0, "py:obj", "no Python policy object " + o->second);
    l.obj = registered()[i];
    l.cls = py::str(py::getattr(l.obj, "__name__", py::str("policy"))).cast<std::string>();
    l.file = py::str(py::getattr(l.obj, "__module__", py::str("<python>"))).cast<std::string>();
    return l;
  }
  const auto f = kv.find("file"), c = kv.find("class");
  if (f == kv.end() || c == kv.end() || f->second.empty() || c->second.empty())
    throw InputError("--policy", 0, "py", "a Python part needs file=PATH and class=NAME (py:file=x.py;class=MyOrder)");
  l.file = f->second;
  l.cls = c->second;
  if (!std::filesystem::is_regular_file(l.file)) throw InputError(l.file, 0, "file", "no such Python file");
  py::dict ns = run_file(l.file);
  if (!ns.contains(l.cls)) {
    std::string names;
    for (const auto& [k, v] : ns)
      if (py::isinstance<py::type>(v) && !k.cast<std::string>().starts_with("_"))
        names += (names.empty() ? "" : ", ") + k.cast<std::string>();
    throw InputError(l.file, 0, "class", "no class " + l.cls + " in it (it defines: " + (names.empty() ? "none" : names) + ")");
  }
  l.obj = ns[py::str(l.cls)];
  return l;
}

// Where a class plugs in: its `point` attribute, else the first of schedule, key, place/filter/score, allocate
// that it defines.
Point point_of(const Loaded& l) {
  auto defines = [&](const char* m) { return py::hasattr(l.obj, m) && !l.obj.attr(m).is_none(); };
  if (defines("point")) {
    const std::string p = py::str(l.obj.attr("point")).cast<std::string>();
    if (p == "order") return Point::Order;
    if (p == "placement") return Point::Placement;
    if (p == "allocation") return Point::Allocation;
    if (p == "scheduler") return Point::Scheduler;
    throw InputError(l.file, 0, l.cls + ".point", "must be 'order', 'placement', 'allocation' or 'scheduler', not '" + p + "'");
  }
  if (defines("schedule")) return Point::Scheduler;
  if (defines("key")) return Point::Order;
  if (defines("place") || defines("score") || defines("filter")) return Point::Placement;
  if (defines("allocate")) return Point::Allocation;
  // A plain function (not a class) is a queue order's key; its attributes are the flags (fn.preemptive = True).
  if (!py::isinstance<py::type>(l.obj) && PyCallable_Check(l.obj.ptr())) return Point::Order;
  throw InputError(l.file, 0, l.cls,
                   "is not a policy: it defines none of key (a queue order), place or filter/score (a placement), "
                   "allocate (an allocation), schedule (a whole scheduler); docs/python.md lists them");
}

// The class a part names, instantiated with the part's other parameters as keywords.
Loaded load(const std::map<std::string, std::string>& kv, Point want) {
  Loaded l = find_class(kv);
  static const char* const kWhat[] = {"a queue order", "a placement", "a CPU/memory allocation"};
  if (const Point p = point_of(l); p != want)
    throw InputError(l.file, 0, l.cls,
                     std::string("is used as ") + (want == Point::Scheduler ? "a whole scheduler" : kWhat[static_cast<int>(want)]) +
                         " here, but its methods make it " +
                         (p == Point::Scheduler ? "a whole scheduler" : kWhat[static_cast<int>(p)]));
  py::dict kwargs;
  for (const auto& [k, v] : kv)
    if (k != "file" && k != "class" && k != "obj") kwargs[py::str(k)] = py::str(v);
  try {
    if (py::isinstance<py::type>(l.obj)) l.obj = l.obj(**kwargs);
  } catch (py::error_already_set& e) {
    user_error(e, l, "__init__", nullptr, -1);
  }
  return l;
}

class Policies final : public PythonPolicies {
 public:
  explicit Policies(void (*before)()) : before_(before) {}
  std::unique_ptr<QueueOrder> order(const std::map<std::string, std::string>& kv, std::uint64_t) override {
    start();
    return std::make_unique<PyOrder>(load(kv, Point::Order));
  }
  std::unique_ptr<Placement> placement(const std::map<std::string, std::string>& kv, std::uint64_t) override {
    start();
    return std::make_unique<PyPlacement>(load(kv, Point::Placement));
  }
  std::unique_ptr<Allocation> allocation(const std::map<std::string, std::string>& kv, std::uint64_t) override {
    start();
    return std::make_unique<PyAllocation>(load(kv, Point::Allocation));
  }
  std::unique_ptr<Scheduler> scheduler(const std::map<std::string, std::string>& kv, std::uint64_t) override {
    start();
    return std::make_unique<PyScheduler>(load(kv, Point::Scheduler));
  }
  Point point(const std::map<std::string, std::string>& kv) override {
    start();
    return point_of(find_class(kv));
  }

 private:
  void start() {
    std::call_once(once_, [this] {
      if (before_) before_();
    });
  }
  void (*before_)();
  std::once_flag once_;
};

}  // namespace

void bind_cluster_views(py::module_& m);

void bind_views(py::module_& m) {
  py::class_<JobView>(m, "JobView",
                      "A job as a policy sees it at the pass's time: read-only (docs/python.md lists every field).")
      .def_property_readonly("id", [](const JobView& v) { return live(v).j->spec->id; })
      .def_property_readonly("name", [](const JobView& v) { return live(v).j->spec->name; })
      .def_property_readonly("model", [](const JobView& v) { return live(v).j->spec->model; })
      .def_property_readonly("user", [](const JobView& v) { return live(v).j->spec->user; })
      .def_property_readonly("gpu_type", [](const JobView& v) { return live(v).j->spec->gpu_type; })
      .def_property_readonly("num_gpus", [](const JobView& v) { return live(v).j->spec->num_gpus; })
      .def_property_readonly("elastic", [](const JobView& v) { return live(v).j->spec->elastic(); })
      .def_property_readonly("gpus_min", [](const JobView& v) { return live(v).j->spec->min_gpus(); })
      .def_property_readonly("gpus_max", [](const JobView& v) { return live(v).j->spec->max_gpus(); })
      .def_property_readonly("width", [](const JobView& v) { return live(v).j->width(); })
      .def_property_readonly("reallocations", [](const JobView& v) { return live(v).j->reallocations; })
      .def_property_readonly("iterations", [](const JobView& v) { return live(v).j->spec->iterations; })
      .def_property_readonly("submit_s", [](const JobView& v) { return to_seconds(live(v).j->spec->submit); })
      .def_property_readonly("arrival_s", [](const JobView& v) { return live(v).j->arrival_s; })
      .def_property_readonly("running", [](const JobView& v) { return live(v).j->running(); })
      .def_property_readonly("waiting", [](const JobView& v) { return live(v).j->status == JobStatus::Queued; })
      .def_property_readonly("preemptions", [](const JobView& v) { return live(v).j->preemptions; })
      .def_property_readonly("first_start_s", [](const JobView& v) { return opt_seconds(live(v).j->first_start); })
      .def_property_readonly("remaining", [](const JobView& v) { return live(v).j->remaining_at(v.now); })
      .def_property_readonly("remaining_time_s", [](const JobView& v) { return live(v).j->remaining_time_s(v.now); })
      .def_property_readonly("total_time_s", [](const JobView& v) { return live(v).j->total_time_s(); })
      .def_property_readonly("attained_gpu_s", [](const JobView& v) { return live(v).j->attained_gpu_s(v.now); })
      .def_property_readonly("ideal_iter_time_s", [](const JobView& v) { return live(v).j->ideal_iter_time; })
      .def_property_readonly("speedup", [](const JobView& v) { return live(v).j->speedup; })
      .def_property_readonly("gpu_mem_mb", [](const JobView& v) { return live(v).j->spec->gpu_mem_mb; })
      .def_property_readonly("cpu_demand", [](const JobView& v) { return live(v).j->cpu_demand; })
      .def_property_readonly("mem_demand_gb", [](const JobView& v) { return live(v).j->mem_demand; })
      .def_property_readonly("gpus",
                             [](const JobView& v) {
                               py::list out;
                               for (const auto& g : live(v).j->gpus) out.append(py::make_tuple(g.server, g.gpu));
                               return out;
                             })
      .def_property_readonly("now_s", [](const JobView& v) { return to_seconds(v.now); })
      .def_property_readonly("now_us", [](const JobView& v) { return v.now; })
      .def("first_time_attained",
           [](const JobView& v, double gpu_s) {
             // Beyond 1e12 GPU-seconds (or NaN, inf) the answer overflows the microsecond clock: refused, never a hang.
             if (!(gpu_s >= 0 && gpu_s <= 1e12))
               throw py::value_error(fmt::format("first_time_attained: gpu_s must be in [0, 1e12], got {}", gpu_s));
             return first_time_attained(*live(v).j, v.now, gpu_s);
           },
           py::arg("gpu_s"),
           "The first microsecond after now at which the job's attained GPU-seconds reach gpu_s, running from now on "
           "(for next_change).")
      .def("__repr__", [](const JobView& v) {
        return fmt::format("<JobView {} gpus={} {} t={}s>", live(v).j->spec->name, live(v).j->width(),
                           live(v).j->running() ? "running" : "waiting", to_seconds(v.now));
      });
  bind_cluster_views(m);
}

void bind_cluster_views(py::module_& m) {
  auto spec = [](const ServerView& v) -> const ServerSpec& { return live(v).free->spec().servers[v.s]; };
  py::class_<ServerView>(m, "ServerView",
                         "A server as a policy sees it within one decision (read-only; valid during the call).")
      .def_property_readonly("index", [](const ServerView& v) { return v.s; })
      .def_property_readonly("gpus", [spec](const ServerView& v) { return spec(v).gpus; })
      .def_property_readonly("free_gpus", [](const ServerView& v) { return live(v).free->free_on(v.s); })
      .def_property_readonly("free_gpu_ids",
                             [spec](const ServerView& v) {
                               py::list out;
                               for (int g = 0; g < spec(v).gpus; ++g)
                                 if (live(v).free->is_free({v.s, g})) out.append(g);
                               return out;
                             })
      .def_property_readonly("gpu_type", [spec](const ServerView& v) { return spec(v).gpu_type; })
      .def_property_readonly("gpu_speed", [spec](const ServerView& v) { return spec(v).gpu_speed; })
      .def_property_readonly("gpu_mem_gb", [spec](const ServerView& v) { return spec(v).gpu_mem_gb; })
      .def_property_readonly("cpus", [spec](const ServerView& v) { return spec(v).cpus; })
      .def_property_readonly("dram_gb", [spec](const ServerView& v) { return spec(v).dram_gb; })
      .def_property_readonly("free_cpus", [](const ServerView& v) { return live(v).free->free_cpus(v.s); })
      .def_property_readonly("free_mem_gb", [](const ServerView& v) { return live(v).free->free_mem_gb(v.s); })
      .def_property_readonly("nic_gbps", [spec](const ServerView& v) { return spec(v).nic_gbps; })
      .def_property_readonly("rack", [spec](const ServerView& v) { return spec(v).rack; })
      .def("__repr__", [spec](const ServerView& v) {
        return fmt::format("<ServerView {} {} free={}/{}>", v.s, spec(v).gpu_type, live(v).free->free_on(v.s), spec(v).gpus);
      });
  py::class_<JobList>(m, "JobList", "Jobs in arrival order, each view made when read (a read-only sequence).")
      .def("__len__", [](const JobList& l) { return live(l).jobs->size(); })
      .def("__getitem__",
           [](const JobList& l, long i) {
             const long n = static_cast<long>(live(l).jobs->size());
             if (i < 0) i += n;
             if (i < 0 || i >= n) throw py::index_error("job index out of range");
             return JobView{(*live(l).jobs)[i], l.now};
           })
      .def("__iter__", [](const JobList& l) { return JobListIter{l, 0}; })
      .def("__bool__", [](const JobList& l) { return !live(l).jobs->empty(); })
      .def("__repr__", [](const JobList& l) { return fmt::format("<JobList of {} jobs>", live(l).jobs->size()); });
  py::class_<JobListIter>(m, "JobListIterator")
      .def("__iter__", [](JobListIter& it) -> JobListIter& { return it; }, py::return_value_policy::reference_internal)
      .def("__next__", [](JobListIter& it) {
        if (it.i >= live(it.list).jobs->size()) throw py::stop_iteration();
        return JobView{(*live(it.list).jobs)[it.i++], it.list.now};
      });
  py::class_<ClusterView>(m, "ClusterView",
                          "The cluster at a scheduling pass, as a whole Python scheduler sees it (read-only).")
      .def_property_readonly("now_s", [](const ClusterView& v) { return to_seconds(v.now); })
      .def_property_readonly("now_us", [](const ClusterView& v) { return v.now; })
      .def_property_readonly("jobs", [](const ClusterView& v) { return job_list(live(v), 0); })
      .def_property_readonly("waiting", [](const ClusterView& v) { return job_list(live(v), 1); })
      .def_property_readonly("running", [](const ClusterView& v) { return job_list(live(v), 2); })
      .def_property_readonly("servers", [](const ClusterView& v) { return server_list(*v.free, false); })
      .def_property_readonly("free_servers", [](const ClusterView& v) { return server_list(*v.free, true); })
      .def_property_readonly("free_gpus", [](const ClusterView& v) { return live(v).free->total_free(); })
      .def("__repr__", [](const ClusterView& v) {
        return fmt::format("<ClusterView t={}s jobs={} free_gpus={}>", to_seconds(v.now), live(v).jobs.size(), live(v).free->total_free());
      });
}

void end_python_views() { ++g_view_epoch; }

void install_python_policies(void (*before_first_use)()) {
  static Policies* p = new Policies(before_first_use);  // lives as long as the program
  set_python_policies(p);
}

std::string register_policy_object(py::object cls) {
  registered().push_back(std::move(cls));
  return "py:obj=" + std::to_string(registered().size() - 1);
}

}  // namespace rm::python
