#include "exec/pollux_app.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <tuple>

#include "core/error.h"
#include "core/pandas_float.h"
#include "exec/delaunay.h"
#include "workload/table_reader.h"

namespace rm {
namespace {

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
  std::vector<long> lines;
  std::string path;
  std::size_t col(const std::string& name) const {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    throw InputError(path, 1, name, "required column missing");
  }
};

Table read_table(const std::string& path) {
  Table t;
  t.path = path;
  const std::string text = TableReader::load(path);
  TableReader r(path, ',', &text);
  std::vector<std::string> row;
  if (!r.next(row)) throw InputError(path, 0, "", "empty table");
  t.header = row;
  r.set_header(row);
  while (r.next(row)) {
    r.check_width(row);
    std::vector<double> v;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const auto x = pandas_float(row[i]);
      if (!x) throw InputError(path, r.line(), t.header[i], "not a number: '" + row[i] + "'");
      v.push_back(*x);
    }
    t.rows.push_back(std::move(v));
    t.lines.push_back(r.line());
  }
  return t;
}

int whole(double x, const Table& t, std::size_t row, const std::string& field) {
  if (x != std::floor(x) || std::fabs(x) > 1e15) throw InputError(t.path, t.lines[row], field, "must be a whole number");
  return static_cast<int>(x);
}

}  // namespace

PolluxApp::~PolluxApp() = default;

PolluxApp::PolluxApp(const std::string& dir, const std::string& name, int max_epochs, int max_local_bsz,
                     const std::string& gpu)
    : dir_(dir), name_(name) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) throw InputError(dir, 0, "", "no such folder (Pollux's application traces)");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    const std::string f = p.filename().string();
    if (f.rfind("validation-", 0) != 0 || p.extension() != ".csv") continue;
    const std::string num = f.substr(11, f.size() - 11 - 4);
    if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos)
      throw InputError(p.string(), 0, "", "expected validation-<batch size>.csv");
    const Table t = read_table(p.string());
    Curve c;
    const std::size_t pr = t.col("progress"), it = t.col("iteration"), sq = t.col("grad_sqr"), va = t.col("grad_var");
    for (std::size_t k = 0; k < t.rows.size(); ++k) {
      const auto& r = t.rows[k];
      // Gradient statistics are a squared norm and a variance: a negative one changes the work (issue 45).
      for (const auto& [col, name] : {std::pair{sq, "grad_sqr"}, std::pair{va, "grad_var"}, std::pair{pr, "progress"}})
        if (r[col] < 0 || std::isinf(r[col]))
          throw InputError(t.path, t.lines[k], name, "must be a finite number >= 0");
      c.progress.push_back(r[pr]);
      c.iteration.push_back(r[it]);
      c.grad_sqr.push_back(r[sq]);
      c.grad_var.push_back(r[va]);
    }
    if (c.progress.empty()) throw InputError(p.string(), 0, "", "no epochs");
    curves_[std::stoi(num)] = std::move(c);
  }
  if (curves_.empty()) throw InputError(dir, 0, "", "no validation-<batch size>.csv");
  auto rows_of = [&](const std::string& file, bool measured) {
    const Table t = read_table(dir + "/" + file);
    std::vector<Row> out;
    const std::size_t lb = t.col("local_bsz"), st = t.col("step_time"), sy = t.col("sync_time");
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const auto& r = t.rows[i];
      Row x;
      if (measured) {
        const std::size_t pc = t.col("placement");
        const double p = r[pc];
        if (p != std::floor(p) || p < 1 || p > 9e17) throw InputError(t.path, t.lines[i], "placement", "must be digits 1-9");
        x.placement = static_cast<std::int64_t>(p);
        for (std::int64_t q = x.placement; q > 0; q /= 10) {
          ++x.nodes;
          x.replicas += static_cast<int>(q % 10);
        }
      } else {
        x.nodes = whole(r[t.col("num_nodes")], t, i, "num_nodes");
        x.replicas = whole(r[t.col("num_replicas")], t, i, "num_replicas");
      }
      x.local_bsz = whole(r[lb], t, i, "local_bsz");
      x.step = r[st];
      x.sync = r[sy];
      out.push_back(x);
    }
    if (out.empty()) throw InputError(t.path, 0, "", "no rows");
    return out;
  };
  const std::string suffix = gpu.empty() ? "" : "-" + gpu;
  placements_file_ = "placements" + suffix + ".csv";
  placements_ = rows_of(placements_file_, true);
  scalability_ = rows_of("scalability" + suffix + ".csv", false);
  init_bsz_ = curves_.begin()->first;
  max_bsz_ = curves_.rbegin()->first;
  min_local_ = max_local_ = placements_.front().local_bsz;
  for (const auto& r : placements_) {
    min_local_ = std::min(min_local_, r.local_bsz);
    max_local_ = std::max(max_local_, r.local_bsz);
  }
  if (max_local_bsz > 0) max_local_ = max_local_bsz;
  max_epochs_ = max_epochs;
  if (max_epochs_ <= 0) {
    max_epochs_ = static_cast<int>(curves_.begin()->second.progress.size());
    for (const auto& [b, c] : curves_) max_epochs_ = std::min(max_epochs_, static_cast<int>(c.progress.size()));
  }
}

