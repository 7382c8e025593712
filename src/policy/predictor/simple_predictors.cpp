// The oracle, median and mean predictors, the factory, and the accuracy statistics.
#include <chrono>
#include <cmath>

#include "core/error.h"
#include "policy/predictor/history.h"
#include "policy/predictor/predictor.h"

namespace rm {

std::unique_ptr<Predictor> make_rf_predictor(PluginParams& p);

namespace {

class Oracle : public Predictor {
 public:
  std::string name() const override { return "oracle"; }
  double predict(const JobSpec& j, Time) override { return j.iterations; }
  void observe(const JobSpec&, double, Time) override {}
};

// History of the job's recurrence key (median or mean of log iterations), else of all finished jobs;
// before anything finished, 1000 iterations.
class FromHistory : public Predictor {
 public:
  FromHistory(bool median, bool global) : median_(median), global_(global) {}
  std::string name() const override { return global_ ? "global" : median_ ? "median" : "mean"; }
  double predict(const JobSpec& j, Time) override {
    const KeyStats& s = h_.key_or_global(global_ ? std::string() : j.recurrence_key);
    if (s.median.size() == 0) return 1000;
    return std::exp(median_ ? s.median.median() : s.mean());
  }
  void observe(const JobSpec& j, double it, Time) override {
    h_.add(global_ ? std::string() : j.recurrence_key, std::log(std::max(it, 1e-9)));
  }

 private:
  bool median_, global_;
  History h_;
};

}  // namespace

std::unique_ptr<Predictor> make_predictor(const std::string& name, PluginParams& p) {
  if (name == "oracle") return std::make_unique<Oracle>();
  if (name == "median") return std::make_unique<FromHistory>(true, false);
  if (name == "mean") return std::make_unique<FromHistory>(false, false);
  if (name == "global") return std::make_unique<FromHistory>(false, true);  // no prediction: one global mean
  if (name == "rf") return make_rf_predictor(p);
  throw InputError("--policy", 0, "predictor", "unknown predictor '" + name + "' (oracle, median, mean, global, rf)");
}

PredictionStats prediction_stats(const std::vector<double>& pred, const std::vector<double>& actual) {
  PredictionStats s;
  const auto n = static_cast<double>(actual.size());
  if (actual.empty()) return s;
  double mean = 0;
  for (double a : actual) mean += a;
  mean /= n;
  double ss_res = 0, ss_tot = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double e = pred[i] - actual[i];
    s.mae += std::abs(e);
    s.mape += actual[i] > 0 ? std::abs(e) / actual[i] : 0;
    ss_res += e * e;
    ss_tot += (actual[i] - mean) * (actual[i] - mean);
  }
  s.mae /= n;
  s.mape = 100 * s.mape / n;
  s.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : 0;
  return s;
}

}  // namespace rm
