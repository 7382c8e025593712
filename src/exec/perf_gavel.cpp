// measured:gavel and measured:elasticflow (docs/perf-model.md).
// Gavel: steps/s (every worker's, summed) per worker type for (job type, GPUs), consolidated (the job on one server) or not
// (`<type>_unconsolidated`), from philly-gavel-vc/throughputs/simulation_throughputs.json (Gavel c4fa400). GPU counts
// Gavel measured: 1, 2, 4, 8; others are not measured. A job type's batch: the job's (per worker), else the nearest
// measured one (ties to the smaller).
// ElasticFlow: iterations/s per global batch (rows) and GPUs (columns 1, 2, 4, ..., 64) on A100 and T4
// (elasticflow-artifact/scheduler/throughputs_<A100|T4>/<model>.csv), measured consolidated: the placement does not
// change it. GPU counts between two measured columns: linear in GPUs; global batch = per worker x GPUs, the nearest
// measured row (ties to the smaller).

#include <cmath>
#include <filesystem>
#include <map>

#include "cluster/gpu_types.h"
#include "core/error.h"
#include "exec/perf_model.h"
#include "workload/gavel_throughputs.h"
#include "workload/parse_util.h"
#include "workload/table_reader.h"

namespace rm {
namespace {

// The entry of `m` nearest to x (ties to the smaller); m not empty.
template <class M>
typename M::const_iterator nearest(const M& m, double x) {
  auto hi = m.lower_bound(x);
  if (hi == m.begin()) return hi;
  if (hi == m.end()) return std::prev(hi);
  auto lo = std::prev(hi);
  return x - lo->first <= hi->first - x ? lo : hi;
}

class GavelSource final : public MeasuredSource {
 public:
  GavelSource(const std::string& data_dir, const std::vector<std::string>& types) {
    const GavelThroughputs table =
        GavelThroughputs::load(data_dir + "/philly-gavel-vc/throughputs/simulation_throughputs.json");
    for (const auto& type : types) {
      const KnownGpuType* k = find_gpu_type(type);
      if (!k || k->gavel.empty()) continue;
      for (int spread = 0; spread < 2; ++spread) {
        const std::string key = k->gavel + (spread ? "_unconsolidated" : "");
        const auto* all = table.isolated_all(key);
        if (!all) throw InputError(table.path(), 0, key, "worker type missing from the table");
        for (const auto& [job, steps] : *all) {
          const auto& [jt, gpus] = job;  // ("ResNet-50 (batch size 64)", 2)
          const auto paren = jt.find(" (batch size ");
          const std::string model = jt.substr(0, paren);
          const int bsz = paren == std::string::npos ? 0 : std::atoi(jt.c_str() + paren + 13);
          if (steps == 0) continue;  // Gavel's 0: the job does not run on this type (e.g. out of memory): not measured
          table_[{type, spread, model, gpus}][bsz] = steps;
        }
      }
    }
  }
  std::optional<double> iteration_s(const std::string& app, const JobSpec& j, const std::string& type,
                                    const std::vector<int>& shape) override {
    const auto it = table_.find({type, shape.size() > 1 ? 1 : 0, app, j.num_gpus});
    if (it == table_.end()) return std::nullopt;
    // Gavel's steps/s of a job on n GPUs count every worker's steps (they grow with n; its simulator splits a
    // job's steps over its workers, G10 of goldens/peers/gavel): one iteration, a step of every worker, is n / that.
    return j.num_gpus / nearest(it->second, j.batch_size)->second;
  }
  std::vector<MeasuredStep> steps() const {
    std::vector<MeasuredStep> out;
    for (const auto& [key, by_bsz] : table_) {
      const auto& [type, spread, model, gpus] = key;
      const auto one = table_.find({type, 0, model, 1});
      if (gpus < 2 || one == table_.end()) continue;
      for (const auto& [bsz, steps] : by_bsz)
        if (const auto s1 = one->second.find(bsz); s1 != one->second.end())
          out.push_back({"gavel", model, type, spread ? std::vector<int>(gpus, 1) : std::vector<int>{gpus}, bsz,
                         gpus / steps, 1.0 / s1->second});
    }
    return out;
  }

