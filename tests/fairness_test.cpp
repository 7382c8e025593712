// The fairness and queueing figures papers report (issue 29; docs/formats.md, Outputs): finish-time fairness rho per
// job and its mean and max, queueing-delay quantiles, Jain's index of the users' GPU shares, users.csv; and the
// sweep's word when the seed changes nothing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace rm {
namespace {

// One 4-GPU server; two 4-GPU jobs of 100 s submitted together by two users, then a third user's 1-GPU job.
TEST(Fairness, FinishTimeFairnessQueueQuantilesJainAndUsersCsvByHand) {
  const std::string d = test::temp_dir();
  const std::string c = test::write_file(d, "c.yaml", "servers:\n  - {count: 1, gpus: 4, gpu_mem_gb: 32}\n");
  const std::string t = test::write_file(d, "t.csv",
                                         "job_id,submit_s,num_gpus,model,duration_s,user\n"
                                         "a,0,4,resnet50,100,u1\nb,0,4,resnet50,100,u2\nc,150,1,resnet50,100,u3\n");
  const auto r = test::shell(std::string(RM_BINARY) + " simulate --cluster " + c + " --trace " + t +
                             " --perf-model trace --policy fifo -q --out " + d + "/o 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  // a runs 0-100, b 100-200, c 200-300 (FIFO behind b). In the system at arrival: a and b 2 each (a 1/2 share
  // of 4 GPUs is 2: 4-GPU jobs run at half speed, 200 s); c 2 (b and itself: its 1 GPU fits a 1/2 share, 100 s).
  // rho: a 100/200, b 200/200, c 150/100.
  const std::string jobs = test::read_file(d + "/o/jobs.csv");
  EXPECT_NE(jobs.find(",gpu_type,ftf_rho,preempt_overhead_s,gpus_min,gpus_max,gpu_seconds,reallocations\n"), std::string::npos) << jobs;
  EXPECT_NE(jobs.find("\na,0.000000,4,resnet50,"), std::string::npos);
  // (then gpus_min, gpus_max, GPU-seconds held: a and b 4 GPUs for 100 s, c 1 GPU for 100 s; no reallocation)
  EXPECT_NE(jobs.find(",default,0.500000,0.000000,4,4,400.000000,0\n"), std::string::npos) << jobs;
  EXPECT_NE(jobs.find(",default,1.000000,0.000000,4,4,400.000000,0\n"), std::string::npos) << jobs;
  EXPECT_NE(jobs.find(",default,1.500000,0.000000,1,1,100.000000,0\n"), std::string::npos) << jobs;
  const auto s = nlohmann::json::parse(test::read_file(d + "/o/summary.json"));
  EXPECT_DOUBLE_EQ(s["ftf_rho_mean"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(s["ftf_rho_max"].get<double>(), 1.5);
  // Queueing delays 0, 100, 50 s: numpy's linear quantiles.
  EXPECT_DOUBLE_EQ(s["queue_p50_s"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(s["queue_p99_s"].get<double>(), 99.0);
  EXPECT_DOUBLE_EQ(s["queue_p999_s"].get<double>(), 99.9);
  // GPU-seconds per user 400, 400, 100: Jain = 900^2 / (3 x 330,000).
  EXPECT_EQ(s["users"], 3.0);
  EXPECT_NEAR(s["jain_user_gpu_share"].get<double>(), 810000.0 / 990000.0, 1e-12);
  EXPECT_EQ(test::read_file(d + "/o/users.csv"),
            "user,jobs,gpu_s,gpu_share,avg_jct_s,p99_jct_s,avg_queue_s,ftf_rho_mean,deadline_met_ratio\n"
            "u1,1,400.000000,0.444444,100.000000,100.000000,0.000000,0.500000,\n"
            "u2,1,400.000000,0.444444,200.000000,200.000000,100.000000,1.000000,\n"
            "u3,1,100.000000,0.111111,150.000000,150.000000,50.000000,1.500000,\n");
}

TEST(Fairness, ASweepSaysWhenTheSeedChangesNothing) {
  const std::string d = test::temp_dir();
  const auto r = test::shell(std::string(RM_BINARY) + " sweep --policy fifo --policy fifo+random --seeds 1-2 -q --out " +
                             d + "/sw 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("sweep: warning: seeds 1,2 gave identical jobs.csv for policy=fifo: the seed changes nothing"),
            std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("for policy=fifo+random"), std::string::npos) << r.text;  // random placement: seeds differ
}

}  // namespace
}  // namespace rm
