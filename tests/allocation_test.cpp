// Resource-sensitive allocation on the job-level engine (fair, greedy, tune with peer shrinking), the shared
// orders on both engines, and the round model on traces other than Synergy's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "core/error.h"
#include "run/simulation.h"
#include "policy/registry.h"
#include "test_util.h"
#include "workload/cpu_profile_map.h"

namespace rm {
namespace {

// One server: 2 GPUs, 6 CPUs (3 per GPU: Synergy's ratio-3 profiles), 250 GB.
const char* kOneServer =
    "name: one\nservers:\n  - {count: 1, gpus: 2, gpu_mem_gb: 32, cpus: 6, dram_gb: 250, storage_mbps: 500, "
    "nic_gbps: 10}\n";
// Two 1-GPU alexnet jobs of 1000 s at the proportional share; b arrives at 100 s.
const char* kTwoAlexnets = "job_id,submit_s,num_gpus,model,duration_s\na,0,1,alexnet,1000\nb,100,1,alexnet,1000\n";

std::unique_ptr<SimResult> run(const std::string& dir, const std::string& policy, const std::string& trace,
                               const std::string& exec = "auto") {
  SimConfig cfg;
  cfg.cluster = test::write_file(dir, "c.yaml", kOneServer);
  cfg.trace = test::write_file(dir, "t.csv", trace);
  cfg.policy = policy;
  cfg.exec = exec;
  return simulate(cfg);
}

double finish_of(const SimResult& r, const std::string& name) {
  for (const auto& j : r.record.jobs)
    if (j.spec->name == name) return to_seconds(j.finish);
  throw std::runtime_error("no job " + name);
}

// alexnet wants 12 CPUs per GPU; capped to the 6-CPU server, its speedup is interpolated (spec S.2.3).
double alexnet_sigma() {
  const auto set = synergy::ProfileSet::load(3);
  return synergy::best_case(set.get("alexnet"), 1, {2, 6, 250, 500}).sigma;
}

TEST(Allocation, BestCaseIsInterpolatedWhenTheServerCapsIt) {
  EXPECT_NEAR(alexnet_sigma(), 1 + (2.94 - 1) / (12 - 3) * (6 - 3), 1e-12);
}

TEST(Allocation, FairIsTheGpuOnlyRun) {
  const auto d = test::temp_dir();
  const auto fair = run(d, "fifo+fair", kTwoAlexnets), plain = run(d, "fifo", kTwoAlexnets);
  EXPECT_DOUBLE_EQ(finish_of(*fair, "a"), 1000);
  EXPECT_DOUBLE_EQ(finish_of(*fair, "b"), 1100);
  EXPECT_DOUBLE_EQ(finish_of(*plain, "a"), 1000);
}

TEST(Allocation, TuneGivesTheBestCaseThenShrinksThePeerForTheNewcomer) {
  // a alone gets all 6 CPUs (speed sigma); at 100 s b needs its 3 CPUs, so a is shrunk to its proportional
  // 3 (speed 1): a = 100 + (1000 - 100 sigma), b = 100 + 1000.
  const auto r = run(test::temp_dir(), "fifo+tune", kTwoAlexnets);
  const double s = alexnet_sigma();
  EXPECT_NEAR(finish_of(*r, "a"), 100 + (1000 - 100 * s), 1e-5);
  EXPECT_NEAR(finish_of(*r, "b"), 1100, 1e-5);
  for (int srv = 0; srv < 1; ++srv) {  // everything given back at the end
    EXPECT_DOUBLE_EQ(r->engine->cluster().free_cpus(srv), 6);
    EXPECT_DOUBLE_EQ(r->engine->cluster().free_mem_gb(srv), 250);
  }
}

TEST(Allocation, GreedyKeepsTheBestCaseAndLetsTheNewcomerWait) {
  // GREEDY never shrinks: a holds all 6 CPUs, b gets neither its best case nor its share until a ends.
  const auto r = run(test::temp_dir(), "fifo+greedy", kTwoAlexnets);
  const double a_end = 1000 / alexnet_sigma();
  EXPECT_NEAR(finish_of(*r, "a"), a_end, 1e-5);
  EXPECT_NEAR(finish_of(*r, "b"), a_end + 1000 / alexnet_sigma(), 1e-5);
}

TEST(Allocation, EveryAllocationComposesAndUnknownOnesAreNamed) {
  EXPECT_EQ(make_scheduler("fifo+opt", 1)->name(), "fifo+consolidated+opt");
  EXPECT_TRUE(make_scheduler("fifo+opt", 1)->matrix_speed());
  EXPECT_FALSE(make_scheduler("fifo+tune", 1)->matrix_speed());
  EXPECT_EQ(make_scheduler("a-srpt-p+opt", 1)->name(), make_scheduler("a-srpt-p", 1)->name() + "+opt");
  try {
    make_scheduler("srsf+tuned", 1);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("tuned"), std::string::npos);
  }
  EXPECT_EQ(make_scheduler("tiresias+tune", 1)->name(), "2d-las+consolidated+preempt+backfill+tune");
  EXPECT_THROW(make_scheduler("a-srpt-p+greedy", 1), InputError);  // may refuse a start A-SRPT assumes happens
  EXPECT_THROW(make_scheduler("a-srpt-p+srtf", 1), InputError);
  EXPECT_EQ(make_scheduler("a-srpt-p+tune", 1)->name(), make_scheduler("a-srpt-p", 1)->name() + "+tune");
}

TEST(Allocation, OptSizesThePassByItsIlpAndRunsAtTheMatrixCell) {
  // Both jobs start in one pass on 2 GPUs, 6 CPUs, 250 GB. TUNE: alexnet's floor 3 CPUs + 125 GB, lstm's its
  // best case 1 CPU + 20 GB, then alexnet topped up to 5 CPUs, still short of its (capped) best case of 6:
  // binary speed 1. OPT: the ILP over both (capacity 6 CPUs, 250 GB) picks alexnet's cell (5 CPUs, 62.5 GB),
  // throughput 1.53, and lstm's (1 CPU, 20.8 GB), throughput 1; alexnet runs at the matrix cell, 1.53.
  const char* trace = "job_id,submit_s,num_gpus,model,duration_s\na,0,1,alexnet,1000\nb,0,1,lstm,1000\n";
  const auto d = test::temp_dir();
  const auto tune = run(d, "fifo+tune", trace, "rate"), opt = run(d, "fifo+opt", trace, "rate");
  EXPECT_NEAR(finish_of(*tune, "a"), 1000, 1e-6);
  EXPECT_NEAR(finish_of(*opt, "a"), 1000 / 1.53, 1e-6);
  EXPECT_NEAR(finish_of(*opt, "b"), 1000, 1e-6);
  EXPECT_DOUBLE_EQ(opt->engine->cluster().free_cpus(0), 6);
  EXPECT_DOUBLE_EQ(opt->engine->cluster().free_mem_gb(0), 250);
  // A whole scheduler composes with it too (A-SRPT-P's starts get the ILP's sizes).
  EXPECT_NEAR(finish_of(*run(d, "a-srpt-p+opt", trace, "rate"), "a"), 1000 / 1.53, 1e-6);
}

TEST(Allocation, EveryOrderWithEveryAllocationKeepsTheBooksOnARealTrace) {
  // 200 Philly jobs on 128 GPUs with 24 CPUs per server: the engine throws on any over-booked CPU or DRAM.
  std::ifstream in(std::string(RM_SHARED_DIR) + "/traces/philly-jobs/philly.csv");
  std::string text, line;
  for (int i = 0; i < 301 && std::getline(in, line); ++i) text += line + "\n";
  const std::string philly = test::write_file(test::temp_dir(), "philly300.csv", text);
  for (const char* order : {"fifo", "srtf", "srsf", "las", "tiresias", "ftf", "drf", "tetris", "a-srpt-p", "sjf-bco-online"})
    for (const char* alloc : {"fair", "greedy", "tune", "opt"}) {
      SimConfig cfg;
      cfg.exec = std::string(order) == "a-srpt-p" ? "graph" : "rate";  // auto sends order+opt to the round model
      cfg.cluster = "synergy128";
      cfg.trace = philly;
      cfg.format = "philly";
      cfg.max_jobs = 200;
      cfg.arrival_scale = 0.05;  // arrivals compressed: queues, preemptions and peer shrinking
      cfg.policy = std::string(order) + "+" + alloc;
      if (std::string(order) == "a-srpt-p" || std::string(order) == "sjf-bco-online") {
        if (std::string(alloc) == "greedy") continue;  // refused: these schedulers assume their starts happen
      }
      const auto r = simulate(cfg);
      ASSERT_EQ(r->record.jobs.size(), 200u) << cfg.policy;
      for (const auto& j : r->record.jobs) EXPECT_NE(j.finish, kNever) << cfg.policy;
      for (int s = 0; s < r->engine->cluster().num_servers(); ++s) {
        EXPECT_NEAR(r->engine->cluster().free_cpus(s), 24, 1e-6) << cfg.policy;
        EXPECT_NEAR(r->engine->cluster().free_mem_gb(s), 500, 1e-6) << cfg.policy;
      }
    }
}

TEST(SharedOrders, LasIsContinuousAndDlasIsTiresias) {
  // One GPU. a (100 s) runs from 0; b (100 s) arrives at 10 with less attained service and preempts it.
  const auto c = test::cluster(1, 1);
  auto r = test::run(c, {"a,0,1,1000,100", "b,10,1,1000,100"}, "las");
  EXPECT_DOUBLE_EQ(r->finish("b"), 110);
  EXPECT_DOUBLE_EQ(r->finish("a"), 200);
  EXPECT_EQ(make_scheduler("dlas", 1)->name(), make_scheduler("2d-las", 1)->name());
}

TEST(RoundModel, ReplaysACanonicalTraceWithProfilesByTheRule) {
  // At the proportional share a job runs as long as the trace says; with TUNE alone on the server it gets its
  // best case (round model: TUNE gives what fits) and runs sigma times faster.
  const auto d = test::temp_dir();
  const std::string one = "job_id,submit_s,num_gpus,model,duration_s\na,0,1,alexnet,1000\n";
  const auto fair = run(d, "fifo+fair", one, "round");
  EXPECT_EQ(fair->exec, ExecModel::Round);
  EXPECT_NEAR(finish_of(*fair, "a"), 1000, 1e-5);
  const auto tune = run(d, "fifo+tune", one, "round");
  EXPECT_NEAR(finish_of(*tune, "a"), 1000 / alexnet_sigma(), 1e-5);
}

TEST(RoundModel, LeaseLengthIsAnOption) {
  // Two GPUs busy with 1000-s jobs from 0; a 100-s job arrives at 10 and, under SRTF, takes a GPU at the next
  // round boundary R: it ends at R + 100.
  const std::string three = "job_id,submit_s,num_gpus,model,duration_s\na,0,1,alexnet,1000\nb,0,1,alexnet,1000\n"
                            "c,10,1,alexnet,100\n";
  for (double r : {300.0, 360.0}) {
    SimConfig cfg;
    const auto d = test::temp_dir();
    cfg.cluster = test::write_file(d, "c.yaml", kOneServer);
    cfg.trace = test::write_file(d, "t.csv", three);
    cfg.policy = "srtf+fair";
    cfg.exec = "round";
    cfg.round_s = r;
    EXPECT_NEAR(finish_of(*simulate(cfg), "c"), r + 100, 1e-5) << r;
  }
  SimConfig bad;
  bad.exec = "round";
  bad.cluster = "synergy32";
  bad.round_s = -5;
  bad.trace = std::string(RM_SHARED_DIR) + "/goldens/synergy/test_trace.csv";
  EXPECT_THROW(simulate(bad), InputError);
}

// Keyed passes (models/round/round_model.cpp): between boundaries only the jobs that changed are re-keyed, placed
// by their old key and label. On a queue of 600 Philly jobs on 32 GPUs (queues of hundreds, jobs starved past the
// 1000-h flag) RM_ROUND_CHECK=1 compares every keyed pass's order with the full stable sort (InvariantError at the
// first job out of place), and the schedule equals the full sort's at every pass (`+full-sort`). The check also gives
// a boundary's leases back one by one and checks the book is then a new one: fifo (no keyed passes) compares that
// with the book freed at once.
TEST(RoundModel, KeyedPassesKeepTheFullSortsOrder) {
  SimConfig cfg;
  cfg.cluster = "synergy32";
  cfg.trace = std::string(RM_SHARED_DIR) + "/traces/philly-jobs/philly.csv";
  cfg.format = "philly";
  cfg.max_jobs = 600;
  cfg.skip_unschedulable = true;
  cfg.exec = "round";
  const auto times = [](const SimResult& r) {
    std::vector<std::pair<Time, Time>> t;
    for (const auto& j : r.record.jobs) t.push_back({j.first_start, j.finish});
    return t;
  };
  for (const char* p : {"srtf", "sjf", "2d-las", "las", "srsf+fair", "drf", "tetris", "fifo"}) {
    cfg.policy = p;
    setenv("RM_ROUND_CHECK", "1", 1);
    const auto keyed = simulate(cfg);
    unsetenv("RM_ROUND_CHECK");
    cfg.policy = std::string(p) + "+full-sort";
    const auto full = simulate(cfg);
    ASSERT_EQ(keyed->record.jobs.size(), full->record.jobs.size()) << p;
    EXPECT_GT(keyed->summary.avg_queue_s, 3600.0) << p;  // a real queue, not an idle cluster
    EXPECT_EQ(times(*keyed), times(*full)) << p;
    ASSERT_EQ(keyed->record.series.size(), full->record.series.size()) << p;
    for (std::size_t i = 0; i < keyed->record.series.size(); ++i)
      ASSERT_EQ(keyed->record.series[i].queued, full->record.series[i].queued) << p << " " << i;
  }
}

TEST(RoundModel, RunsTheJobLevelOrdersOnTiresiasJobs) {
  SimConfig cfg;
  cfg.cluster = "synergy128";
  cfg.trace = std::string(RM_SHARED_DIR) + "/traces/tiresias/60_job.csv";
  cfg.exec = "round";
  for (const char* p : {"tiresias+tune", "srsf+greedy", "sjf", "2d-las:thresholds=100,1000+opt"}) {
    cfg.policy = p;
    const auto r = simulate(cfg);
    EXPECT_EQ(r->record.jobs.size(), 60u) << p;
  }
  cfg.policy = "a-srpt-p";
  EXPECT_THROW(simulate(cfg), InputError);
  cfg.policy = "fifo+tune+backfill";
  EXPECT_THROW(simulate(cfg), InputError);
}

TEST(ProfileRule, ByNameThenByClassAndSeededHash) {
  const auto set = synergy::ProfileSet::load(3);
  EXPECT_EQ(synergy::profile_for(set, "resnet50", 1).profile->model, "res50");
  EXPECT_FALSE(synergy::profile_for(set, "gavel:resnet18", 1).by_hash);
  const auto v = synergy::profile_for(set, "vgg16", 1);
  EXPECT_TRUE(v.by_hash);
  EXPECT_EQ(v.profile->task, synergy::Task::kImage);
  EXPECT_EQ(synergy::profile_for(set, "vgg16", 1).profile, v.profile);  // every job of a model alike
  EXPECT_EQ(synergy::profile_for(set, "bert", 5).profile->task, synergy::Task::kLanguage);
  EXPECT_EQ(synergy::profile_for(set, "deepspeech2", 5).profile->model, "deepspeech");
}

}  // namespace
}  // namespace rm

