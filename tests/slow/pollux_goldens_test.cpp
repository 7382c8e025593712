// --compat pollux (issue 43 goal 4): all 64 published runs of the Pollux simulator's deterministic baselines
// (tiresias and optimus x 8 workloads x loads 0.5, 1.0, 1.5, 2.0; 12,800 jobs), job by job against the authors'
// published JCTs (shared/goldens/peers/pollux). Load 1.0 runs in the main suite too (peer_pollux_test.cpp).
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    rows.push_back(f);
  }
  return rows;
}

class PolluxGoldens : public ::testing::TestWithParam<std::string> {};

TEST_P(PolluxGoldens, EveryWorkloadAtEveryLoadJobByJob) {
  const std::string policy = GetParam();
  int runs = 0, jobs = 0;
  for (const std::string load : {"0.5", "1.0", "1.5", "2.0"}) {
    std::map<std::string, std::map<std::string, std::string>> gold;  // workload -> job -> jct
    const auto g = read_csv(RM_SHARED_DIR "/goldens/peers/pollux/" + policy + "-" + load + ".csv");
    for (std::size_t i = 1; i < g.size(); ++i) gold[g[i].at(0)][g[i].at(1)] = g[i].at(2);
    ASSERT_EQ(gold.size(), 8u) << load;
    for (const auto& [workload, jcts] : gold) {
      const std::string out = std::string(::testing::TempDir()) + "/pollux_" + policy + "_" + load;
      const std::string cmd = std::string(RM_BINARY) + " simulate -q --compat pollux --cluster pollux:16:4 --trace " +
                              RM_SHARED_DIR "/traces/pollux/" + workload + ".csv --format pollux --policy " + policy +
                              " --data-dir " RM_SHARED_DIR "/traces --out " + out + " >/dev/null 2>&1";
      const int st = std::system(cmd.c_str());
      ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << cmd;
      const auto rows = read_csv(out + "/jobs.csv");
      ASSERT_GE(rows.size(), 1u);
      std::size_t id = 0, jct = 0;
      for (std::size_t c = 0; c < rows[0].size(); ++c) {
        if (rows[0][c] == "job_id") id = c;
        if (rows[0][c] == "jct_s") jct = c;
      }
      ASSERT_EQ(rows.size() - 1, jcts.size()) << workload;
      for (std::size_t i = 1; i < rows.size(); ++i) {
        const auto it = jcts.find(rows[i].at(id));
        ASSERT_NE(it, jcts.end()) << workload << " " << rows[i].at(id);
        EXPECT_EQ(std::stod(rows[i].at(jct)), std::stod(it->second)) << policy << " " << workload << " job " << it->first;
        ++jobs;
      }
      ++runs;
    }
  }
  EXPECT_EQ(runs, 32);
  EXPECT_EQ(jobs, 6400);
}

INSTANTIATE_TEST_SUITE_P(Baselines, PolluxGoldens, ::testing::Values("tiresias", "optimus"));

}  // namespace
