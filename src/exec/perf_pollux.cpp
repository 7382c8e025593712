// measured:pollux and measured:sia (docs/perf-model.md): Pollux's and Sia's per-placement step and sync times
// (shared/traces/{pollux,sia}/traces/<app>/placements[-<gpu>].csv, scalability[-<gpu>].csv) and the validation
// curves that define a job's work. The rule for a placement, as Pollux's simulator (applications.py,
// adaptdl osdi21-artifact c793c70) reads these tables, except that nothing is extrapolated:
//   1. the placement measured (GPUs per node as digits, rotated to the smallest): linear in the local batch;
//   2. else, Pollux's own T4 tables: Pollux's Delaunay interpolation over (nodes capped at 16, GPUs, local batch) of
//      the placements' means and the scalability table (exec/pollux_app.h, as its simulator's get_throughput);
//      Sia's tables: the rows of the same (nodes, GPUs), placements averaged, plus the scalability table, linear in
//      the local batch;
//   3. else, or a local batch outside the measured range: not measured (the job runs under the analytic law).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "cluster/gpu_types.h"
#include "core/error.h"
#include "exec/perf_model.h"
#include "exec/pollux_app.h"
#include "workload/parse_util.h"
#include "workload/table_reader.h"

namespace rm {
namespace {

struct Pt {
  double bsz = 0, step = 0, sync = 0;
};

// Linear interpolation in the local batch, inside the measured range only.
std::optional<std::pair<double, double>> interpolate(const std::vector<Pt>& v, double x) {
  if (v.empty() || x < v.front().bsz || x > v.back().bsz) return std::nullopt;
  auto hi = std::lower_bound(v.begin(), v.end(), x, [](const Pt& p, double b) { return p.bsz < b; });
  if (hi->bsz == x) return std::pair{hi->step, hi->sync};
  const Pt& lo = *(hi - 1);
  const double w = (x - lo.bsz) / (hi->bsz - lo.bsz);
  return std::pair{lo.step + w * (hi->step - lo.step), lo.sync + w * (hi->sync - lo.sync)};
}

// Points by batch, duplicates averaged.
std::vector<Pt> settle(std::map<double, std::array<double, 3>>& m) {
  std::vector<Pt> v;
  for (const auto& [b, s] : m) v.push_back({b, s[0] / s[2], s[1] / s[2]});
  return v;
}

struct AppTable {
  std::map<std::string, std::vector<Pt>> by_id;
  std::map<std::pair<int, int>, std::vector<Pt>> by_nr;  // (nodes, GPUs)
  double max_local = 0;
};

// The columns a table must have; the error names the file, the header line and the column.
void read_header(TableReader& t, const std::vector<std::string>& need) {
  std::vector<std::string> row;
  if (!t.next(row)) throw InputError(t.file(), 0, "", "empty table");
  t.set_header(row);
  for (const auto& c : need)
    if (!t.column(c)) throw InputError(t.file(), t.line(), c, "required column missing");
}

double field(const TableReader& t, const std::vector<std::string>& row, const std::string& name) {
  return parse_double(t.require(row, name), t.file(), t.line(), name);
}

AppTable load_app(const std::string& placements, const std::string& scalability) {
  AppTable a;
  std::map<std::string, std::map<double, std::array<double, 3>>> by_id;
  std::map<std::pair<int, int>, std::map<double, std::array<double, 3>>> by_nr;
  {
    const std::string text = TableReader::load(placements);
    TableReader t(placements, ',', &text);
    read_header(t, {"placement", "local_bsz", "step_time", "sync_time"});
    std::vector<std::string> row;
    while (t.next(row)) {
      std::string id = trim(t.require(row, "placement"));
      if (const auto dot = id.find('.'); dot != std::string::npos) id = id.substr(0, dot);
      int nodes = 0, gpus = 0;
      for (char c : id) {
        if (c < '1' || c > '9') throw InputError(placements, t.line(), "placement", "'" + id + "' is not GPUs per node");
        ++nodes, gpus += c - '0';
      }
      if (id.empty()) throw InputError(placements, t.line(), "placement", "empty");
      const double b = field(t, row, "local_bsz"), step = field(t, row, "step_time"), sync = field(t, row, "sync_time");
      if (!(b > 0) || !(step > 0) || !(sync >= 0) || sync > step)
        throw InputError(placements, t.line(), "step_time", "need local_bsz > 0 and 0 <= sync_time <= step_time");
      for (auto* m : {&by_id[id][b], &by_nr[{nodes, gpus}][b]}) (*m)[0] += step, (*m)[1] += sync, (*m)[2] += 1;
      a.max_local = std::max(a.max_local, b);
    }
  }
  if (std::filesystem::exists(scalability)) {
    const std::string text = TableReader::load(scalability);
    TableReader t(scalability, ',', &text);
    read_header(t, {"num_nodes", "num_replicas", "local_bsz", "step_time", "sync_time"});
    std::vector<std::string> row;
    while (t.next(row)) {
      const int nodes = static_cast<int>(field(t, row, "num_nodes")), gpus = static_cast<int>(field(t, row, "num_replicas"));
      const double b = field(t, row, "local_bsz"), step = field(t, row, "step_time"), sync = field(t, row, "sync_time");
      if (!(b > 0) || !(step > 0) || !(sync >= 0))
        throw InputError(scalability, t.line(), "step_time", "need local_bsz > 0 and step_time > 0");
      auto& m = by_nr[{nodes, gpus}][b];
      m[0] += step, m[1] += sync, m[2] += 1;
    }
  }
  for (auto& [k, m] : by_id) a.by_id[k] = settle(m);
  for (auto& [k, m] : by_nr) a.by_nr[k] = settle(m);
  return a;
}

// An application's batch range and validation curves (validation-<batch>.csv: progress, grad_sqr, grad_var per
// epoch), and Pollux's max_epochs for it (simulator/applications.py).
struct Curves {
  std::map<int, std::vector<std::array<double, 3>>> by_bsz;  // batch -> per epoch (progress, grad_sqr, grad_var)
  int init_bsz = 0, max_bsz = 0, max_epochs = 0;
};

int max_epochs_of(const std::string& app) {
  static const std::map<std::string, int> m = {{"bert", 2},      {"cifar10", 100},    {"ncf", 10},
                                               {"imagenet", 90}, {"deepspeech2", 80}, {"yolov3", 50}};
  const auto it = m.find(app);
  return it == m.end() ? 0 : it->second;
}

const Curves& curves_of(const std::string& dir, const std::string& app) {
  static std::map<std::string, Curves> cache;
  const std::string key = dir + "/" + app;
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  Curves c;
  if (!std::filesystem::is_directory(dir))
    throw InputError(dir, 0, "--data-dir", "no measured profile of application '" + app + "' here");
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string f = e.path().filename().string();
    if (f.rfind("validation-", 0) == 0 && f.size() > 15 && f.substr(f.size() - 4) == ".csv") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    const std::string name = std::filesystem::path(path).stem().string();
    const int bsz = parse_int32(name.substr(11), path, 0, "batch size in the file name");
    const std::string text = TableReader::load(path);
    TableReader t(path, ',', &text);
    read_header(t, {"progress", "grad_sqr", "grad_var"});
    std::vector<std::string> row;
    auto& v = c.by_bsz[bsz];
    while (t.next(row)) v.push_back({field(t, row, "progress"), field(t, row, "grad_sqr"), field(t, row, "grad_var")});
    if (v.empty()) throw InputError(path, t.line(), "progress", "no epochs");
  }
  if (c.by_bsz.empty()) throw InputError(dir, 0, "validation", "no validation-<batch>.csv curves of '" + app + "'");
  c.init_bsz = c.by_bsz.begin()->first;
  c.max_bsz = c.by_bsz.rbegin()->first;
  c.max_epochs = max_epochs_of(app);
  for (const auto& [b, v] : c.by_bsz) c.max_epochs = std::min(c.max_epochs, static_cast<int>(v.size()));
  return cache.emplace(key, std::move(c)).first->second;
}

// Pollux's Job.update_local_bsz for a fixed global batch: (atomic local batch, gradient-accumulation steps).
std::pair<double, int> atomic_batch(double batch, int n, double max_local, const Curves& c) {
  const double local = std::ceil(batch / n - 1e-8);
  int accum = static_cast<int>(std::ceil(local / max_local - 1e-8)) - 1;
  if (n == 1 && batch > c.init_bsz) accum = std::max(1, accum);
  double atomic = std::ceil(local / (accum + 1) - 1e-8);
  atomic = std::min(atomic, std::floor(static_cast<double>(c.max_bsz) / (n * (accum + 1))));
  return {atomic, accum};
}

// A job's global batch: Pollux's trace gives it; otherwise the catalogue batch per worker x workers, kept in the
// application's validated range.
double global_batch(const JobSpec& j, const Curves& c) {
  if (j.global_batch > 0) return j.global_batch;
  const double per = j.batch_size > 0 ? j.batch_size : c.init_bsz;
  return std::clamp(per * j.num_gpus, static_cast<double>(c.init_bsz), static_cast<double>(c.max_bsz));
}

// The smallest rotation of the digits (Pollux's normalisation of a placement).
std::string placement_id(const std::vector<int>& shape) {
  std::string s;
  for (int g : shape) {
    if (g < 1 || g > 9) return "";
    s += static_cast<char>('0' + g);
  }
  std::string best = s;
  for (std::size_t i = 1; i < s.size(); ++i) best = std::min(best, s.substr(i) + s.substr(0, i));
  return best;
}

class PolluxSource final : public MeasuredSource {
 public:
  PolluxSource(const std::string& data_dir, bool sia, const std::vector<std::string>& types)
      : sia_(sia), data_dir_(data_dir) {
    for (const auto& type : types) {
      const KnownGpuType* k = find_gpu_type(type);
      const std::string sfx = sia ? (k ? k->sia : "") : (type == "t4" ? "-" : "");  // Pollux measured T4 only
      if (sfx.empty()) continue;
      for (const char* app : {"bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"}) {
        const std::string dir = data_dir + (sia ? "/sia/traces/" : "/pollux/traces/") + app;
        const std::string tail = sfx == "-" ? ".csv" : "-" + sfx + ".csv";
        AppTable t = load_app(dir + "/placements" + tail, dir + "/scalability" + tail);
        if (std::string(app) == "yolov3" && !sia) t.max_local = 8;           // Pollux's APPLICATIONS
        if (std::string(app) == "deepspeech2" && sfx == "rtx") t.max_local = 57;  // Sia's Application.__init__
        tables_[{app, type}] = std::move(t);
        curves_[app] = &curves_of(dir, app);
      }
    }
  }
  std::optional<double> iteration_s(const std::string& app, const JobSpec& j, const std::string& type,
                                    const std::vector<int>& shape) override {
    const auto it = tables_.find({app, type});
    if (it == tables_.end()) return std::nullopt;
    const AppTable& t = it->second;
    const Curves& c = *curves_.at(app);
    const auto [atomic, accum] = atomic_batch(global_batch(j, c), j.num_gpus, t.max_local, c);
    std::optional<std::pair<double, double>> ss;
    if (const std::string id = placement_id(shape); !id.empty())
      if (const auto p = t.by_id.find(id); p != t.by_id.end()) ss = interpolate(p->second, atomic);
    if (!ss && !sia_ && !data_dir_.empty()) {  // Pollux's rule: its Delaunay mesh (outside its hull: not measured)
      try {
        ss = pollux_app(data_dir_ + "/pollux/traces", app).throughput(shape, static_cast<int>(atomic));
      } catch (const InputError&) {
      }
    }
    if (!ss && sia_)
      if (const auto p = t.by_nr.find({static_cast<int>(shape.size()), j.num_gpus}); p != t.by_nr.end())
        ss = interpolate(p->second, atomic);
    if (!ss) return std::nullopt;
    return ss->first + (ss->first - ss->second) * accum;
  }
  std::vector<MeasuredStep> steps() const {
    std::vector<MeasuredStep> out;
    for (const auto& [key, t] : tables_) {
      const auto one = t.by_id.find("1");
      if (one == t.by_id.end()) continue;
      for (const auto& [id, pts] : t.by_id) {
        if (id == "1") continue;
        std::vector<int> shape;
        for (char c : id) shape.push_back(c - '0');
        for (const Pt& p : pts)
          if (const auto single = interpolate(one->second, p.bsz))
            out.push_back({sia_ ? "sia" : "pollux", key.first, key.second, shape, p.bsz, p.step, single->first});
      }
    }
    return out;
  }