double PolluxApp::progress(int epoch) const {
  if (epoch == 0) return 0.0;
  double best = 0;
  bool first = true;
  for (const auto& [b, c] : curves_) {
    if (epoch - 1 >= static_cast<int>(c.progress.size()))
      throw InputError(dir_, 0, "progress", "no epoch " + std::to_string(epoch - 1) + " at batch " + std::to_string(b));
    const double p = c.progress[static_cast<std::size_t>(epoch - 1)];
    if (first || p < best) best = p;
    first = false;
  }
  return best;
}

std::pair<int, int> PolluxApp::bracket(int batch) const {
  int lo = -1, hi = -1;
  for (const auto& [b, c] : curves_) {
    if (b <= batch) lo = b;
    if (b >= batch) {
      hi = b;
      break;
    }
  }
  if (lo < 0 || hi < 0)
    throw InputError(dir_, 0, "batch_size",
                     "batch " + std::to_string(batch) + " outside the measured batch sizes of " + name_);
  return {lo, hi};
}

double PolluxApp::iteration(int batch, int epoch) const {
  const auto [lo, hi] = bracket(batch);
  const double a = curves_.at(lo).iteration.at(static_cast<std::size_t>(epoch));
  const double b = curves_.at(hi).iteration.at(static_cast<std::size_t>(epoch));
  if (lo == hi) return a;
  return (static_cast<double>(batch - lo) * b + static_cast<double>(hi - batch) * a) / static_cast<double>(hi - lo);
}

std::pair<double, double> PolluxApp::grad_stats(int batch, int epoch) const {
  const auto [lo, hi] = bracket(batch);
  const Curve& l = curves_.at(lo);
  const Curve& u = curves_.at(hi);
  const auto e = static_cast<std::size_t>(epoch);
  if (e >= l.grad_sqr.size() || e >= u.grad_sqr.size())
    throw InputError(dir_, 0, "epoch", "no gradient statistics for epoch " + std::to_string(epoch) + " of " + name_);
  if (lo == hi) return {l.grad_sqr[e], l.grad_var[e]};
  const double db = static_cast<double>(batch - lo), ub = static_cast<double>(hi - batch), w = static_cast<double>(hi - lo);
  return {(db * u.grad_sqr[e] + ub * l.grad_sqr[e]) / w, (db * u.grad_var[e] + ub * l.grad_var[e]) / w};
}

