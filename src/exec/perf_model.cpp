#include "exec/perf_model.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "cluster/gpu_types.h"
#include "core/embedded_data.h"
#include "core/error.h"
#include "workload/model_catalogue.h"
#include "workload/parse_util.h"

namespace rm {
namespace {

// The fewest servers of one type: full servers of its largest size, then the rest.
std::vector<int> consolidated_shape(int n, int per_server) {
  std::vector<int> s;
  for (; n > 0; n -= per_server) s.push_back(std::min(n, per_server));
  return s;
}

class AnalyticPerf final : public PerfModel {
 public:
  explicit AnalyticPerf(const ClusterSpec& c) : cluster_(c), types_(gpu_types_of(c)) {
    for (const auto& t : types_.names) laws_.emplace_back(c, t);
  }
  std::string name() const override { return "analytic"; }
  bool contends() const override { return true; }
  double iteration_s(const JobSpec& j, const Span& span, const std::function<int(int)>& k_of,
                     const std::function<int(int)>& rack_k = nullptr) override {
    return iteration_time_s(j, cluster_, span, k_of, rack_k);
  }
  double ideal_iteration_s(const JobSpec& j, int type) override {
    return laws_.at(static_cast<std::size_t>(type)).iteration_s(j);
  }

 private:
  const ClusterSpec& cluster_;
  GpuTypes types_;
  std::vector<IdealLaw> laws_;
};

// data/perf_map.csv: catalogue model -> the table standing for it, per source.
const std::map<std::string, std::array<std::string, 3>>& perf_map() {
  static const auto m = [] {
    std::map<std::string, std::array<std::string, 3>> out;
    for_each_table_row(std::string(embedded::get("perf_map.csv")), [&](const std::vector<std::string>& f, long, bool header) {
      if (header || f.size() < 4) return;
      out[ModelCatalogue::normalise(f[0])] = {f[1], f[2], f[3]};
    });
    return out;
  }();
  return m;
}

class MeasuredPerf final : public PerfModel {
 public:
  MeasuredPerf(const ClusterSpec& c, std::string name, int column, std::unique_ptr<MeasuredSource> src)
      : name_(std::move(name)), column_(column), src_(std::move(src)), cluster_(c), types_(gpu_types_of(c)),
        analytic_(c) {
    per_server_.assign(types_.names.size(), 0);
    for (std::size_t s = 0; s < c.servers.size(); ++s) {
      int& m = per_server_[static_cast<std::size_t>(types_.of_server[s])];
      m = std::max(m, c.servers[s].gpus);
    }
  }
  std::string name() const override { return name_; }
  bool contends() const override { return false; }  // measured alone: docs/perf-model.md

  double iteration_s(const JobSpec& j, const Span& span, const std::function<int(int)>& k_of,
                     const std::function<int(int)>& rack_k = nullptr) override {
    const std::string& type = cluster_.servers[static_cast<std::size_t>(span.servers.at(0))].gpu_type;
    if (auto v = measured(j, type, span.gpus_on)) {
      *v = at_least_best(j, type, *v);
      // No source measured across an oversubscribed rack uplink: the analytic law's rack factor on top.
      if (!crosses_oversubscribed_racks(cluster_, span)) return *v;
      const auto one = [](int) { return 1; };
      return *v * analytic_.iteration_s(j, span, one, rack_k) / analytic_.iteration_s(j, span, one);
    }
    if (!quiet_) fallback_.insert(j.id);
    return at_least_best(j, type, analytic_.iteration_s(j, span, k_of, rack_k));
  }
  double ideal_iteration_s(const JobSpec& j, int type) override {
    const auto t = static_cast<std::size_t>(type);
    if (auto v = measured(j, types_.names.at(t), consolidated_shape(j.num_gpus, per_server_[t]))) return *v;
    if (!quiet_) fallback_.insert(j.id);
    return analytic_.ideal_iteration_s(j, type);
  }
  void report(std::vector<std::pair<std::string, double>>& extra) const override {
    extra.emplace_back("perf_fallback_jobs", static_cast<double>(fallback_.size()));
    if (!floored_.empty()) extra.emplace_back("perf_floored_jobs", static_cast<double>(floored_.size()));
  }
  void quiet(bool on) override { quiet_ = on; }
  void start_run() override {
    fallback_.clear();
    floored_.clear();
  }
  std::optional<double> placement_factor(const JobSpec& j, const Span& span, int type) override {
    const auto t = static_cast<std::size_t>(type);
    const auto got = measured(j, types_.names.at(t), span.gpus_on);
    const auto best = measured(j, types_.names.at(t), consolidated_shape(j.num_gpus, per_server_[t]));
    if (got && best) return std::max(1.0, *got / *best);  // never faster than its best placement (at_least_best)
    if (!quiet_) fallback_.insert(j.id);
    return std::nullopt;
  }
  // Whether some GPU type of the cluster has a table for j (at its best placement there).
  bool covers(const JobSpec& j) override {
    for (std::size_t t = 0; t < types_.names.size(); ++t)
      if (measured(j, types_.names[t], consolidated_shape(j.num_gpus, per_server_[t]))) return true;
    return false;
  }
  // The job's table name in this source ("" = none).
  const std::string& app_of(const JobSpec& j) {
    auto it = app_.find(j.model);
    if (it == app_.end()) {
      const auto& m = perf_map();
      auto f = m.find(ModelCatalogue::normalise(j.model));
      if (f == m.end())  // an alias of the catalogue (res50 -> resnet50): its row's name
        if (const auto p = ModelCatalogue::builtin().find(j.model)) f = m.find(ModelCatalogue::normalise(p->name));
      it = app_.emplace(j.model, f == m.end() ? std::string() : f->second[static_cast<std::size_t>(column_)]).first;
    }
    return it->second;
  }