 private:
  bool sia_;
  std::string data_dir_;
  std::map<std::pair<std::string, std::string>, AppTable> tables_;
  std::map<std::string, const Curves*> curves_;
};

}  // namespace

std::unique_ptr<MeasuredSource> load_pollux_source(const std::string& data_dir, bool sia,
                                                   const std::vector<std::string>& types) {
  return std::make_unique<PolluxSource>(data_dir, sia, types);
}

std::vector<MeasuredStep> pollux_steps(const std::string& data_dir, bool sia) {
  std::vector<std::string> types;
  for (const auto& k : known_gpu_types())
    if (sia ? !k.sia.empty() : k.name == "t4") types.push_back(k.name);
  return PolluxSource(data_dir, sia, types).steps();
}

double pollux_iterations(const std::string& data_dir, const std::string& app, int batch, int n,
                         const std::string& file, long line) {
  if (max_epochs_of(app) == 0)
    throw InputError(file, line, "application",
                     "'" + app + "' has no measured profile (bert, cifar10, deepspeech2, imagenet, ncf, yolov3)");
  const std::string dir = data_dir + "/pollux/traces/" + app;
  const Curves& c = curves_of(dir, app);
  if (batch < c.init_bsz || batch > c.max_bsz)
    throw InputError(file, line, "batch_size",
                     std::to_string(batch) + " is outside " + app + "'s validated batch sizes [" +
                         std::to_string(c.init_bsz) + ", " + std::to_string(c.max_bsz) + "]");
  static std::map<std::string, double> max_local;  // of Pollux's T4 placements table
  auto ml = max_local.find(app);
  if (ml == max_local.end()) ml = max_local.emplace(app, app == "yolov3" ? 8.0 : load_app(dir + "/placements.csv", "").max_local).first;
  const auto [atomic, accum] = atomic_batch(batch, n, ml->second, c);
  const double b = n * atomic * (accum + 1);  // the batch a step takes (Pollux's Job.step)
  const double scale = b / c.init_bsz;
  // Grad stats at epoch e, linear between the validated batches around b (Application.get_grad_stats).
  auto hi = c.by_bsz.lower_bound(static_cast<int>(std::ceil(b)));  // the first validated batch >= b
  if (hi == c.by_bsz.end()) hi = std::prev(hi);
  const auto lo = hi->first <= b || hi == c.by_bsz.begin() ? hi : std::prev(hi);
  double iterations = 0, prev = 0;
  for (int e = 0; e < c.max_epochs; ++e) {
    double next = 1e300;  // Application.get_progress(e + 1): the least progress any curve has at epoch e
    for (const auto& [bs, v] : c.by_bsz) next = std::min(next, v[static_cast<std::size_t>(e)][0]);
    const auto& l = lo->second[static_cast<std::size_t>(e)];
    const auto& h = hi->second[static_cast<std::size_t>(e)];
    const double w = hi->first == lo->first ? 0.0 : (b - lo->first) / (hi->first - lo->first);
    const double sqr = l[1] + w * (h[1] - l[1]), var = l[2] + w * (h[2] - l[2]);
    const double gain = (var + sqr) / (var / scale + sqr);
    iterations += (next - prev) / gain;
    prev = next;
  }
  if (!(iterations > 0)) throw InputError(file, line, "application", "no work in " + app + "'s validation curves");
  return iterations;
}

}  // namespace rm