 private:
  std::map<std::tuple<std::string, int, std::string, int>, std::map<double, double>> table_;
};

class ElasticFlowSource final : public MeasuredSource {
 public:
  ElasticFlowSource(const std::string& data_dir, const std::vector<std::string>& types) : dir_(data_dir) {
    for (const auto& type : types)
      if (const KnownGpuType* k = find_gpu_type(type); k && !k->elasticflow.empty()) dirs_[type] = k->elasticflow;
  }
  std::optional<double> iteration_s(const std::string& app, const JobSpec& j, const std::string& type,
                                    const std::vector<int>&) override {
    const auto d = dirs_.find(type);
    if (d == dirs_.end()) return std::nullopt;
    const Table* t = table(d->second, app);
    if (!t || t->empty()) return std::nullopt;
    const double batch = (j.batch_size > 0 ? j.batch_size : t->begin()->first) * (j.batch_size > 0 ? j.num_gpus : 1);
    const auto& row = nearest(*t, batch)->second;  // GPUs -> iterations/s
    const auto hi = row.lower_bound(j.num_gpus);
    if (hi == row.end()) return std::nullopt;
    if (hi->first == j.num_gpus) return 1.0 / hi->second;
    if (hi == row.begin()) return std::nullopt;
    const auto lo = std::prev(hi);
    const double w = (j.num_gpus - lo->first) / (hi->first - lo->first);
    return 1.0 / (lo->second + w * (hi->second - lo->second));
  }

 private:
  using Table = std::map<double, std::map<double, double>>;  // global batch -> GPUs -> iterations/s
  const Table* table(const std::string& sub, const std::string& app) {
    const std::string path = dir_ + "/elasticflow-artifact/scheduler/throughputs_" + sub + "/" + app + ".csv";
    auto it = tables_.find(path);
    if (it != tables_.end()) return it->second ? &*it->second : nullptr;
    if (!std::filesystem::exists(path)) {
      tables_.emplace(path, std::nullopt);
      return nullptr;
    }
    const std::string text = TableReader::load(path);
    TableReader t(path, ',', &text);
    std::vector<std::string> row;
    if (!t.next(row) || row.empty() || trim(row[0]) != "global_batch_size")
      throw InputError(path, t.line(), "global_batch_size", "required column missing");
    std::vector<double> gpus;
    for (std::size_t c = 1; c < row.size(); ++c) gpus.push_back(parse_double(row[c], path, t.line(), "GPUs"));
    Table tab;
    while (t.next(row)) {
      if (row.size() != gpus.size() + 1) throw InputError(path, t.line(), "", "row and header differ in fields");
      auto& r = tab[parse_double(row[0], path, t.line(), "global_batch_size")];
      for (std::size_t c = 1; c < row.size(); ++c) {
        const std::string v = trim(row[c]);
        if (v.empty() || v == "nan" || v == "NaN") continue;  // not measured (ElasticFlow's T4 tables write nan)
        const double x = parse_double(v, path, t.line(), std::to_string(static_cast<int>(gpus[c - 1])));
        // 0 is the artifact's own "not measured" (its A100 tables write 0 past 8 GPUs); a negative or absurd rate is
        // a damaged table, refused by name (issue 45), not a silent gap.
        if (x < 0 || x > 1e6)
          throw InputError(path, t.line(), std::to_string(static_cast<int>(gpus[c - 1])),
                           "'" + v + "' iterations per second: must be in [0, 1e6] (0 = not measured)");
        if (x > 0) r[gpus[c - 1]] = x;
      }
    }
    return &*tables_.emplace(path, std::move(tab)).first->second;
  }
  std::string dir_;
  std::map<std::string, std::string> dirs_;
  std::map<std::string, std::optional<Table>> tables_;
};

}  // namespace

std::vector<MeasuredStep> gavel_steps(const std::string& data_dir) {
  return GavelSource(data_dir, {"v100", "p100", "k80"}).steps();
}

std::unique_ptr<MeasuredSource> load_gavel_source(const std::string& data_dir, const std::vector<std::string>& types) {
  return std::make_unique<GavelSource>(data_dir, types);
}

std::unique_ptr<MeasuredSource> load_elasticflow_source(const std::string& data_dir,
                                                        const std::vector<std::string>& types) {
  return std::make_unique<ElasticFlowSource>(data_dir, types);
}

}  // namespace rm
