// `ringmaster compare` and the replay payload's checkpoint/resume, without Slurm.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "core/error.h"
#include "live/command.h"
#include "metrics/compare.h"
#include "test_util.h"

namespace rm {
namespace {

const char* kHeader = "job_id,submit_s,num_gpus,model,iterations,first_start_s,finish_s,jct_s,queue_s,run_s,preemptions,status\n";

TEST(Compare, PairsJobsByIdAndReportsAveragesAndStartOrder) {
  const auto d = test::temp_dir();
  std::filesystem::create_directories(d + "/a");
  std::filesystem::create_directories(d + "/b");
  test::write_file(d + "/a", "jobs.csv", std::string(kHeader) + "x,0,1,m,1,0,10,10,0,10,0,finished\n"
                                                                 "y,0,1,m,1,5,25,25,5,20,0,finished\n"
                                                                 "z,0,1,m,1,6,10,10,6,4,0,finished\n");
  test::write_file(d + "/b", "jobs.csv", std::string(kHeader) + "y,0,1,m,1,1,30,30,1,29,0,finished\n"
                                                                 "x,0,1,m,1,2,12,12,2,10,0,finished\n");
  const std::string r = compare_runs(d + "/a", d + "/b");
  EXPECT_NE(r.find("jobs in both: 2 (only in A: 1, only in B: 0)"), std::string::npos) << r;
  // A: (10 + 25) / 2 = 17.5; B: (12 + 30) / 2 = 21; +20 %; mean |diff| (2 + 5) / 2 = 3.5
  EXPECT_NE(r.find("average JCT: A 17.50 s, B 21.00 s, B vs A +20.00 %; mean |difference| 3.50 s"), std::string::npos) << r;
  EXPECT_NE(r.find("start order: 2 of 2 positions differ (first at position 1: x in A, y in B)"), std::string::npos) << r;
  // B's starts in one time stamp (Slurm's 1-s resolution) are taken in A's order: x, then y.
  test::write_file(d + "/b", "jobs.csv", std::string(kHeader) + "y,0,1,m,1,3,30,30,3,27,0,finished\n"
                                                                 "x,0,1,m,1,3,12,12,3,9,0,finished\n");
  const std::string t = compare_runs(d + "/a", d + "/b");
  EXPECT_NE(t.find("start order: identical (B's start time stamps tie 1 times; tied jobs taken in A's order)"),
            std::string::npos) << t;
  EXPECT_THROW(compare_runs(d + "/a", d + "/nowhere"), InputError);
  test::write_file(d + "/b", "jobs.csv", "job_id,jct_s\nx,1\n");
  EXPECT_THROW(compare_runs(d + "/a", d + "/b"), InputError);  // missing columns, named
}

TEST(Payload, StopsOnSigtermWithItsProgressAndResumesFromTheCheckpoint) {
  const auto d = test::temp_dir();
  const std::string ckpt = d + "/ckpt", times = d + "/times";
  std::filesystem::remove(times);
  const pid_t pid = fork();
  if (pid == 0) {
    execl(RM_BINARY, RM_BINARY, "payload", "--work", "30", "--checkpoint", ckpt.c_str(), "--speed-file",
          (d + "/none").c_str(), "--times", times.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  kill(pid, SIGTERM);
  int st = 0;
  waitpid(pid, &st, 0);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 143);
  double done = 0;
  std::ifstream(ckpt) >> done;
  EXPECT_GT(done, 0.3);
  EXPECT_LT(done, 5);
  // Resume with the work just above what is done: finishes quickly, exit 0, checkpoint = the work.
  const auto r = live::run_command({RM_BINARY, "payload", "--work", std::to_string(done + 0.2), "--checkpoint", ckpt,
                                    "--speed-file", d + "/none", "--times", times}, 20);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("resuming"), std::string::npos) << r.out;
  double after = 0;
  std::ifstream(ckpt) >> after;
  EXPECT_NEAR(after, done + 0.2, 1e-6);
  // Its times file (replay's latency measurement): launch, stopped, launch, done, in time order.
  std::ifstream tf(times);
  std::vector<std::pair<std::string, double>> ev;
  std::string what;
  double t = 0;
  while (tf >> what >> t) ev.push_back({what, t});
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].first, "launch");
  EXPECT_EQ(ev[1].first, "stopped");
  EXPECT_EQ(ev[2].first, "launch");
  EXPECT_EQ(ev[3].first, "done");
  for (std::size_t i = 1; i < ev.size(); ++i) EXPECT_LE(ev[i - 1].second, ev[i].second);
}

}  // namespace
}  // namespace rm
