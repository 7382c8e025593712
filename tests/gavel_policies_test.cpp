// Gavel's heterogeneity-aware policies outside compat (issue 27 goal 3; policy/gavel.h) and the two programs found
// by bisection (policy/gavel_lp.h): the programs by hand, a round-by-round schedule by hand, every objective on a
// mixed cluster under the measured model, and the refusals.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "run/simulation.h"
#include "policy/gavel_lp.h"
#include "test_util.h"

namespace rm {
namespace {

const std::string kTrace = std::string(RM_SHARED_DIR) + "/traces/philly-gavel-vc/physical_cluster/artifact_evaluation.trace";

// Finish-time fairness by hand: one GPU, two jobs of 100 steps at 1 step/s, isolated time 200 s each (half the GPU).
// Both new: x = 1/2 each (ratio 1). Job 0 waited 100 s already: (100 + 100 / x0) / 200 = (100 / x1) / 200 with
// x0 + x1 = 1 gives x0^2 + x0 - 1 = 0, x0 = (sqrt 5 - 1) / 2.
TEST(GavelPolicies, FinishTimeFairnessByHand) {
  auto x = gavel_finish_time_fairness({{1.0}, {1.0}}, {1, 1}, {1}, {0, 0}, {100, 100}, {200, 200});
  EXPECT_NEAR(x[0][0], 0.5, 1e-6);
  EXPECT_NEAR(x[1][0], 0.5, 1e-6);
  x = gavel_finish_time_fairness({{1.0}, {1.0}}, {1, 1}, {1}, {100, 0}, {100, 100}, {200, 200});
  EXPECT_NEAR(x[0][0], (std::sqrt(5.0) - 1) / 2, 1e-6);
  EXPECT_NEAR(x[1][0], 1 - (std::sqrt(5.0) - 1) / 2, 1e-6);
  // A job no type can run (2 GPUs on a 1-GPU cluster) is left out, not an infeasible program.
  x = gavel_finish_time_fairness({{1.0}, {1.0}}, {1, 2}, {1}, {0, 0}, {100, 100}, {100, 100});
  EXPECT_NEAR(x[0][0], 1.0, 1e-6);
  EXPECT_EQ(x[1][0], 0.0);
  // The isolated share: 4 V100s and 2 K80s over 3 jobs of 2 GPUs: (4/3, 2/3) / 2 = (2/3, 1/3), sum 1.
  const auto s = gavel_isolated_share(3, 2, {4, 2});
  EXPECT_NEAR(s[0], 2.0 / 3, 1e-12);
  EXPECT_NEAR(s[1], 1.0 / 3, 1e-12);
}

// Minimum total duration by hand: 2 GPUs, jobs of 100 and 300 steps at 1 step/s: T* = 300 s (the longer job needs
// its GPU all the time). Gavel's bisection stops within 5 %: T in [300, 315], and x meets rem / T.
// Two types (1 V100, 1 K80): A runs 4 steps/s on the V100 and 1 on the K80, B 2 and 1, 400 steps each. With B's
// shares b on the V100 and 1 - b on the K80 (each job's shares sum to <= 1), A gets the rest: 1 - b of the V100 and
// b of the K80, 4 - 3b steps/s against B's 1 + b: equal at b = 3/4, 1.75 steps/s each, T* = 400 / 1.75 = 228.57 s.
TEST(GavelPolicies, MinTotalDurationByHand) {
  double T = 0;
  auto x = gavel_min_total_duration({{1.0}, {1.0}}, {1, 1}, {2}, {100, 300}, &T);
  EXPECT_GE(T, 300 - 1e-9);
  EXPECT_LE(T, 315);
  EXPECT_GE(x[1][0], 300 / T - 1e-9);
  EXPECT_GE(x[0][0], 100 / T - 1e-9);
  x = gavel_min_total_duration({{4.0, 1.0}, {2.0, 1.0}}, {1, 1}, {1, 1}, {400, 400}, &T);
  EXPECT_GE(T, 400 / 1.75 - 1e-9);
  EXPECT_LE(T, 1.05 * 400 / 1.75);
  EXPECT_GE(4 * x[0][0] + x[0][1], 400 / T - 1e-9);
  EXPECT_GE(2 * x[1][0] + x[1][1], 400 / T - 1e-9);
}

// The round mechanism by hand (gavel-las, one GPU, rounds of 360 s): two jobs of 1,000 s arrive at 0; max-min gives
// each half. Round 1: equal priorities (x 1e9), equal deficits and shares: job a (lower id). Round 2 (360): a ran
// the whole time (priority 0.5 / 1), b none (0.5e9): b, a stops. Round 3 (720): both ran half (priority 1 each):
// a again. a runs 0-360, 720-1080, 1440-1720 (1,000 s), finishes mid-round; the GPU idles, so a round starts at once
// (Gavel's round ends with its last micro-task): b, which ran 360-720 and 1080-1440 (720 s), runs 1720-2000.
TEST(GavelPolicies, RoundsByHand) {
  const auto r = test::run(test::cluster(1, 1), {"a,0,1,1000,1000", "b,0,1,1000,1000"}, "gavel-las");
  EXPECT_DOUBLE_EQ(r->start("a"), 0);
  EXPECT_DOUBLE_EQ(r->finish("a"), 1720);
  EXPECT_DOUBLE_EQ(r->start("b"), 360);
  EXPECT_DOUBLE_EQ(r->finish("b"), 2000);
  EXPECT_EQ(r->job("a").preemptions, 2);  // at 360 and 1,080
  EXPECT_EQ(r->job("b").preemptions, 2);  // at 720 and 1,440
}

// reset=: a job that arrives within `reset` seconds of the last solve has no share until the next solve. a (500 s)
// runs from 0; b arrives at 10 and waits for the round at 360. With reset=0 the program is solved again there: both
// get 1/2, the accounts restart, equal priorities and deficits: a (lower id) keeps the GPU, finishes at 500, the GPU
// idles and a round starts at once: b at 500. With reset=1920 nothing is solved at 360 or 500: rounds run at 500 +
// 360 k while b waits, and the first at least 1,920 s after the solve at 0 is 1,940: b starts then.
TEST(GavelPolicies, ResetIntervalHoldsNewJobsBack) {
  const auto now = test::run(test::cluster(1, 1), {"a,0,1,500,1000", "b,10,1,100,1000"}, "gavel-las");
  EXPECT_DOUBLE_EQ(now->start("b"), 500);
  EXPECT_DOUBLE_EQ(now->finish("b"), 600);
  const auto held = test::run(test::cluster(1, 1), {"a,0,1,500,1000", "b,10,1,100,1000"}, "gavel-las:reset=1920");
  EXPECT_DOUBLE_EQ(held->finish("a"), 500);
  EXPECT_DOUBLE_EQ(held->start("b"), 1940);
}

SimConfig mixed(const std::string& policy) {
  SimConfig c;
  c.cluster = "gavel:2:2:2";
  c.trace = kTrace;
  c.format = "gavel";
  c.policy = policy;
  c.perf_model = "measured:gavel";
  c.data_dir = std::string(RM_SHARED_DIR) + "/traces";
  return c;
}

// Every objective, agnostic and _perf, on 2 V100s, 2 P100s and 2 K80s under the measured model: every job finishes,
// the engine's invariants hold (no GPU twice, work conserved), and each _perf form does at least as well as its
// agnostic one on its own objective (makespan for makespan, average JCT for the others) on this trace.
TEST(GavelPolicies, EveryObjectiveOnMixedGpus) {
  for (const char* o : {"las", "ftf", "makespan", "throughput"}) {
    const auto agn = simulate(mixed(std::string("gavel-") + o));
    const auto perf = simulate(mixed(std::string("gavel-") + o + "-perf"));
    EXPECT_EQ(agn->summary.jobs, 15);
    EXPECT_EQ(perf->summary.jobs, 15);
    EXPECT_EQ(agn->summary.unschedulable, 0);
    EXPECT_EQ(perf->summary.unschedulable, 0);
    if (std::string(o) == "makespan") EXPECT_LT(perf->summary.makespan_s, agn->summary.makespan_s) << o;
    else EXPECT_LT(perf->summary.avg_jct_s, agn->summary.avg_jct_s) << o;
  }
}

TEST(GavelPolicies, RefusesWhatItCannotRun) {
  auto c = mixed("gavel-las-perf");
  c.perf_model = "analytic";
  try {
    simulate(c);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--perf-model"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("measured:gavel"), std::string::npos) << e.what();
  }
  for (const char* bad : {"gavel-las:round=0", "gavel-ftf:reset=-1", "gavel-makespan:rnd=3"}) {
    c = mixed(bad);
    EXPECT_THROW(simulate(c), InputError) << bad;
  }
  const auto out = test::shell(std::string(RM_BINARY) + " simulate --cluster gavel:2:2:2 --trace " + kTrace +
                               " --format gavel --policy gavel-ftf-perf --data-dir " + RM_SHARED_DIR +
                               "/traces --out " + test::temp_dir() + "/o 2>&1");
  EXPECT_EQ(out.code, 2) << out.text;
  EXPECT_NE(out.text.find("--perf-model"), std::string::npos) << out.text;
}

}  // namespace
}  // namespace rm
