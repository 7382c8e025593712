// What a run says about its own slowdown (issue 26, first part): each job's ideal run time (alone, at its best
// placement on an idle cluster), its stretch, the servers it spanned and its GPU type in jobs.csv;
// gpu_time_inflation and stretch quantiles in summary.json, with a warning naming the cause; --perf-model
// analytic (the law) or trace (the trace's duration whatever the placement).
#include <gtest/gtest.h>

#include "core/error.h"
#include "run/run_plan.h"
#include "metrics/metrics.h"
#include "sched/job_state.h"
#include "test_util.h"

namespace rm {
namespace {

// Two 4-GPU servers. a (2 GPUs, 1,000 s) starts first on server 0; b (4 GPUs, 10 s of compute per 100
// iterations, 1 GB of gradients) arrives at 1 s: first-fit gives it server 0's last two GPUs and two of
// server 1's, so it spans two servers where one would do.
const std::vector<std::string> kRows = {"a,0,2,10000,100,0", "b,1,4,100,100,1000"};

struct Result {
  std::vector<JobSpec> specs;  // what the records point at
  RunRecord rec;
};

std::unique_ptr<Result> run_with(bool trace_law, const std::string& policy,
                                 const std::vector<std::string>& rows = kRows) {
  const auto c = test::cluster(2, 4);
  auto r = std::make_unique<Result>();
  r->specs = test::jobs(c, rows);
  auto sched = make_scheduler(policy, 1);
  Engine e(c, r->specs, *sched, make_rate_model(c, nullptr, trace_law));
  e.run();
  r->rec = record_of(e);
  return r;
}

TEST(Stretch, AJobAloneAtItsBestPlacementHasStretchOne) {
  const auto r = run_with(false, "fifo");
  const JobRecord& a = r->rec.jobs[0];
  EXPECT_EQ(a.servers, 1);
  EXPECT_EQ(a.ideal_us, from_seconds(1000));  // 10,000 iterations x 100 ms, no communication on one server
  EXPECT_EQ(a.run_us, a.ideal_us);
  ASSERT_EQ(a.gpu_type, 0);  // the record outlives the engine: the type is an index into its own list
  EXPECT_EQ(r->rec.gpu_types.at(0), "default");
}

TEST(Stretch, ASpreadJobIsStretchedUnderTheLawAndNotUnderTheTrace) {
  const auto run = run_with(false, "fifo+first-fit");
  const RunRecord& law = run->rec;
  const JobRecord& b = law.jobs[1];
  EXPECT_EQ(b.servers, 2);                     // first-fit: two GPUs on each server
  EXPECT_EQ(b.ideal_us, from_seconds(10));     // on one server: 100 x 100 ms
  EXPECT_GT(b.run_us, 2 * b.ideal_us);         // a 1-GB all-reduce over 10 Gb/s per iteration
  const Summary s = summarize(law, 0);
  double inflation = 0;
  for (const auto& [k, v] : s.extra)
    if (k == "gpu_time_inflation") inflation = v;
  const double held = 2 * 1000 + 4 * to_seconds(b.run_us), ideal = 2 * 1000 + 4 * 10.0;
  EXPECT_NEAR(inflation, held / ideal, 1e-12);
  EXPECT_EQ(stretch_warning(law, 4), "");  // 1.0x on a, ~3x on b: the GPU-time held is < 1.5x the ideal

  const auto traced = run_with(true, "fifo+first-fit");
  const RunRecord& trace = traced->rec;
  EXPECT_EQ(trace.jobs[1].servers, 2);
  EXPECT_EQ(trace.jobs[1].run_us, trace.jobs[1].ideal_us);  // the trace's duration whatever the placement
  EXPECT_EQ(trace.jobs[0].run_us, trace.jobs[0].ideal_us);

  const auto consolidated = run_with(false, "fifo");  // the default, consolidated: b waits for a whole server
  const RunRecord& packed = consolidated->rec;
  EXPECT_EQ(packed.jobs[1].servers, 1);
  EXPECT_EQ(packed.jobs[1].run_us, packed.jobs[1].ideal_us);
}

// A job that moves between GPU types: each type's iterations at that type's ideal time. 100 iterations; none
// done when it starts on type 1 (2 s each): 200 s. 40 done there, it resumes on type 0 (0.5 s each):
// 40 x 2 + 60 x 0.5 = 110 s (the whole work on the last type would say 50 s, a stretch below 1).
TEST(Stretch, AJobOnTwoTypesAddsUpEachTypesShare) {
  JobSpec spec;
  spec.iterations = 100;
  JobState j;
  j.spec = &spec;
  j.remaining = 100;
  j.ideal_iter_time = 1;
  j.move_to_type(1, 2.0);
  EXPECT_DOUBLE_EQ(j.ideal_s(), 200);
  j.remaining = 60;
  j.move_to_type(0, 0.5);
  EXPECT_DOUBLE_EQ(j.ideal_s(), 110);
  EXPECT_EQ(j.ideal_type, 0);
}

TEST(Stretch, TheWarningNamesTheCause) {
  const auto run = run_with(false, "fifo+first-fit", {"a,0,2,100,100,0", "b,1,4,100,100,1000"});
  const std::string w = stretch_warning(run->rec, 4);  // b, spread, now holds most of the GPU-time
  EXPECT_NE(w.find("placements spread jobs over more servers than they need"), std::string::npos) << w;
  EXPECT_NE(w.find("consolidated"), std::string::npos) << w;
  // The same run read as on 2-GPU servers: b needs two servers, so its slowdown is the law's, not the placement's.
  EXPECT_NE(stretch_warning(run->rec, 2).find("contention"), std::string::npos);
  // A run whose placement takes the fewest servers free now (spread-ok): the spread came from the free GPUs'
  // scatter; the advice is the placement that keeps shapes and the measured model, not the default it is told of.
  const std::string packed = stretch_warning(run->rec, 4, "spread-ok");
  EXPECT_NE(packed.find("scattered"), std::string::npos) << packed;
  EXPECT_NE(packed.find("consolidated without relax= keeps each job's shape"), std::string::npos) << packed;
  EXPECT_NE(packed.find("--perf-model measured"), std::string::npos) << packed;
  EXPECT_EQ(packed.find("the default when --policy names none"), std::string::npos) << packed;
}

TEST(Stretch, PerfModelIsCheckedByName) {
  SimConfig cfg;
  cfg.cluster = "tiny";
  cfg.trace = "builtin:demo";
  cfg.policy = "fifo";
  cfg.perf_model = "trace";
  EXPECT_EQ(make_run_plan(cfg).perf_model_label(ExecModel::Rate), "trace");
  for (const char* bad : {"measured:nowhere", "fast"}) {
    cfg.perf_model = bad;
    try {
      make_run_plan(cfg);
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--perf-model"), std::string::npos) << e.what();
    }
  }
  cfg.perf_model = "trace";
  cfg.exec = "task";
  cfg.policy = "ada-srsf";
  EXPECT_THROW(make_run_plan(cfg), InputError);  // the task model keeps its DAG law
  cfg.exec = "auto";
  cfg.policy = "sjf-bco";
  EXPECT_THROW(make_run_plan(cfg), InputError);  // a planner replays under its own law
}

TEST(Stretch, JobsCsvAndSummaryCarryTheColumns) {
  const std::string dir = test::temp_dir();
  const auto out = test::shell(std::string(RM_BINARY) + " simulate -q --cluster tiny --trace builtin:demo --policy fifo --out " +
                               dir + "/o 2>&1");
  ASSERT_EQ(out.code, 0) << out.text;
  const std::string jobs = test::read_file(dir + "/o/jobs.csv");
  EXPECT_EQ(jobs.substr(0, jobs.find('\n')),
            "job_id,submit_s,num_gpus,model,iterations,first_start_s,finish_s,jct_s,queue_s,run_s,preemptions,status,"
            "ideal_s,stretch,servers,gpu_type,ftf_rho,preempt_overhead_s,gpus_min,gpus_max,gpu_seconds,reallocations");
  const std::string summary = test::read_file(dir + "/o/summary.json");
  for (const char* key : {"\"perf_model\": \"analytic\"", "\"gpu_time_inflation\"", "\"stretch_p50\"", "\"stretch_p99\""})
    EXPECT_NE(summary.find(key), std::string::npos) << key;
  // fifo on tiny keeps every job's shape (issue 41): 1.00x, no warning; spread-ok, the old default, 1.52x.
  EXPECT_EQ(out.text.find("warning: jobs held"), std::string::npos) << out.text;
  const auto spread = test::shell(std::string(RM_BINARY) + " simulate -q --cluster tiny --trace builtin:demo --policy "
                                  "fifo+spread-ok --out " + dir + "/s 2>&1");
  EXPECT_NE(spread.text.find("warning: jobs held 1.52x"), std::string::npos) << spread.text;
  EXPECT_NE(spread.text.find("consolidated without relax= keeps each job's shape"), std::string::npos) << spread.text;
  std::filesystem::remove_all(dir);
}

// The contract: a job alone on an idle cluster, at its best placement, has stretch 1 under every execution model
// and performance model (the round model outside --compat synergy, whose whole rounds round it up).
TEST(Stretch, AJobAloneHasStretchOneUnderEveryModel) {
  const std::string dir = test::temp_dir();
  const std::string one = test::write_file(dir, "one.csv", "job_id,submit_s,num_gpus,model,duration_s\nj1,0,4,resnet50,1000\n");
  const std::string wide = test::write_file(dir, "wide.csv", "job_id,submit_s,num_gpus,model,duration_s\nj1,0,16,resnet50,1000\n");
  const std::string typed = test::write_file(
      dir, "typed.yaml", "servers:\n  - {count: 4, gpus: 4, gpu_mem_gb: 32, nic_gbps: 10, gpu_type: V100}\n");
  const std::vector<std::string> runs = {
      "--cluster tiny --exec rate --policy fifo",
      "--cluster tiny --exec rate --policy fifo --perf-model trace",
      "--cluster " + typed + " --exec rate --policy srsf+consolidated",
      "--cluster tiny --exec graph --policy fifo",
      "--cluster wang2020 --exec task --policy srsf1",
      "--cluster synergy32 --exec rate --policy fifo+tune",
      "--cluster synergy32 --exec round --policy fifo",
      "--cluster synergy32 --exec round --policy fifo+tune"};
  for (const auto& args : runs)
    for (const auto& trace : {one, wide}) {
      const auto out = test::shell(std::string(RM_BINARY) + " simulate -q " + args + " --trace " + trace + " --out " +
                                   dir + "/o 2>&1");
      ASSERT_EQ(out.code, 0) << args << "\n" << out.text;
      const std::string jobs = test::read_file(dir + "/o/jobs.csv");
      const std::string row = jobs.substr(jobs.find('\n') + 1);
      std::vector<std::string> f;
      std::size_t a = 0;
      for (std::size_t b; (b = row.find_first_of(",\n", a)) != std::string::npos; a = b + 1) f.push_back(row.substr(a, b - a));
      ASSERT_EQ(f.size(), 22u) << row;  // 18, then gpus_min, gpus_max, gpu_seconds, reallocations (issue 43)
      EXPECT_EQ(f[13], "1.000000") << args << " " << trace << ": " << row;
      EXPECT_EQ(f[18], f[2]) << row;  // a rigid job: its GPUs, throughout
      EXPECT_EQ(f[19], f[2]) << row;
      EXPECT_DOUBLE_EQ(std::stod(f[20]), std::stod(f[2]) * std::stod(f[9])) << row;  // its GPUs x run_s
      EXPECT_EQ(f[21], f[10]) << row;  // each resume after a preemption is a new allocation
      EXPECT_EQ(f[15], args.find("typed") != std::string::npos ? "v100" : "default") << row;
    }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rm
