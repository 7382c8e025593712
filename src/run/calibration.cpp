#include "run/calibration.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "core/error.h"
#include "exec/comm_model.h"
#include "metrics/metrics.h"
#include "workload/model_catalogue.h"
#include "workload/parse_util.h"
#include "workload/table_reader.h"

namespace rm {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double predict(const CalibrationPoint& p, const LawConstants& c) {
  int n = 0;
  for (int g : p.m.shape) n += g;
  return p.m.single_s + ring_allreduce_s(p.grad_mb, n, p.spread() ? c.net_gbps : c.intra_gbps, c.latency_us);
}

// The catalogue's gradient size for a table's application (pollux:<app>, gavel:<job type>); 0 if none.
double grad_of(const MeasuredStep& m) {
  const std::string name = (m.source == "gavel" ? "gavel:" : "pollux:") + ModelCatalogue::normalise(m.app);
  const auto p = ModelCatalogue::builtin().find(name);
  return p ? p->grad_mb : 0.0;
}

std::vector<double> geometric(double lo, double hi, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1)));
  return v;
}

// The constants minimising the mean |log(predicted / measured)| over `fit` (a grid: a server's bandwidth only
// matters to packed steps and the network's to spread ones, so each is chosen per latency).
LawConstants fit(const std::vector<CalibrationPoint>& fit) {
  std::vector<double> intra = geometric(10, 3000, 36);
  intra.push_back(kInf);
  const std::vector<double> net = geometric(1, 400, 60);
  const std::vector<double> lat = {0, 1, 2, 5, 10, 20, 50, 100, 200, 500};
  LawConstants best;
  double best_cost = kInf;
  const auto cost = [&](bool spread, const LawConstants& c) {
    double s = 0;
    for (const auto& p : fit)
      if (p.spread() == spread) s += std::fabs(std::log(predict(p, c) / p.m.step_s));
    return s;
  };
  for (double l : lat) {
    LawConstants c{0, 0, l};
    double packed = kInf, spread = kInf;
    for (double b : intra)
      if (const double v = cost(false, {b, 0, l}); v < packed) packed = v, c.intra_gbps = b;
    for (double b : net)
      if (const double v = cost(true, {0, b, l}); v < spread) spread = v, c.net_gbps = b;
    if (packed + spread < best_cost) best_cost = packed + spread, best = c;
  }
  return best;
}

ErrorRow error_row(const std::vector<const CalibrationPoint*>& pts, ErrorRow r) {
  std::vector<double> abs, signed_, none;
  for (const auto* p : pts) {
    abs.push_back(std::fabs(p->error()));
    signed_.push_back(p->error());
    none.push_back(std::fabs(p->m.single_s / p->m.step_s - 1));
  }
  r.points = static_cast<int>(pts.size());
  r.median_abs = quantile(abs, 0.5);
  r.p90_abs = quantile(abs, 0.9);
  r.median = quantile(signed_, 0.5);
  r.median_abs_no_comm = quantile(none, 0.5);
  return r;
}