 private:
  bool quiet_ = false;  // a policy's what-if questions (quiet()) are not counted
  // A placement is never faster than the job's best placement on its type (its ideal: measured, or the analytic
  // law's where the best placement is not measured): a table row of a spread placement measured at another local
  // batch (Sia's rows by node and GPU count) can read faster than the one-server row, an artefact, not a speed-up.
  // Such a time is raised to the ideal (perf_floored_jobs in summary.json).
  double at_least_best(const JobSpec& j, const std::string& type, double v) {
    const int t = types_.index(type);
    if (t < 0) return v;
    const double best = ideal_iteration_s(j, t);  // measured, or the analytic law's where the best is not measured
    if (v >= best) return v;
    if (!quiet_) floored_.insert(j.id);
    return best;
  }
  std::optional<double> measured(const JobSpec& j, const std::string& type, const std::vector<int>& shape) {
    const std::string& app = app_of(j);
    if (app.empty()) return std::nullopt;
    return src_->iteration_s(app, j, type, shape);
  }

  std::string name_;
  int column_;
  std::unique_ptr<MeasuredSource> src_;
  const ClusterSpec& cluster_;
  GpuTypes types_;
  AnalyticPerf analytic_;
  std::vector<int> per_server_;  // the most GPUs of a server, per type
  std::unordered_map<std::string, std::string> app_;
  std::unordered_set<JobId> fallback_;
  std::unordered_set<JobId> floored_;
};

}  // namespace

IdealTimes PerfModel::ideal_times(int type) {
  return {[this, type](const ClusterSpec& c) {
    const auto law = std::make_shared<IdealLaw>(c, gpu_types_of(c).names.at(static_cast<std::size_t>(type)));
    return BoundIdealTimes{[law](const JobSpec& j) { return law->comm_s(j); },
                           [this, type](const JobSpec& j) { return ideal_iteration_s(j, type); }};
  }};
}

const std::vector<std::string>& perf_model_names() {
  static const std::vector<std::string> v = {"analytic", "trace", "measured:pollux", "measured:sia", "measured:gavel",
                                             "measured:elasticflow"};
  return v;
}

std::unique_ptr<PerfModel> make_perf_model(const std::string& name, const std::string& data_dir,
                                           const ClusterSpec& cluster) {
  if (name == "analytic" || name == "trace") return std::make_unique<AnalyticPerf>(cluster);
  if (!is_measured_perf_model(name))
    throw InputError("--perf-model", 0, name, "must be one of analytic, trace, measured:pollux, measured:sia, "
                                              "measured:gavel, measured:elasticflow");
  if (!std::filesystem::is_directory(data_dir))
    throw InputError("--data-dir", 0, data_dir, "no such folder (the measured tables are read from it; default "
                                                "../shared/traces)");
  const std::string src = name.substr(9);
  const auto types = gpu_types_of(cluster).names;
  if (src == "pollux" || src == "sia")
    return std::make_unique<MeasuredPerf>(cluster, name, 0, load_pollux_source(data_dir, src == "sia", types));
  if (src == "gavel") return std::make_unique<MeasuredPerf>(cluster, name, 1, load_gavel_source(data_dir, types));
  if (src == "elasticflow")
    return std::make_unique<MeasuredPerf>(cluster, name, 2, load_elasticflow_source(data_dir, types));
  throw InputError("--perf-model", 0, name, "unknown measured source (pollux, sia, gavel, elasticflow)");
}

namespace {
// The GPU types a measured source has tables for (data/gpu_types.csv; Pollux measured T4 only).
std::vector<std::string> measured_types(const std::string& name) {
  std::vector<std::string> out;
  for (const auto& k : known_gpu_types())
    if (name == "measured:pollux"        ? k.name == "t4"
        : name == "measured:sia"         ? !k.sia.empty()
        : name == "measured:gavel"       ? !k.gavel.empty()
        : name == "measured:elasticflow" ? !k.elasticflow.empty()
                                         : false)
      out.push_back(k.name);
  return out;
}
std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}
}  // namespace

void check_perf_coverage(PerfModel& m, const std::vector<JobSpec>& jobs, const ClusterSpec& cluster) {
  if (jobs.empty()) return;
  for (const auto& j : jobs)
    if (m.covers(j)) return;
  const std::vector<std::string> measured = measured_types(m.name()), types = gpu_types_of(cluster).names;
  const bool any = std::any_of(types.begin(), types.end(), [&](const std::string& t) {
    return std::find(measured.begin(), measured.end(), t) != measured.end();
  });
  if (!measured.empty() && !any)
    throw InputError("--perf-model", 0, m.name(),
                     "measured GPU types " + join(measured) + " only; the cluster's servers are " + join(types) +
                         ": give them one of those types (gpu_type in the cluster YAML), or use --perf-model analytic");
  throw InputError("--perf-model", 0, m.name(),
                   "no job's model has a table in this source (data/perf_map.csv; first job: " + jobs.front().model +
                       ") on the cluster's GPU types (" + join(types) + "): use --perf-model analytic, or a source that "
                       "measured these models");
}

}  // namespace rm
