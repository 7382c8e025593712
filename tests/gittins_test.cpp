// The native Gittins orders (issue 27 goal 3): hand-computed schedules on one GPU, the distribution learnt
// online, the default distribution from --data-dir, bad parameters.
#include "core/error.h"
#include "run/simulation.h"
#include "test_util.h"

namespace rm::test {
namespace {

// Total services 100, 200, 400 GPU-seconds. G(a, D) = P(S - a <= D | S > a) / E[min(S - a, D) | S > a]:
//   a = 0:   D = 100: 1/300; D = 200: 2/500; D = 400: 3/700 (the sup: 0.00429).
//   a = 150: survivors 200, 400: D = 50: 1/(50 + 50) = 0.01 (the sup); a in (200, 400): 1/(400 - a) >= 0.005.
// J0 (1 GPU, 300 s from 0) and J1 (1 GPU, 50 s from 150) on one GPU.
const std::vector<std::string> kTwo = {"J0,0,1,300,1000", "J1,150,1,50,1000"};

std::string cdf(const std::string& dir) { return write_file(dir, "cdf.csv", "duration\n400\n100\n200\n"); }

TEST(Gittins, ContinuousKeepsTheJobLikelyToFinishSoon) {
  const auto r = run(cluster(1, 1), kTwo, "gittins:cdf=" + cdf(temp_dir()));
  // At 150 J0's index (0.01) beats the new J1's (0.00429), and grows as J0 nears 200 then 400: J0 runs to 300.
  EXPECT_DOUBLE_EQ(r->finish("J0"), 300);
  EXPECT_DOUBLE_EQ(r->start("J1"), 300);
  EXPECT_DOUBLE_EQ(r->finish("J1"), 350);
  // LAS, by contrast, preempts J0 for J1 at 150 (0 attained < 150).
  const auto las = run(cluster(1, 1), kTwo, "las");
  EXPECT_DOUBLE_EQ(las->finish("J1"), 200);
  EXPECT_DOUBLE_EQ(las->finish("J0"), 350);
}

// 2d-gittins, delta = 100: service counted in whole quanta. At 150 J0 counts 100: G(100, 100) = 1/(100 + 100) =
// 0.005 over J1's G(0, 100) = 1/(100 + 2 x 100) = 0.00333, so J0 keeps the GPU; at 200 it counts 200: no sample ends
// in (200, 300], G = 0, and J1 preempts it (the quantum's end wakes the scheduler): J1 200-250, J0 250-350.
TEST(Gittins, DiscretisedChangesRankOnlyAtQuantumBoundaries) {
  const auto r = run(cluster(1, 1), kTwo, "2d-gittins:delta=100;cdf=" + cdf(temp_dir()));
  EXPECT_DOUBLE_EQ(r->start("J1"), 200);
  EXPECT_DOUBLE_EQ(r->finish("J1"), 250);
  EXPECT_DOUBLE_EQ(r->finish("J0"), 350);
  EXPECT_EQ(r->job("J0").preemptions, 1);
}

// cdf=online: the services of finished jobs. A (100 GPU-s) finishes at 100; B starts at 100; when C arrives at 250,
// B has 150 GPU-s, past every sample (index 0), C has index 1/100: C preempts B. Without a sample (C arriving before
// A ends) every index is 0 and jobs keep their arrival order.
TEST(Gittins, OnlineLearnsFromFinishedJobs) {
  const auto r = run(cluster(1, 1), {"A,0,1,100,1000", "B,100,1,200,1000", "C,250,1,50,1000"}, "gittins:cdf=online");
  EXPECT_DOUBLE_EQ(r->start("C"), 250);
  EXPECT_DOUBLE_EQ(r->finish("C"), 300);
  EXPECT_DOUBLE_EQ(r->finish("B"), 350);
  const auto none = run(cluster(1, 1), {"A,0,1,100,1000", "C,50,1,50,1000"}, "gittins:cdf=online");
  EXPECT_DOUBLE_EQ(none->start("C"), 100);
}

// The CLI fills in Tiresias' distribution under --data-dir when the policy names none.
TEST(Gittins, DefaultDistributionUnderTheDataDir) {
  SimConfig c;
  c.cluster = "tiny";
  c.trace = std::string(RM_SHARED_DIR) + "/traces/tiresias/60_job.csv";
  c.policy = "gittins";
  c.data_dir = std::string(RM_SHARED_DIR) + "/traces";
  const auto a = simulate(c);
  c.policy = "gittins:cdf=" + c.data_dir + "/tiresias/yarn-gput1000.csv";
  const auto b = simulate(c);
  EXPECT_EQ(a->summary.jobs, 60);
  EXPECT_EQ(a->summary.avg_jct_s, b->summary.avg_jct_s);
  c.data_dir = temp_dir();
  c.policy = "2d-gittins";
  EXPECT_THROW(simulate(c), InputError);  // no yarn-gput1000.csv there: the error names the file
}

TEST(Gittins, BadParametersNameThePart) {
  const std::string dir = temp_dir();
  const auto expect = [&](const std::string& policy, const std::string& needle) {
    try {
      make_scheduler(policy, 1);
      ADD_FAILURE() << policy;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect("gittins", "cdf=FILE");
  expect("2d-gittins:delta=0;cdf=online", "2d-gittins:delta");
  expect("gittins:cdf=" + write_file(dir, "bad.csv", "service\n5\n"), "bad.csv:1:duration");
  expect("gittins:cdf=" + write_file(dir, "neg.csv", "duration\n5\n-1\n"), "neg.csv:3:duration");
  expect("gittins:cdf=online;window=0", "window");
}

}  // namespace
}  // namespace rm::test