// DeepShare's 36 x 36 matrix: row = the job measured ("model,GPUs,nodes"), column = the job beside it, value =
// its throughput shared / alone. Per model, its 1st, 3rd and 5th configurations calibrate, the others test.
void contention(const std::string& data_dir, CalibrationReport& r) {
  const std::string path = data_dir + "/deepshare-contention/shared_thp_ratio.csv";
  const std::string text = TableReader::load(path);
  TableReader t(path, ',', &text);
  std::vector<std::string> header, row;
  if (!t.next(header) || header.size() < 2) throw InputError(path, 1, "", "expected a header of configurations");
  struct Obs { std::string model; bool test; double ratio; };
  std::vector<Obs> obs;
  std::map<std::string, int> seen;
  while (t.next(row)) {
    if (row.size() != header.size()) throw InputError(path, t.line(), "", "expected " + std::to_string(header.size()) + " fields");
    const std::string model = trim(row[0].substr(0, row[0].find(',')));
    const bool test = seen[model]++ % 2 == 1;
    for (std::size_t c = 1; c < row.size(); ++c) {
      const double v = parse_double(row[c], path, t.line(), header[c]);
      if (!(v > 0)) throw InputError(path, t.line(), header[c], "a throughput ratio must be > 0");
      obs.push_back({model, test, v});
    }
  }
  std::vector<double> all_abs, all_none;
  for (const auto& [model, n] : seen) {
    ContentionRow c;
    c.model = model;
    double best = kInf;
    for (int i = 0; i <= 1000; ++i) {
      const double g = i / 1000.0;
      double s = 0;
      for (const auto& o : obs)
        if (o.model == model && !o.test) s += std::fabs(1 / (1 + g) / o.ratio - 1);
      if (s < best) best = s, c.g = g;
    }
    std::vector<double> abs, none;
    for (const auto& o : obs)
      if (o.model == model && o.test) {
        abs.push_back(std::fabs(1 / (1 + c.g) / o.ratio - 1));
        none.push_back(std::fabs(1 / o.ratio - 1));
      }
    c.test_pairs = static_cast<int>(abs.size());
    c.median_abs = quantile(abs, 0.5);
    c.p90_abs = quantile(abs, 0.9);
    c.median_abs_no_contention = quantile(none, 0.5);
    all_abs.insert(all_abs.end(), abs.begin(), abs.end());
    all_none.insert(all_none.end(), none.begin(), none.end());
    r.contention.push_back(c);
  }
  r.contention_total = {"all", 0, static_cast<int>(all_abs.size()), quantile(all_abs, 0.5), quantile(all_abs, 0.9),
                        quantile(all_none, 0.5)};
}

}  // namespace

CalibrationReport calibrate(const std::string& data_dir) {
  CalibrationReport r;
  std::vector<MeasuredStep> steps = pollux_steps(data_dir, false);
  for (auto& m : gavel_steps(data_dir)) steps.push_back(std::move(m));
  const std::size_t n_fit = steps.size();
  for (auto& m : pollux_steps(data_dir, true)) steps.push_back(std::move(m));
  std::vector<CalibrationPoint> fit_pts;
  std::set<std::string> skipped;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const double g = grad_of(steps[i]);
    if (!(g > 0)) {
      skipped.insert(steps[i].source + ":" + steps[i].app);
      continue;
    }
    r.points.push_back({steps[i], g, 0});
    if (i < n_fit) fit_pts.push_back(r.points.back());
  }
  for (const auto& s : skipped) r.skipped.push_back(s + " (no gradient size in the catalogue)");
  r.fitted = fit(fit_pts);
  for (auto& p : r.points) p.predicted_s = predict(p, r.fitted);

  std::map<std::tuple<std::string, std::string, std::string, std::string>, std::vector<const CalibrationPoint*>> groups;
  std::map<std::pair<std::string, std::string>, std::vector<const CalibrationPoint*>> totals;
  for (const auto& p : r.points) {
    const std::string place = p.spread() ? "spread" : "packed";
    groups[{p.m.source, p.m.type, p.m.app, place}].push_back(&p);
    totals[{p.m.source, "all"}].push_back(&p);
    totals[{p.m.source, p.m.type}].push_back(&p);
  }
  for (const auto& [k, v] : groups)
    r.rows.push_back(error_row(v, {std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k)}));
  for (const auto& [k, v] : totals) r.totals.push_back(error_row(v, {k.first, k.second, "all", "all"}));
  std::map<std::string, std::vector<CalibrationPoint>> sia;
  for (const auto& p : r.points)
    if (p.m.source == "sia") sia[p.m.type].push_back(p);
  for (auto& [type, pts] : sia) {
    const LawConstants c = fit(pts);
    std::vector<const CalibrationPoint*> ptr;
    for (auto& p : pts) p.predicted_s = predict(p, c), ptr.push_back(&p);
    r.refit.push_back({c, error_row(ptr, {"sia, refitted", type, "all", "all"})});
  }
  contention(data_dir, r);
  return r;
}

}  // namespace rm
