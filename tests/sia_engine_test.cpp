// The engine's `sia` policy (issue 44, contract item 3; policy/sia.cpp): Sia's program over a cluster of several GPU
// types with the run's performance model as its oracle, outside --compat.
#include <gtest/gtest.h>

#include <sstream>

#include "test_util.h"

namespace rm {
namespace {

const std::string kShared = RM_SHARED_DIR;

std::string run(const std::string& dir, const std::string& cluster, const std::string& trace, const std::string& policy,
                int* code, const std::string& extra = "") {
  const auto r = test::shell(std::string(RM_BINARY) + " simulate -q --cluster " + cluster + " --trace " + trace +
                             " --format pollux --policy '" + policy + "' --perf-model measured:sia --data-dir " +
                             kShared + "/traces --out " + dir + " " + extra + " 2>&1");
  *code = r.code;
  return r.text;
}

// Six T4 nodes of 4 GPUs and three A100 nodes of 8.
std::string two_types(const std::string& dir) {
  return test::write_file(dir, "two.yaml",
                          "name: two-types\nservers:\n  - {count: 6, gpus: 4, gpu_type: t4, gpu_mem_gb: 16}\n"
                          "  - {count: 3, gpus: 8, gpu_type: a100, gpu_mem_gb: 40}\n");
}

// The contract: a cluster YAML with two GPU types runs sia on a --format pollux workload; every job finishes, each
// on GPUs of one type at a time.
TEST(SiaEngine, TwoGpuTypesRunSiaOnAPolluxWorkload) {
  const std::string dir = test::temp_dir();
  const std::string yaml = two_types(dir);
  int code = 0;
  const std::string out = run(dir + "/o", yaml, kShared + "/traces/sia/workloads/philly/workload-2.csv", "sia", &code);
  ASSERT_EQ(code, 0) << out;
  const std::string jobs = test::read_file(dir + "/o/jobs.csv");
  std::stringstream ss(jobs);
  std::string line;
  std::getline(ss, line);
  int n = 0, t4 = 0, a100 = 0;
  while (std::getline(ss, line)) {
    ++n;
    EXPECT_NE(line.find(",finished,"), std::string::npos) << line;
    t4 += line.find(",t4,") != std::string::npos;
    a100 += line.find(",a100,") != std::string::npos;
  }
  EXPECT_EQ(n, 160);
  EXPECT_GT(t4, 0);  // both types used
  EXPECT_GT(a100, 0);
  const std::string summary = test::read_file(dir + "/o/summary.json");
  EXPECT_NE(summary.find("\"sia_rounds\""), std::string::npos);
  // Byte-identical again (determinism).
  run(dir + "/p", yaml, kShared + "/traces/sia/workloads/philly/workload-2.csv", "sia", &code);
  EXPECT_EQ(test::read_file(dir + "/p/jobs.csv"), jobs);
}

// By hand: one cifar10 job alone on a T4 node and an A100 node. Every configuration's goodput over its least is >= 1,
// and p = -0.5 turns the fastest into the smallest cost below lambda_n = 1.1: the job runs on the A100s.
TEST(SiaEngine, ALoneJobTakesTheFasterType) {
  const std::string dir = test::temp_dir();
  const std::string yaml = test::write_file(dir, "tiny.yaml",
                                            "name: tiny\nservers:\n  - {count: 1, gpus: 4, gpu_type: t4, gpu_mem_gb: 16}\n"
                                            "  - {count: 1, gpus: 8, gpu_type: a100, gpu_mem_gb: 40}\n");
  const std::string trace = test::write_file(dir, "one.csv", "name,time,application,num_replicas,batch_size\ncifar10-0,0,cifar10,1,128\n");
  int code = 0;
  const std::string out = run(dir + "/o", yaml, trace, "sia", &code);
  ASSERT_EQ(code, 0) << out;
  const std::string jobs = test::read_file(dir + "/o/jobs.csv");
  EXPECT_NE(jobs.find(",a100,"), std::string::npos) << jobs;
  EXPECT_NE(jobs.find("cifar10-0,0.000000,"), std::string::npos) << jobs;  // started in the first round
  // With p > 0 (Sia maximises) and lambda_n < 0 it still runs, on one type.
  const std::string out2 = run(dir + "/p", yaml, trace, "sia:p=0.5;lambda_n=-1.1", &code);
  ASSERT_EQ(code, 0) << out2;
}

// Sia's job model (--job-model sia): each job keeps a profile and a fitted model per GPU type and the engine's sia
// weighs configurations by them, as Sia's scheduler does; every job finishes, jobs move between types, and a job that
// ran on two types has fitted both.
TEST(SiaEngine, SiasJobModelOnTwoTypes) {
  const std::string dir = test::temp_dir();
  const std::string yaml = two_types(dir);
  int code = 0;
  const std::string out = run(dir + "/o", yaml, kShared + "/traces/sia/workloads/philly/workload-2.csv", "sia", &code,
                              "--job-model sia --max-jobs 60");
  ASSERT_EQ(code, 0) << out;
  const std::string summary = test::read_file(dir + "/o/summary.json");
  EXPECT_NE(summary.find("\"exec\": \"rate+sia-jobs\""), std::string::npos) << summary.substr(0, 500);
  const std::string jobs = test::read_file(dir + "/o/jobs.csv");
  EXPECT_EQ(jobs.find("unfinished"), std::string::npos);
  const std::string log = test::read_file(dir + "/o/sia_jobs.csv");
  ASSERT_NE(log.find("time_s,job_id,gpu_type,gpus,"), std::string::npos);
  EXPECT_NE(log.find(",aws,"), std::string::npos);
  EXPECT_NE(log.find(",dgx-ext,"), std::string::npos);
  const auto at = summary.find("\"sia_job_profiled_types\": ");
  ASSERT_NE(at, std::string::npos);
  const auto fits = summary.find("\"sia_job_fits\": ");
  ASSERT_NE(fits, std::string::npos);
  EXPECT_GT(std::stod(summary.substr(at + 26)), 60.0);  // some job profiled two types
  // Sia's jobs need Sia's tables: a type Sia never measured is refused by name.
  const std::string k80 = test::write_file(dir, "k80.yaml", "name: k80\nservers:\n  - {count: 4, gpus: 4, gpu_type: k80}\n");
  const std::string bad = run(dir + "/p", k80, kShared + "/traces/sia/workloads/philly/workload-2.csv", "sia", &code,
                              "--job-model sia --max-jobs 5");
  EXPECT_EQ(code, 2) << bad;
  EXPECT_NE(bad.find("k80"), std::string::npos) << bad;
}

TEST(SiaEngine, BadParametersAreRefused) {
  const std::string dir = test::temp_dir();
  const std::string trace = kShared + "/traces/sia/workloads/philly/workload-1.csv";
  int code = 0;
  std::string out = run(dir + "/o", "sia-64", trace, "sia:p=0", &code);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("p"), std::string::npos);
  out = run(dir + "/o", "sia-64", trace, "sia:q=1", &code);
  EXPECT_EQ(code, 2) << out;
  out = run(dir + "/o", "sia-64", trace, "sia:round=0", &code);
  EXPECT_EQ(code, 2) << out;
}

}  // namespace
}  // namespace rm
