// --compat pollux (issue 43 goal 4): all 64 published runs of the Pollux simulator's deterministic baselines
// (tiresias and optimus x 8 workloads x loads 0.5, 1.0, 1.5, 2.0; 12,800 jobs), job by job against the authors'
// published JCTs (shared/goldens/peers/pollux). Load 1.0 runs in the main suite too (peer_pollux_test.cpp).
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
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

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::size_t col(const std::string& name) const {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    ADD_FAILURE() << "no column " << name;
    return 0;
  }
};
Table table(const std::string& path) {
  auto rows = read_csv(path);
  Table t;
  if (rows.empty()) return t;
  t.header = rows.front();
  t.rows.assign(rows.begin() + 1, rows.end());
  return t;
}

int run(const std::string& args) {
  const int st = std::system((std::string(RM_BINARY) + " simulate -q --compat pollux --format pollux --data-dir "
                              RM_SHARED_DIR "/traces " + args + " >/dev/null 2>&1").c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// Jobs re-allocated (jobs.csv reallocations; fewer and more GPUs over a job's life) and batch sizes re-chosen
// (pollux_rounds.csv).
void expect_elastic(const std::string& out, std::size_t jobs) {
  const Table j = table(out + "/jobs.csv");
  ASSERT_EQ(j.rows.size(), jobs);
  int moved = 0, resized = 0;
  for (const auto& r : j.rows) {
    EXPECT_EQ(r.at(j.col("status")), "finished");
    moved += std::stoi(r.at(j.col("reallocations"))) > 0;
    resized += std::stoi(r.at(j.col("gpus_min"))) < std::stoi(r.at(j.col("gpus_max")));
  }
  EXPECT_GT(moved, 0);
  EXPECT_GT(resized, 0);
  const Table rounds = table(out + "/pollux_rounds.csv");
  std::map<std::string, std::set<std::string>> batches;
  for (const auto& r : rounds.rows)
    if (!r.at(rounds.col("placement")).empty()) batches[r.at(rounds.col("job_id"))].insert(r.at(rounds.col("batch_size")));
  int changed = 0;
  for (const auto& [job, b] : batches) changed += b.size() > 1;
  EXPECT_GT(changed, 0);
}

// The Pollux policy on six small jobs (two nodes of 4 GPUs): every job done, resized and its batch re-chosen; the
// same seed gives the same files.
TEST(PolluxPolicy, ResizesJobsAndTheirBatchesDeterministically) {
  const std::string dir = std::string(::testing::TempDir()) + "/pollux_small";
  std::system(("mkdir -p " + dir).c_str());
  {
    std::ofstream w(dir + "/w.csv");
    w << "name,time,application,num_replicas,batch_size\nc0,0,cifar10,4,512\nc1,30,cifar10,2,256\n"
         "n2,45,ncf,1,32768\nc3,100,cifar10,1,128\nb4,130,bert,2,24\nc5,200,cifar10,4,1024\n";
  }
  for (const char* o : {"a", "b"})
    ASSERT_EQ(run("--cluster pollux:2:4 --trace " + dir + "/w.csv --policy pollux --seed 1 --out " + dir + "/" + o), 0);
  expect_elastic(dir + "/a", 6);
  for (const char* f : {"/jobs.csv", "/pollux_rounds.csv"}) {
    std::ifstream a(dir + "/a" + f), b(dir + "/b" + f);
    std::stringstream sa, sb;
    sa << a.rdbuf();
    sb << b.rdbuf();
    EXPECT_EQ(sa.str(), sb.str()) << f;
  }
}

// Issue 43's contract as written: Pollux on workload-6 with --seed 1 finishes all 160 jobs, re-allocates and
// re-batches; its mean JCT is within 5 % of the authors' published Pollux run of the same workload (2,446.13 s;
// their GA is unseeded: runs vary by a few per cent).
TEST(PolluxPolicy, TheContractRunOnWorkloadSix) {
  const std::string out = std::string(::testing::TempDir()) + "/pollux_w6";
  ASSERT_EQ(run("--cluster pollux:16:4 --trace " RM_SHARED_DIR "/traces/pollux/workloads/workload-6.csv --policy pollux "
                "--seed 1 --out " + out), 0);
  expect_elastic(out, 160);
  const Table j = table(out + "/jobs.csv");
  double sum = 0;
  for (const auto& r : j.rows) sum += std::stod(r.at(j.col("jct_s")));
  const double mean = sum / 160;
  EXPECT_NEAR(mean, 2446.13125, 0.05 * 2446.13125) << mean;
}

}  // namespace