namespace rm {
namespace {

// Every cell of `list-policies`' matrix, run: a "yes" simulates, a "no" is a clear input error (exit 2).
TEST(ExecSupport, EveryCellOfTheMatrixIsTrue) {
  const auto d = test::temp_dir();
  SimConfig cfg;
  cfg.cluster = "synergy32";
  cfg.data_dir = std::string(RM_SHARED_DIR) + "/traces";  // the Gittins orders' distribution
  cfg.trace = test::write_file(d, "m.csv",
                               "job_id,submit_s,num_gpus,model,duration_s\na,0,1,resnet50,600\nb,0,2,lstm,900\n"
                               "c,0,4,vgg16,300\nd,0,8,resnet50,1200\ne,0,1,lstm,100\nf,0,16,vgg16,700\n");
  int cells = 0;
  for (const auto& row : exec_support())
    for (int m = 0; m < 4; ++m) {
      cfg.policy = row.policy;
      cfg.exec = kExecModels[m];
      ++cells;
      if (row.why_not[m].empty()) {
        EXPECT_NO_THROW(simulate(cfg)) << row.policy << " --exec " << cfg.exec;
      } else {
        EXPECT_THROW(simulate(cfg), InputError) << row.policy << " --exec " << cfg.exec;
      }
    }
  EXPECT_GE(cells, 4 * 25);
}

}  // namespace
}  // namespace rm
