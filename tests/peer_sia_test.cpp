// --compat sia (issue 44): Sia's simulator and its policies reproduced job by job and round by round against runs of
// the authors' simulator under the goldens' shim (tests/data/sia/README.md), the contract's commands, the float32
// goodput of Sia's policy against numpy's, the placement by hand, and bad input. All eight Philly workloads under
// both policies: tests/slow/sia_goldens_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "exec/goodput.h"
#include "run/simulation.h"
#include "sia_golden_check.h"
#include "test_util.h"

namespace rm {
namespace {

const std::string kData = std::string(RM_SOURCE_DIR) + "/tests/data/sia/";
const std::string kWorkloads = std::string(RM_SHARED_DIR) + "/traces/sia/workloads/";

TEST(PeerSia, SiaOnPhillyWorkloadOneJobByJobAndRoundByRound) { sia_golden::check("sia", "philly/workload-1"); }

TEST(PeerSia, GavelOnPhillyWorkloadOneJobByJobAndRoundByRound) { sia_golden::check("gavel", "philly/workload-1"); }

// The contract's commands as written (paths relative to the repository root, where ctest runs them).
TEST(PeerSia, TheContractCommands) {
  for (const std::string policy : {"sia", "gavel"}) {
    const std::string dir = test::temp_dir();
    const auto out = test::shell(std::string(RM_BINARY) + " simulate -q --compat sia --cluster sia-64 --trace " + kWorkloads +
                                 "philly/workload-3.csv --format pollux --policy " + policy + " --data-dir " +
                                 RM_SHARED_DIR + "/traces --out " + dir + " 2>&1");
    ASSERT_EQ(out.code, 0) << out.text;
    const std::string jobs = test::read_file(dir + "/jobs.csv");
    const std::string summary = test::read_file(dir + "/summary.json");
    EXPECT_NE(summary.find("\"avg_jct_s\": "), std::string::npos);
    EXPECT_NE(summary.find("\"exec\": \"sia-rounds+compat=sia\""), std::string::npos) << summary.substr(0, 400);
    EXPECT_NE(jobs.find(",gpu_type,"), std::string::npos);
    EXPECT_NE(jobs.find(",reallocations\n"), std::string::npos);
    EXPECT_EQ(jobs.find("unfinished"), std::string::npos);
    // Every job finished, on named types: a100, t4 or rtx2080ti, '+'-joined when it moved.
    std::stringstream ss(jobs);
    std::string line;
    std::getline(ss, line);
    int n = 0;
    while (std::getline(ss, line)) {
      ++n;
      EXPECT_NE(line.find(",finished,"), std::string::npos) << line;
      EXPECT_TRUE(line.find("a100") != std::string::npos || line.find(",t4") != std::string::npos ||
                  line.find("rtx2080ti") != std::string::npos)
          << line;
    }
    EXPECT_EQ(n, 160) << policy;
  }
}

// Sia's policy evaluates goodput on float32 arrays of nodes and GPUs (sia.py _compute_goodputs_v2): numpy's float32
// geomspace, local batch and accumulation, the float32 retrogression factor. The values of the authors' goodput.py
// (numpy 1.24, AVX-512 off as the goldens run) for these parameters:
TEST(PeerSia, GoodputOverFloat32ConfigurationsAsNumpyComputesIt) {
  const pollux::PerfParams pp{0.0123, 0.00456, 0.0789, 0.00321, 0.0234, 0.00123, 1.37};
  const std::vector<int> nodes = {1, 1, 1, 1, 2, 3}, gpus = {1, 2, 4, 8, 16, 24};
  const pollux::GoodputFunction a(pp, {0.8, 2.5}, 128);
  const std::vector<double> want_a = {214.77230779207068, 411.9381382091463, 762.9406546142953,
                                      1209.8352504068775, 1263.7892785935992, 1360.2045107324843};
  EXPECT_EQ(a.optimize_f32(nodes, gpus, 4096, 32, 256), want_a);
  // The float64 path of the same configuration differs in the last bits (the retrogression's float32 1e-8).
  EXPECT_EQ(a.optimize(1, 2, 4096, 32, 256, true).goodput, 411.9381382091463);
  // One configuration whose least batch is the largest (step zero): numpy's linspace then scales every column alike.
  EXPECT_EQ(a.optimize_f32({1, 1}, {1, 4}, 128, 32, 256), (std::vector<double>{214.77230779207068, 762.9406546142953}));
  const pollux::GoodputFunction b(pp, {0.01, 5.0}, 128);
  EXPECT_EQ(b.optimize_f32(nodes, gpus, 3000, 32, 64),
            (std::vector<double>{210.42940750539873, 416.1812325852594, 825.1506377050342, 1633.3468409776044,
                                 3008.9068478912955, 4256.488843951379}));
}

TEST(PeerSia, BadInputIsRefusedByName) {
  const std::string dir = test::temp_dir();
  const std::string base = std::string(RM_BINARY) + " simulate -q --compat sia --data-dir " + RM_SHARED_DIR + "/traces --out " + dir + "/o ";
  const std::string w1 = kWorkloads + "philly/workload-1.csv";
  // A cluster of a type Sia never measured.
  auto r = test::shell(base + "--cluster gavel-36-36-36 --trace " + w1 + " --format pollux --policy sia 2>&1");
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("--compat sia needs GPU types Sia measured"), std::string::npos) << r.text;
  // An unknown policy, an unknown parameter, p = 0, parameters for gavel.
  r = test::shell(base + "--cluster sia-64 --trace " + w1 + " --format pollux --policy sai 2>&1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("did you mean"), std::string::npos) << r.text;
  r = test::shell(base + "--cluster sia-64 --trace " + w1 + " --format pollux --policy 'sia:q=1' 2>&1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("unknown Sia parameter"), std::string::npos) << r.text;
  r = test::shell(base + "--cluster sia-64 --trace " + w1 + " --format pollux --policy 'sia:p=0' 2>&1");
  EXPECT_EQ(r.code, 2);
  r = test::shell(base + "--cluster sia-64 --trace " + w1 + " --format pollux --policy 'gavel:p=1' 2>&1");
  EXPECT_EQ(r.code, 2);
  // A workload row naming an application Sia has no tables for, and a batch below the application's least.
  const std::string bad = test::write_file(dir, "bad.csv",
                                           "name,time,application,num_replicas,batch_size\n"
                                           "a-0,0,cifar10,1,128\nb-1,10,resnet,1,128\n");
  r = test::shell(base + "--cluster sia-64 --trace " + bad + " --format pollux --policy sia 2>&1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find(bad + ":3:application"), std::string::npos) << r.text;
  const std::string small = test::write_file(dir, "small.csv", "name,time,application,num_replicas,batch_size\na-0,0,cifar10,1,16\n");
  r = test::shell(base + "--cluster sia-64 --trace " + small + " --format pollux --policy gavel 2>&1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find(small + ":2:batch_size"), std::string::npos) << r.text;
}

// A tiny run by hand: one cifar10 job alone on sia-64 starts at the first round after its submission (a fraction of a
// second, as the newtrace workloads give them) on one GPU of the first type (nothing is fitted yet: every type counts
// 1 for one GPU and the program's first optimum is taken), and finishes.
TEST(PeerSia, OneJobAloneStartsAtTheNextRound) {
  const std::string dir = test::temp_dir();
  const std::string w = test::write_file(dir, "one.csv", "name,time,application,num_replicas,batch_size\ncifar10-0,30.5,cifar10,1,128\n");
  const auto r = test::shell(std::string(RM_BINARY) + " simulate -q --compat sia --cluster sia-64 --trace " + w +
                             " --format pollux --policy sia --data-dir " + RM_SHARED_DIR + "/traces --out " + dir + "/o 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  const auto rows = sia_golden::csv(dir + "/o/jobs.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at(1), "30.5");  // submit_s
  EXPECT_EQ(rows[0].at(5), "60");    // first_start_s: the round at 60 s
  EXPECT_EQ(rows[0].at(11), "finished");
}

}  // namespace
}  // namespace rm
