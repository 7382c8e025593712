// The extension module `ringmaster._core` (docs/python.md): the views, InputError, and simulate() over the CLI's
// own options (cli/common.h: the same names, the same validation and messages), results kept in memory.
#include <CLI/CLI.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <sstream>

#include "cli/common.h"
#include "core/error.h"
#include "core/suggest.h"
#include "run/simulation.h"
#include "python/python_layer.h"
#include "rm_version.h"
#include "cli/sweep.h"

namespace py = pybind11;

namespace {

using namespace rm;

// args: simulate's command-line arguments after `simulate`. One dict per policy: policy, jobs_csv, timeseries_csv,
// gpus_csv, summary_json, warnings; written under --out as the CLI writes them when write is true.
py::list run_simulate(const std::vector<std::string>& args, bool write) {
  CLI::App app{"ringmaster"};
  cli::SimArgs a;
  CLI::App* sub = cli::add_simulate_options(app, a, "simulate", "simulate");
  // An unknown keyword, named as the caller wrote it (max_jbs), with the nearest real one.
  std::vector<std::string> names;
  for (const CLI::Option* o : sub->get_options())
    for (const auto& l : o->get_lnames()) names.push_back(l);
  for (const auto& w : args)
    if (w.starts_with("--")) {
      const std::string name = w.substr(2, w.find('=') == std::string::npos ? std::string::npos : w.find('=') - 2);
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        std::vector<std::string> kw;
        for (auto n : names) kw.push_back((std::replace(n.begin(), n.end(), '-', '_'), n));
        std::string key = name;
        std::replace(key.begin(), key.end(), '-', '_');
        throw InputError(key, 0, "", "not an option of simulate" + did_you_mean(key, kw));
      }
    }
  std::vector<std::string> words = {"ringmaster", "simulate"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<const char*> argv;
  for (const auto& w : words) argv.push_back(w.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    throw InputError(e.what());
  }
  std::vector<RunPlan> plans = cli::plan_runs(a.cfg, a.policies, sub->count("--trace") > 0);
  py::list out;
  for (auto& plan : plans) {
    struct EndViews {  // views a policy kept from this run raise from now on, whether it ended or failed
      ~EndViews() { python::end_python_views(); }
    } end_views;
    auto r = simulate(plan);
    if (plan.label != plan.policy.text) r->info.policy_label = plan.label;
    std::ostringstream jobs, ts, gpus;
    write_jobs_csv(jobs, r->record, r->unschedulable);
    write_timeseries_csv(ts, r->record);
    if (!r->record.stretches.empty()) write_gpus_csv(gpus, r->record);
    py::list warnings;
    for (const auto& u : r->unschedulable) warnings.append("unschedulable: " + u.reason);
    for (const auto& [from, to] : r->models.replaced)
      warnings.append(cli::replaced_model_note(from, to, a.cfg.unknown_model));
    if (write) {
      const std::string dir = plans.size() == 1 ? a.out : a.out + "/" + cli::dir_name(plan.label);
      write_outputs(dir, r->record, r->unschedulable, r->summary, r->info);
    }
    py::dict d;
    d["policy"] = plan.policy.text;
    d["label"] = plan.label;
    d["jobs_csv"] = jobs.str();
    d["timeseries_csv"] = ts.str();
    d["gpus_csv"] = gpus.str();
    d["summary_json"] = summary_json(r->summary, r->info);
    d["warnings"] = warnings;
    out.append(d);
  }
  return out;
}

// args: sweep's command-line arguments; `self`: the ringmaster binary its runs are child processes of. The exit status
// of `ringmaster sweep` (0 all complete, 1 some failed); bad arguments raise InputError as the CLI reports them.
int run_sweep(const std::vector<std::string>& args, const std::string& self) {
  const auto opts = cli::sweep_simulate_options();
  py::gil_scoped_release unlocked;  // the runs are processes: no Python here while they go
  return sweep::run(args, opts, self);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "ringmaster's C++ core (use the `ringmaster` package)";
  py::register_exception<InputError>(m, "InputError", PyExc_ValueError);
  rm::python::bind_views(m);
  rm::python::install_python_policies(nullptr);
  m.attr("version") = RM_VERSION;  // ringmaster.__version__: the git describe of the build
  m.def("run_simulate", &run_simulate, py::arg("args"), py::arg("write") = false);
  m.def("run_sweep", &run_sweep, py::arg("args"), py::arg("self"));
  m.attr("BUILD_BINARY") = RM_BINARY_PATH;
  m.def("register_policy", &rm::python::register_policy_object, py::arg("cls"));
}