// scipy's interp1d (kind linear, bounds checked) over the placement's rows in local-batch order.
std::pair<double, double> PolluxApp::measured(std::int64_t id, int local_bsz) const {
  std::vector<const Row*> v;
  for (const auto& r : placements_)
    if (r.placement == id) v.push_back(&r);
  std::stable_sort(v.begin(), v.end(), [](const Row* a, const Row* b) { return a->local_bsz < b->local_bsz; });
  if (v.size() < 2 || local_bsz < v.front()->local_bsz || local_bsz > v.back()->local_bsz)
    throw InputError(dir_ + "/" + placements_file_, 0, "local_bsz",
                     "local batch " + std::to_string(local_bsz) + " outside the measured range of placement " +
                         std::to_string(id) + " (Pollux's interp1d would raise)");
  std::size_t i = static_cast<std::size_t>(
      std::lower_bound(v.begin(), v.end(), local_bsz, [](const Row* r, int x) { return r->local_bsz < x; }) - v.begin());
  i = std::clamp<std::size_t>(i, 1, v.size() - 1);
  const Row& lo = *v[i - 1];
  const Row& hi = *v[i];
  const double dx = static_cast<double>(hi.local_bsz - lo.local_bsz), x = static_cast<double>(local_bsz - lo.local_bsz);
  return {(hi.step - lo.step) / dx * x + lo.step, (hi.sync - lo.sync) / dx * x + lo.sync};
}

// The placements' means by (nodes, GPUs, local batch) in key order (pandas' groupby mean: a compensated sum in file
// order over the count), then the scalability rows.
const DelaunayInterpolator& PolluxApp::mesh() const {
  if (mesh_) return *mesh_;
  struct Acc {
    double sum[2] = {0, 0}, comp[2] = {0, 0};
    int n = 0;
  };
  std::map<std::tuple<int, int, int>, Acc> groups;
  for (const auto& r : placements_) {
    Acc& a = groups[{r.nodes, r.replicas, r.local_bsz}];
    const double val[2] = {r.step, r.sync};
    for (int j = 0; j < 2; ++j) {
      const double y = val[j] - a.comp[j];
      const double t = a.sum[j] + y;
      a.comp[j] = t - a.sum[j] - y;
      a.sum[j] = t;
    }
    ++a.n;
  }
  std::vector<double> pts, vals;
  for (const auto& [k, a] : groups) {
    pts.insert(pts.end(), {static_cast<double>(std::get<0>(k)), static_cast<double>(std::get<1>(k)),
                           static_cast<double>(std::get<2>(k))});
    vals.insert(vals.end(), {a.sum[0] / a.n, a.sum[1] / a.n});
  }
  for (const auto& r : scalability_) {
    pts.insert(pts.end(), {static_cast<double>(r.nodes), static_cast<double>(r.replicas), static_cast<double>(r.local_bsz)});
    vals.insert(vals.end(), {r.step, r.sync});
  }
  mesh_ = std::make_unique<DelaunayInterpolator>(std::move(pts), 3, std::move(vals), 2, "pollux placements");
  return *mesh_;
}

std::pair<double, double> PolluxApp::throughput(const std::vector<int>& placement, int local_bsz) const {
  std::vector<int> p;
  for (int x : placement)
    if (x != 0) p.push_back(x);
  const auto key = std::make_pair(p, local_bsz);
  std::lock_guard<std::mutex> lock(mu_);
  if (const auto it = memo_.find(key); it != memo_.end()) return it->second;
  std::vector<int> best = p;  // the lexicographically smallest rotation
  for (std::size_t i = 1; i < p.size(); ++i) {
    std::vector<int> r(p.begin() + static_cast<long>(i), p.end());
    r.insert(r.end(), p.begin(), p.begin() + static_cast<long>(i));
    if (r < best) best = r;
  }
  std::string digits;
  for (int x : best) digits += std::to_string(x);
  std::pair<double, double> out;
  bool found = false;
  if (digits.size() <= 18) {
    const std::int64_t id = std::stoll(digits);
    for (const auto& r : placements_)
      if (r.placement == id) {
        found = true;
        break;
      }
    if (found) out = measured(id, local_bsz);
  }
  if (!found) {
    int replicas = 0;
    for (int x : best) replicas += x;
    const double x[3] = {static_cast<double>(std::min<std::size_t>(best.size(), 16)), static_cast<double>(replicas),
                         static_cast<double>(local_bsz)};
    double y[2];
    mesh()(x, y);
    if (!(y[0] + y[1] == y[0] + y[1]))
      throw InputError(dir_, 0, "placement",
                       name_ + ": placement " + digits + " at local batch " + std::to_string(local_bsz) +
                           " is outside the measured hull (Pollux's simulator asserts here)");
    out = {y[0], y[1]};
  }
  memo_.emplace(key, out);
  return out;
}

