// The task model's steady-state fast-forward (src/models/task/task_fast_forward.cpp): hand-computed runs
// that only finish in reasonable time by jumping, and the same job times as the step-by-step engine
// (--no-fast-forward) on the Wang et al. job sets, generated sets and multi-server contention.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <tuple>

#include "models/task/task_model.h"
#include "test_util.h"

namespace rm {
namespace {

using test::task_config;
const std::string& kSet1 = test::kWangSet1;
const std::string& kSet2 = test::kWangSet2;
const std::string kHeader = "job_id,arrival_ms,model,num_gpus,iterations,fw_ms,bw_ms,model_size_mb,gpu_mem_mb,batch_size\n";

// Runs with and without the fast-forward; every job's finish, the event count and the busy time equal
// (time is whole nanoseconds in both). Returns the jumps made.
std::int64_t expect_same_as_step_by_step(SimConfig cfg, const std::string& what) {
  cfg.fast_forward = true;
  auto ff = simulate(cfg);
  cfg.fast_forward = false;
  auto step = simulate(cfg);
  EXPECT_EQ(step->task->fast_forward_stats().jumps, 0) << what;
  const auto n = static_cast<int>(ff->workload.jobs.size());
  EXPECT_EQ(n, static_cast<int>(step->workload.jobs.size())) << what;
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(ff->task->finish_ms(i), step->task->finish_ms(i)) << what << " job " << i;
  EXPECT_EQ(ff->record.events, step->record.events) << what;
  EXPECT_EQ(ff->task->gpu_active_ms(), step->task->gpu_active_ms()) << what;
  EXPECT_EQ(ff->record.series.size(), step->record.series.size()) << what;
  for (std::size_t i = 0; i < std::min(ff->record.series.size(), step->record.series.size()); ++i) {
    const auto &a = ff->record.series[i], &b = step->record.series[i];
    EXPECT_TRUE(a.t == b.t && a.queued == b.queued && a.running == b.running && a.busy_gpus == b.busy_gpus)
        << what << " series row " << i;
  }
  EXPECT_EQ(ff->task->max_gpu_sharing(), step->task->max_gpu_sharing()) << what;
  EXPECT_EQ(ff->task->max_link_flows(), step->task->max_link_flows()) << what;
  return ff->task->fast_forward_stats().jumps;
}

// One GPU, two single-GPU jobs of 100-ms iterations: under SRSF keys the shorter one (500 iterations)
// holds the GPU to its end, then the other runs its 1,000. Job times 50 s and 150 s, exactly; 3,000
// iterations that the fast-forward covers in a few jumps.
TEST(FastForward, TwoJobsOnOneGpuHandComputed) {
  const std::string dir = test::temp_dir();
  const auto cluster = test::write_file(dir, "one.yaml", "servers:\n  - {count: 1, gpus: 1, gpu_mem_gb: 32, nic_gbps: 10}\n");
  const auto trace = test::write_file(dir, "two.csv",
                                      kHeader + "0,0,resnet50,1,1000,40,60,10,3000,16\n"
                                                "1,0,resnet50,1,500,40,60,10,3000,16\n");
  auto r = simulate(task_config(cluster, trace, "ada-srsf"));
  EXPECT_EQ(r->task->jct_ms(0), 150000.0);
  EXPECT_EQ(r->task->jct_ms(1), 50000.0);
  EXPECT_EQ(r->task->gpu_active_ms(), 150000.0);
  const auto& s = r->task->fast_forward_stats();
  EXPECT_GE(s.jumps, 2);
  EXPECT_GT(s.iterations, 1400);  // all but a few of the 1,500 iterations
  EXPECT_LE(s.iterations, 1500);
  expect_same_as_step_by_step(task_config(cluster, trace, "ada-srsf"), "two on one GPU");
}

// A job that arrives mid-run stops the jump at its arrival: it is placed on the idle second GPU at 7 s
// exactly, and both finish as computed by hand.
TEST(FastForward, JumpsStopAtTheNextArrival) {
  const std::string dir = test::temp_dir();
  const auto cluster = test::write_file(dir, "two.yaml", "servers:\n  - {count: 1, gpus: 2, gpu_mem_gb: 32, nic_gbps: 10}\n");
  const auto trace = test::write_file(dir, "late.csv",
                                      kHeader + "0,0,resnet50,1,1000,40,60,10,3000,16\n"
                                                "1,7000,resnet50,1,100,40,60,10,3000,16\n");
  auto r = simulate(task_config(cluster, trace, "srsf1"));
  EXPECT_EQ(r->task->finish_ms(0), 100000.0);
  EXPECT_EQ(r->task->finish_ms(1), 17000.0);
  EXPECT_GE(r->task->fast_forward_stats().jumps, 2);
  expect_same_as_step_by_step(task_config(cluster, trace, "srsf1"), "late arrival");
}

TEST(FastForward, SameJobTimesAsStepByStepOnTheWang2020Sets) {
  std::int64_t jumps = 0;
  for (const auto& set : {kSet1, kSet2})
    for (const char* p : {"ada-srsf", "srsf1", "srsf2", "srsf3", "ssf-bp-srsf-1-true", "ssf-lwf16-srsf-1-true",
                          "ssf-lwf1-srsf-1-true", "ada-srsf+keys=srtf", "srsf1+keys=ssf", "ada-srsf+random",
                          "ada-srsf+lwf:kappa=4;nic=true"})
      jumps += expect_same_as_step_by_step(task_config("wang2020", set, p), set + " " + p);
  EXPECT_GT(jumps, 100);  // the sets are short, yet it does jump
}

TEST(FastForward, SameJobTimesAsStepByStepOnGeneratedSets) {
  std::int64_t jumps = 0;
  for (std::uint64_t seed : {3, 4})
    for (const char* p : {"ada-srsf", "srsf1"}) {
      SimConfig cfg = task_config("wang2020", "", p);
      cfg.trace.clear();
      cfg.workload = "wang2020";
      cfg.format = "auto";
      cfg.seed = seed;
      cfg.gen.scale = 40;  // longer jobs than the paper's sets: more to jump over
      jumps += expect_same_as_step_by_step(cfg, "seed " + std::to_string(seed) + " " + p);
    }
  EXPECT_GT(jumps, 100);
}

// Two servers of one GPU, beta = 1 ms/MB: every 2-GPU job spans both NICs and its all-reduces contend.
TEST(FastForward, SameJobTimesAsStepByStepUnderNicContention) {
  const std::string dir = test::temp_dir();
  const auto cluster = test::write_file(dir, "link.yaml",
                                        "network: {beta_ms_per_mb: 1, eta_ms_per_mb: 0.5}\n"
                                        "servers:\n  - {count: 2, gpus: 1, gpu_mem_gb: 32, nic_gbps: 10}\n");
  const auto trace = test::write_file(dir, "contend.csv",
                                      kHeader + "0,0,resnet50,2,3000,3,5,4,3000,16\n"
                                                "1,10,resnet50,2,2000,2,7,9,3000,16\n"
                                                "2,5000,resnet50,1,4000,1,2,1,3000,16\n"
                                                "3,9000,resnet50,2,1500,4,4,2.5,3000,16\n");
  std::int64_t jumps = 0;
  for (const char* p : {"ada-srsf", "srsf1", "srsf2", "ada-srsf+keys=srtf"})
    jumps += expect_same_as_step_by_step(task_config(cluster, trace, p), p);
  EXPECT_GT(jumps, 4);
}

// Real job mixes: the Philly list (by submit time) from row `first`, `n` jobs, submit times divided by
// `squeeze` and durations by `shorten` (so that the step-by-step engine finishes in a second), models in
// turn. Jobs of 1-16 GPUs share GPUs and NICs on synergy128; rounding used to decide there (an idle GPU's
// workload, a flow's end against a task's), with the fast-forward off by up to 76 s at job 67; a jump could also end at an arrival's instant.
std::string philly_mix(const std::string& dir, int first, int n, double squeeze, double shorten) {
  std::ifstream in(std::string(RM_SHARED_DIR) + "/traces/philly-jobs/philly.csv");
  std::string line;
  std::getline(in, line);
  std::vector<std::tuple<std::int64_t, int, double>> rows;  // submit s, GPUs, duration s
  while (std::getline(in, line)) {
    int y, mo, d, h, mi, sec, gpus;
    double dur;
    if (std::sscanf(line.c_str(), "%d-%d-%d %d:%d:%d,%lf,%d", &y, &mo, &d, &h, &mi, &sec, &dur, &gpus) != 8) continue;
    y -= mo <= 2;  // days from 1970-01-01 (the civil-from-days inverse)
    const int era = y / 400, yoe = y - era * 400, doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const std::int64_t days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
    rows.emplace_back(days * 86400 + h * 3600 + mi * 60 + sec, gpus, dur);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  const char* models[] = {"resnet50", "vgg16", "inception3", "lstm"};
  std::string csv = "job_id,submit_s,num_gpus,model,duration_s\n";
  const std::int64_t t0 = std::get<0>(rows.at(first));
  for (int i = 0; i < n; ++i) {
    const auto& [t, gpus, dur] = rows.at(first + i);
    char buf[160];
    std::snprintf(buf, sizeof buf, "j%d,%.3f,%d,%s,%.3f\n", i, static_cast<double>(t - t0) / squeeze, gpus, models[i % 4],
                  std::max(dur / shorten, 1.0));
    csv += buf;
  }
  return test::write_file(dir, "philly_mix.csv", csv);
}

TEST(FastForward, SameJobTimesAsStepByStepOnPhillyMixes) {
  const std::string dir = test::temp_dir();
  std::int64_t jumps = 0;
  for (const auto& [first, squeeze, shorten] : {std::tuple{1500, 2000.0, 100.0}, std::tuple{0, 5000.0, 1000.0}}) {
    const std::string trace = philly_mix(dir, first, 300, squeeze, shorten);
    for (const char* p : {"srsf1", "ada-srsf+first-fit", "ada-srsf+keys=srtf"}) {
      SimConfig cfg = task_config("synergy128", trace, p);
      cfg.format = "auto";
      jumps += expect_same_as_step_by_step(cfg, "philly mix from " + std::to_string(first) + " " + p);
    }
  }
  EXPECT_GT(jumps, 1000);
}

TEST(FastForward, CompatModeNeverJumps) {
  SimConfig cfg = task_config("wang2020", kSet1, "ada-srsf");
  cfg.compat = "wang2020";
  EXPECT_EQ(simulate(cfg)->task->fast_forward_stats().jumps, 0);
}

}  // namespace
}  // namespace rm
