// Iteration predictors for recurring jobs (A-SRPT reconstruction, spec synergy-and-a-srpt.md A.4):
// oracle (the true count), median (history median per recurrence key) and rf (XGBoost random forest on
// log iterations, trained online on finished jobs only). Predictions are made at arrival; a predictor
// learns only from jobs it has been told finished, so no prediction can use a job still running.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/time.h"
#include "policy/params.h"
#include "workload/job.h"

namespace rm {

class Predictor {
 public:
  virtual ~Predictor() = default;
  virtual std::string name() const = 0;
  // Predicted total iterations of job j, arriving at `now`.
  virtual double predict(const JobSpec& j, Time now) = 0;
  // j finished at `now` after `iterations` iterations.
  virtual void observe(const JobSpec& j, double iterations, Time now) = 0;
  // True once after each retraining (queued jobs' predictions may have changed).
  virtual bool take_retrained() { return false; }
  // Wall seconds spent training and predicting (for the benchmark).
  double train_s = 0, predict_s = 0;
  std::int64_t trainings = 0;
};

// name: oracle | median | mean | rf. Parameters (rf): trees=100, depth=12, subsample=0.8,
// first=500 (completions before the first training), growth=0.25 (retrain when the finished jobs
// grew by this fraction, at least `first`).
std::unique_ptr<Predictor> make_predictor(const std::string& name, PluginParams& p);

// The accuracy of predictions against the truth: MAE, MAPE (%), R^2.
struct PredictionStats {
  double mae = 0, mape = 0, r2 = 0;
};
PredictionStats prediction_stats(const std::vector<double>& predicted, const std::vector<double>& actual);

}  // namespace rm