namespace {
std::vector<int> smallest_rotation(const std::vector<int>& placement) {
  std::vector<int> p;
  for (int x : placement)
    if (x != 0) p.push_back(x);
  std::vector<int> best = p;
  for (std::size_t i = 1; i < p.size(); ++i) {
    std::vector<int> r(p.begin() + static_cast<long>(i), p.end());
    r.insert(r.end(), p.begin(), p.begin() + static_cast<long>(i));
    if (r < best) best = r;
  }
  return best;
}
}  // namespace

int PolluxApp::max_local_bsz_at(const std::vector<int>& placement) const {
  const std::vector<int> best = smallest_rotation(placement);
  std::string digits;
  int replicas = 0;
  for (int x : best) digits += std::to_string(x), replicas += x;
  const int nodes = static_cast<int>(best.size());
  int out = -1;
  if (!digits.empty() && digits.size() <= 18) {
    const std::int64_t id = std::stoll(digits);
    for (const auto& r : placements_)
      if (r.placement == id) out = std::max(out, r.local_bsz);
    if (out >= 0) return out;
  }
  for (const auto& r : scalability_)
    if (r.nodes >= nodes && r.replicas >= replicas) out = std::max(out, r.local_bsz);
  if (out < 0)
    throw InputError(dir_, 0, "placement",
                     name_ + ": no measured local batch for placement " + digits + " (Sia's get_max_local_bsz is NaN)");
  return out;
}

int PolluxApp::max_measured_local(int replicas) const {
  int out = 0;
  for (const auto& r : placements_)
    if (r.replicas == replicas) out = std::max(out, r.local_bsz);
  return out;
}

double PolluxApp::one_gpu_throughput() const {
  int local = -1;
  double step = -1;
  for (const auto& r : placements_)
    if (r.replicas == 1) local = std::max(local, r.local_bsz), step = std::max(step, r.step);
  if (local < 0) throw InputError(dir_ + "/" + placements_file_, 0, "placement", name_ + ": no one-GPU rows");
  return static_cast<double>(local) / step;
}

const PolluxApp& sia_app(const std::string& traces_dir, const std::string& gpu, const std::string& name) {
  struct Entry {
    const char* name;
    int epochs;
  };
  static const Entry table[] = {{"bert", 2}, {"cifar10", 100}, {"ncf", 10}, {"imagenet", 90}, {"deepspeech2", 80}, {"yolov3", 50}};
  static std::mutex mu;
  static std::map<std::tuple<std::string, std::string, std::string>, std::unique_ptr<PolluxApp>> cache;
  const Entry* e = nullptr;
  for (const auto& x : table)
    if (name == x.name) e = &x;
  if (!e)
    throw InputError("'" + name + "' is not one of Sia's applications (bert, cifar10, ncf, imagenet, deepspeech2, yolov3)");
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[{traces_dir, gpu, name}];
  if (!slot)
    slot = std::make_unique<PolluxApp>(traces_dir + "/" + name, name, e->epochs,
                                       name == "deepspeech2" && gpu == "rtx" ? 57 : 0, gpu);
  return *slot;
}

const PolluxApp& pollux_app(const std::string& traces_dir, const std::string& name) {
  struct Entry {
    const char* name;
    int epochs, max_local;
  };
  static const Entry table[] = {{"bert", 2, 0},      {"cifar10", 100, 0},    {"ncf", 10, 0},
                                {"imagenet", 90, 0}, {"deepspeech2", 80, 0}, {"yolov3", 50, 8}};
  static std::mutex mu;
  static std::map<std::pair<std::string, std::string>, std::unique_ptr<PolluxApp>> cache;
  const Entry* e = nullptr;
  for (const auto& x : table)
    if (name == x.name) e = &x;
  if (!e)
    throw InputError("'" + name + "' is not one of Pollux's applications (bert, cifar10, ncf, imagenet, deepspeech2, yolov3)");
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[{traces_dir, name}];
  if (!slot) slot = std::make_unique<PolluxApp>(traces_dir + "/" + name, name, e->epochs, e->max_local);
  return *slot;
}

}  // namespace rm
