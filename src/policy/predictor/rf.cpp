// The random-forest predictor (spec synergy-and-a-srpt.md A.4) on XGBoost's C API in random-forest
// mode: one boosting round of `trees` parallel trees, learning rate 1, row and column subsampling.
// Target: log(iterations). Features, all known at arrival: the recurrence key's user / virtual cluster
// and model (ordinal ids), GPUs, batch, submit hour and weekday, and the key's history (count, median,
// mean and last log iterations) plus the global median. Training is online and without look-ahead:
// only jobs reported finished are used, first after `first` completions, again whenever the finished
// jobs grew by `growth` (and at least `first`) since the last training. Until then: the history
// median, as the median predictor.
#include <xgboost/c_api.h>

#include <chrono>
#include <cmath>
#include <array>
#include <unordered_map>

#include "core/error.h"
#include "core/lazy_lib.h"
#include "policy/predictor/history.h"
#include "policy/predictor/predictor.h"

// XGBoost's C functions, from libxgboost opened the first time a forest is trained or asked (core/lazy_lib.h).
#define XGB(fn) RM_LAZY(RM_SONAME_XGBOOST, fn)

namespace rm {
namespace {

constexpr int kFeatures = 12;
const float kMissing = std::nanf("");

void check(int rc) {
  if (rc != 0) throw InvariantError(std::string("xgboost: ") + XGB(XGBGetLastError)());
}

class Forest : public Predictor {
 public:
  Forest(int trees, int depth, double subsample, int first, double growth, std::uint64_t seed)
      : trees_(trees), depth_(depth), subsample_(subsample), first_(first), growth_(growth), seed_(seed) {}
  ~Forest() override {
    if (booster_) XGB(XGBoosterFree)(booster_);
  }
  std::string name() const override { return "rf"; }

  double predict(const JobSpec& j, Time now) override {
    const auto t0 = std::chrono::steady_clock::now();
    std::array<float, kFeatures> f = features(j, now);
    rows_[j.id] = f;
    double out;
    if (!booster_) {
      const KeyStats& s = hist_.key_or_global(j.recurrence_key);
      out = s.median.size() ? std::exp(s.median.median()) : 1000;
    } else {
      DMatrixHandle d;
      check(XGB(XGDMatrixCreateFromMat)(f.data(), 1, kFeatures, kMissing, &d));
      bst_ulong len = 0;
      const float* res = nullptr;
      check(XGB(XGBoosterPredict)(booster_, d, 0, 0, 0, &len, &res));
      out = std::exp(static_cast<double>(res[0]));
      XGB(XGDMatrixFree)(d);
    }
    predict_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
  }

  void observe(const JobSpec& j, double iterations, Time) override {
    const double y = std::log(std::max(iterations, 1e-9));
    auto it = rows_.find(j.id);
    if (it != rows_.end()) {  // only jobs we predicted (features as of their arrival)
      x_.insert(x_.end(), it->second.begin(), it->second.end());
      y_.push_back(static_cast<float>(y));
      rows_.erase(it);
    }
    hist_.add(j.recurrence_key, y);
    const auto n = static_cast<std::int64_t>(y_.size());
    if (n >= first_ && n - trained_on_ >= std::max<std::int64_t>(first_, static_cast<std::int64_t>(growth_ * trained_on_)))
      train();
  }

  bool take_retrained() override {
    const bool r = retrained_;
    retrained_ = false;
    return r;
  }

 private:
  std::array<float, kFeatures> features(const JobSpec& j, Time now) {
    auto id_of = [](std::unordered_map<std::string, int>& m, const std::string& k) {
      return m.emplace(k, static_cast<int>(m.size())).first->second;
    };
    const KeyStats* s = hist_.find(j.recurrence_key);
    const KeyStats& g = hist_.global();
    const double secs = to_seconds(now);
    std::array<float, kFeatures> f{};
    f[0] = static_cast<float>(id_of(users_, j.user));
    f[1] = static_cast<float>(id_of(models_, j.model));
    f[2] = static_cast<float>(j.num_gpus);
    f[3] = static_cast<float>(j.batch_size);
    f[4] = static_cast<float>(std::fmod(secs / 3600.0, 24.0));
    f[5] = static_cast<float>(std::fmod(std::floor(secs / 86400.0), 7.0));
    f[6] = s ? static_cast<float>(s->median.size()) : 0.f;
    f[7] = s ? static_cast<float>(s->median.median()) : kMissing;
    f[8] = s ? static_cast<float>(s->mean()) : kMissing;
    f[9] = s ? static_cast<float>(s->last) : kMissing;
    f[10] = g.median.size() ? static_cast<float>(g.median.median()) : kMissing;
    f[11] = static_cast<float>(j.dp > 0 ? j.dp : j.num_gpus);
    return f;
  }

  void train() {
    const auto t0 = std::chrono::steady_clock::now();
    DMatrixHandle d;
    check(XGB(XGDMatrixCreateFromMat)(x_.data(), y_.size(), kFeatures, kMissing, &d));
    check(XGB(XGDMatrixSetFloatInfo)(d, "label", y_.data(), y_.size()));
    if (booster_) XGB(XGBoosterFree)(booster_);
    check(XGB(XGBoosterCreate)(&d, 1, &booster_));
    const std::string trees = std::to_string(trees_), depth = std::to_string(depth_),
                      sub = std::to_string(subsample_), seed = std::to_string(seed_ % 2147483647);
    for (const auto& [k, v] : std::vector<std::pair<const char*, std::string>>{
             {"booster", "gbtree"}, {"objective", "reg:squarederror"}, {"num_parallel_tree", trees},
             {"learning_rate", "1"}, {"subsample", sub}, {"colsample_bynode", "0.8"}, {"max_depth", depth},
             {"tree_method", "hist"}, {"nthread", "1"}, {"seed", seed}, {"verbosity", "0"}})
      check(XGB(XGBoosterSetParam)(booster_, k, v.c_str()));
    check(XGB(XGBoosterUpdateOneIter)(booster_, 0, d));
    XGB(XGDMatrixFree)(d);
    trained_on_ = static_cast<std::int64_t>(y_.size());
    retrained_ = true;
    ++trainings;
    train_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  int trees_, depth_;
  double subsample_;
  std::int64_t first_;
  double growth_;
  std::uint64_t seed_;
  BoosterHandle booster_ = nullptr;
  History hist_;
  std::unordered_map<std::string, int> users_, models_;
  std::unordered_map<JobId, std::array<float, kFeatures>> rows_;
  std::vector<float> x_, y_;
  std::int64_t trained_on_ = 0;
  bool retrained_ = false;
};

}  // namespace

std::unique_ptr<Predictor> make_rf_predictor(PluginParams& p) {
  const double trees = p.get_int("trees", 100, 1, 10000), depth = p.get_int("depth", 12, 1, 64);
  const double sub = p.get_double("subsample", 0.8, 0, 1), first = p.get_int("first", 500, 1, 10000000);
  const double growth = p.get_double("growth", 0.25, 0, 1000);
  if (!(trees >= 1) || !(depth >= 1) || !(sub > 0 && sub < 1) || !(first >= 1) || !(growth >= 0))
    throw InputError("--policy", 0, "rf", "needs trees >= 1, depth >= 1, 0 < subsample < 1, first >= 1, growth >= 0");
  return std::make_unique<Forest>(static_cast<int>(trees), static_cast<int>(depth), sub, static_cast<int>(first),
                                  growth, p.seed());
}

}  // namespace rm
