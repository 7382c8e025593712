// Python policies (python_layer.h): the job view, the queue-order adapter, the loader and the error reports.
#include "python/python_layer.h"

#include <pybind11/stl.h>

#include <filesystem>
#include <fmt/format.h>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "policy/external.h"
#include "policy/order/orders.h"
#include "sched/job_state.h"

namespace py = pybind11;

namespace rm::python {
namespace {

// What a Python policy sees of a job at the pass's time: read-only, the figures a C++ order reads (no simulator
// truth: the remaining work is what the backend expects at the job's ideal speed).
struct JobView {
  const JobState* j;
  Time now;
};

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
  std::string ctx = j ? fmt::format(" for job {} at t={} s", j->spec->name, to_seconds(now)) : std::string();
  throw InputError(where.file, 0, where.cls + "." + method, "raised" + ctx + ":\n" + traceback_text(e));
}

bool truthy_attr(const py::object& o, const char* name, bool dflt) {
  if (!py::hasattr(o, name)) return dflt;
  py::object v = o.attr(name);
  return v.is_none() ? dflt : v.cast<bool>();
}

class PyOrder final : public QueueOrder {
 public:
  explicit PyOrder(Loaded l) : l_(std::move(l)) {
    key_ = l_.obj.attr("key");
    if (py::hasattr(l_.obj, "next_change") && !l_.obj.attr("next_change").is_none()) next_ = l_.obj.attr("next_change");
    preemptive_ = truthy_attr(l_.obj, "preemptive", false);
    backfill_ = truthy_attr(l_.obj, "backfill", preemptive_);
    fixed_ = truthy_attr(l_.obj, "key_fixed_while_waiting", false);
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
    return r.cast<double>();
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
    const Time t = r.cast<Time>();
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

// The class a part names, instantiated with the part's other parameters as keywords.
Loaded load(const std::map<std::string, std::string>& kv) {
  Loaded l;
  py::object cls;
  py::dict kwargs;
  for (const auto& [k, v] : kv)
    if (k != "file" && k != "class" && k != "obj") kwargs[py::str(k)] = py::str(v);
  if (const auto o = kv.find("obj"); o != kv.end()) {
    std::size_t i = 0;
    try {
      i = std::stoul(o->second);
    } catch (...) {
    }
    if (i >= registered().size()) throw InputError("--policy", 0, "py:obj", "no Python policy object " + o->second);
    cls = registered()[i];
    l.cls = py::str(py::getattr(cls, "__name__", py::str("policy"))).cast<std::string>();
    l.file = py::str(py::getattr(cls, "__module__", py::str("<python>"))).cast<std::string>();
  } else {
    const auto f = kv.find("file"), c = kv.find("class");
    if (f == kv.end() || c == kv.end() || f->second.empty() || c->second.empty())
      throw InputError("--policy", 0, "py", "a Python part needs file=PATH and class=NAME (py:file=x.py;class=MyOrder)");
    l.file = f->second;
    l.cls = c->second;
    if (!std::filesystem::is_regular_file(l.file)) throw InputError(l.file, 0, "file", "no such Python file");
    py::dict ns;
    try {
      ns = py::module_::import("runpy").attr("run_path")(l.file, py::arg("run_name") = "ringmaster_policy");
    } catch (py::error_already_set& e) {
      throw InputError(l.file, 0, "file", "raised while loading:\n" + traceback_text(e));
    }
    if (!ns.contains(l.cls)) {
      std::string names;
      for (const auto& [k, v] : ns)
        if (py::isinstance<py::type>(v) && !k.cast<std::string>().starts_with("_"))
          names += (names.empty() ? "" : ", ") + k.cast<std::string>();
      throw InputError(l.file, 0, "class", "no class " + l.cls + " in it (it defines: " + (names.empty() ? "none" : names) + ")");
    }
    cls = ns[py::str(l.cls)];
  }
  try {
    l.obj = py::isinstance<py::type>(cls) ? cls(**kwargs) : cls;
  } catch (py::error_already_set& e) {
    user_error(e, l, "__init__", nullptr, 0);
  }
  return l;
}

class Policies final : public PythonPolicies {
 public:
  explicit Policies(void (*before)()) : before_(before) {}
  std::unique_ptr<QueueOrder> order(const std::map<std::string, std::string>& kv, std::uint64_t) override {
    std::call_once(once_, [this] {
      if (before_) before_();
    });
    Loaded l = load(kv);
    if (!py::hasattr(l.obj, "key"))
      throw InputError(l.file, 0, l.cls,
                       "is not a queue order: it has no key(self, job) method (docs/python.md lists the extension "
                       "points)");
    return std::make_unique<PyOrder>(std::move(l));
  }

 private:
  void (*before_)();
  std::once_flag once_;
};

}  // namespace

void bind_views(py::module_& m) {
  py::class_<JobView>(m, "JobView",
                      "A job as a policy sees it at the pass's time: read-only (docs/python.md lists every field).")
      .def_property_readonly("id", [](const JobView& v) { return v.j->spec->id; })
      .def_property_readonly("name", [](const JobView& v) { return v.j->spec->name; })
      .def_property_readonly("model", [](const JobView& v) { return v.j->spec->model; })
      .def_property_readonly("user", [](const JobView& v) { return v.j->spec->user; })
      .def_property_readonly("gpu_type", [](const JobView& v) { return v.j->spec->gpu_type; })
      .def_property_readonly("num_gpus", [](const JobView& v) { return v.j->spec->num_gpus; })
      .def_property_readonly("iterations", [](const JobView& v) { return v.j->spec->iterations; })
      .def_property_readonly("submit_s", [](const JobView& v) { return to_seconds(v.j->spec->submit); })
      .def_property_readonly("arrival_s", [](const JobView& v) { return v.j->arrival_s; })
      .def_property_readonly("running", [](const JobView& v) { return v.j->running(); })
      .def_property_readonly("waiting", [](const JobView& v) { return v.j->status == JobStatus::Queued; })
      .def_property_readonly("preemptions", [](const JobView& v) { return v.j->preemptions; })
      .def_property_readonly("first_start_s", [](const JobView& v) { return opt_seconds(v.j->first_start); })
      .def_property_readonly("remaining", [](const JobView& v) { return v.j->remaining_at(v.now); })
      .def_property_readonly("remaining_time_s", [](const JobView& v) { return v.j->remaining_time_s(v.now); })
      .def_property_readonly("total_time_s", [](const JobView& v) { return v.j->total_time_s(); })
      .def_property_readonly("attained_gpu_s", [](const JobView& v) { return v.j->attained_gpu_s(v.now); })
      .def_property_readonly("ideal_iter_time_s", [](const JobView& v) { return v.j->ideal_iter_time; })
      .def_property_readonly("speedup", [](const JobView& v) { return v.j->speedup; })
      .def_property_readonly("now_s", [](const JobView& v) { return to_seconds(v.now); })
      .def_property_readonly("now_us", [](const JobView& v) { return v.now; })
      .def("first_time_attained", [](const JobView& v, double gpu_s) { return first_time_attained(*v.j, v.now, gpu_s); },
           py::arg("gpu_s"),
           "The first microsecond after now at which the job's attained GPU-seconds reach gpu_s, running from now on "
           "(for next_change).")
      .def("__repr__", [](const JobView& v) {
        return fmt::format("<JobView {} gpus={} {} t={}s>", v.j->spec->name, v.j->spec->num_gpus,
                           v.j->running() ? "running" : "waiting", to_seconds(v.now));
      });
}

void install_python_policies(void (*before_first_use)()) {
  static Policies* p = new Policies(before_first_use);  // lives as long as the program
  set_python_policies(p);
}

std::string register_policy_object(py::object cls) {
  registered().push_back(std::move(cls));
  return "py:obj=" + std::to_string(registered().size() - 1);
}

}  // namespace rm::python
