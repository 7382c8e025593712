// Iteration predictors (A-SRPT reconstruction, spec synergy-and-a-srpt.md A.4).
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "core/rng.h"
#include "policy/predictor/history.h"
#include "policy/predictor/predictor.h"

namespace rm {
namespace {

JobSpec job(JobId id, const std::string& key, double iterations, int gpus = 1) {
  JobSpec j;
  j.id = id;
  j.name = std::to_string(id);
  j.user = key;
  j.recurrence_key = key;
  j.model = "m";
  j.num_gpus = gpus;
  j.iterations = iterations;
  return j;
}

std::unique_ptr<Predictor> make(const std::string& name, std::map<std::string, std::string> kv = {}) {
  PluginParams p(name, std::move(kv), 1);
  auto pr = make_predictor(name, p);
  p.check_all_used();
  return pr;
}

TEST(History, RunningMedian) {
  RunningMedian m;
  for (double x : {5.0, 1.0, 9.0, 3.0}) m.add(x);
  EXPECT_DOUBLE_EQ(m.median(), 4.0);
  m.add(7);
  EXPECT_DOUBLE_EQ(m.median(), 5.0);
}

TEST(Predictor, MedianUsesOnlyFinishedJobsOfTheKey) {
  auto p = make("median");
  EXPECT_DOUBLE_EQ(p->predict(job(0, "a", 10), 0), 1000);  // nothing finished yet
  p->observe(job(1, "a", 100), 100, 1);
  p->observe(job(2, "a", 400), 400, 2);
  p->observe(job(3, "b", 7), 7, 3);
  EXPECT_NEAR(p->predict(job(4, "a", 1), 4), 200, 1e-9);  // exp(median of log 100, log 400)
  EXPECT_NEAR(p->predict(job(5, "c", 1), 5), 100, 1e-9);  // unseen key: global median
  EXPECT_DOUBLE_EQ(make("oracle")->predict(job(6, "a", 123), 0), 123);
}

TEST(Predictor, ForestLearnsRecurringJobsWithoutLookAhead) {
  // Three keys with iterations around 100, 1000 and 10000. The forest only sees jobs once they are
  // reported finished: a job still running never reaches its training set (its true count is never
  // passed to it), so its predictions before the first training are the cold-start value.
  auto p = make("rf", {{"first", "60"}, {"trees", "20"}});
  Rng rng(3);
  const double base[] = {100, 1000, 10000};
  std::vector<double> pred, actual;
  EXPECT_DOUBLE_EQ(p->predict(job(0, "k0", 5), 0), 1000);
  for (JobId id = 1; id <= 300; ++id) {
    const int k = static_cast<int>(id % 3);
    const double n = base[k] * (0.9 + 0.2 * rng.uniform());
    const JobSpec j = job(id, "k" + std::to_string(k), n);
    const double guess = p->predict(j, from_seconds(static_cast<double>(id)));
    if (id > 150) pred.push_back(guess), actual.push_back(n);
    p->observe(j, n, from_seconds(static_cast<double>(id) + 0.5));
  }
  EXPECT_GE(p->trainings, 1);
  const auto s = prediction_stats(pred, actual);
  EXPECT_LT(s.mape, 15.0);
  EXPECT_GT(s.r2, 0.9);
  EXPECT_THROW(make("rf", {{"subsample", "1"}}), InputError);
  EXPECT_THROW(make("nosuch"), InputError);
}

TEST(Predictor, Statistics) {
  const auto s = prediction_stats({110, 90, 200}, {100, 100, 200});
  EXPECT_NEAR(s.mae, 20.0 / 3, 1e-12);
  EXPECT_NEAR(s.mape, 100 * (0.1 + 0.1 + 0) / 3, 1e-12);
  // mean 400/3: SS_tot = 2 (100/3)^2 + (200/3)^2 = 20000/3; SS_res = 100 + 100 + 0.
  EXPECT_NEAR(s.r2, 1 - 200.0 / (20000.0 / 3), 1e-12);
}

}  // namespace
}  // namespace rm
