// The Synergy round model: CPython's random stream, the authors' statistics, hand-computed rounds in both
// time modes, TUNE's and OPT's guarantees, bad input, and the goldens of shared/goldens/synergy.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>

#include "core/error.h"
#include "run/round_runner.h"
#include "run/simulation.h"
#include "core/py_random.h"
#include "core/py_stats.h"
#include "models/round/round_model.h"
#include "policy/allocation/round_pass.h"
#include "policy/registry.h"
#include "models/round/round_workloads.h"

namespace rm::synergy {
namespace {

const std::string kGold = std::string(RM_SHARED_DIR) + "/goldens/synergy/";

TEST(PyRandom, MatchesCPythonFirstThousandValuesForSeed42) {
  std::ifstream in(std::string(RM_SOURCE_DIR) + "/tests/data/py_random_seed42.txt");
  ASSERT_TRUE(in);
  PyRandom r(42);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    ASSERT_EQ(r.random(), std::stod(line)) << "value " << n;  // repr() round-trips exactly
    ++n;
  }
  EXPECT_EQ(n, 1000);
}

TEST(PyRandom, WordsAndRandintVectors) {
  PyRandom r(42);
  EXPECT_EQ(r.u32(), 2746317213u);
  EXPECT_EQ(r.u32(), 478163327u);
  EXPECT_EQ(r.u32(), 107420369u);
  EXPECT_EQ(r.u32(), 3184935163u);
  PyRandom q(42);
  std::vector<int> got;
  for (int i = 0; i < 10; ++i) got.push_back(q.randint(0, 9));
  EXPECT_EQ(got, (std::vector<int>{1, 0, 4, 3, 3, 2, 1, 8, 1, 9}));
}

TEST(PyStats, PandasQuantileAndNumpyPairwiseSum) {
  std::vector<double> x;
  for (int i = 0; i < 10; ++i) x.push_back(i * 10.0);
  EXPECT_DOUBLE_EQ(pandas_quantile(x, 0.5), 45.0);
  EXPECT_DOUBLE_EQ(pandas_quantile(x, 0.99), 89.1);
  EXPECT_EQ(pandas_quantile({7.0}, 0.999), 7.0);
  // 0.999 becomes 0.9990000000000001 in pandas: (n-1)q' lands just past the integer and interpolates.
  std::vector<double> y(1001);
  for (int i = 0; i <= 1000; ++i) y[i] = i;
  EXPECT_GT(pandas_quantile(y, 0.999), 999.0);
  std::vector<double> z(300, 0.1);
  double naive = 0;
  for (double v : z) naive += v;
  EXPECT_NE(numpy_pairwise_sum(z.data(), 300), naive);  // blocked, not left to right
  EXPECT_NEAR(numpy_pairwise_sum(z.data(), 300), 30.0, 1e-12);
}

TEST(Generator, FirstJobsMatchTheSpecVectors) {
  const ProfileSet prof = ProfileSet::load(3);
  GenParams p;
  auto src = philly_derived_source(p, prof);
  const std::vector<std::tuple<double, std::string, double>> want = {
      {409, "alexnet", 3447}, {951, "gnmt", 34181}, {1053, "transformer", 29317},
      {1505, "m5", 122162},   {1542, "lstm", 191185}, {1555, "gnmt", 90573}};
  for (const auto& [a, m, n] : want) {
    const auto j = src->next();
    ASSERT_TRUE(j);
    EXPECT_EQ(j->arrival, a);
    EXPECT_EQ(j->model, m);
    EXPECT_EQ(j->N, n);
    EXPECT_EQ(j->g, 1);
  }
}

TEST(Profiles, BestCaseDemandIsCappedToOneServerWithInterpolatedSpeedup) {
  const ProfileSet prof = ProfileSet::load(3);
  const Vec P = {8, 24, 500, 500, 40};
  Job a;
  init_job(a, prof.get("alexnet"), 4, P);  // 48 CPUs wanted, 24 on a server
  EXPECT_EQ(a.c, 24);
  EXPECT_EQ(a.m, 500);
  EXPECT_NEAR(a.sigma0, 1 + 1.94 / 36 * 12, 1e-12);
  Job m5;
  init_job(m5, prof.get("m5"), 8, P);
  EXPECT_EQ(m5.sigma0, 1.0);
  Job big;
  init_job(big, prof.get("alexnet"), 16, P);  // larger than a server: proportional, no speedup
  EXPECT_EQ(big.c, 48);
  EXPECT_EQ(big.sigma0, 1.0);
  EXPECT_EQ(prof.get("gnmt").mem_per_gpu, 20);
  EXPECT_THROW(prof.get("resnet9000", "t.csv", 3), InputError);
}

// One server with one GPU; two gnmt jobs of 1000 iterations (120 s each at 0.12 s/iteration).
RoundResult tiny_run(bool compat, std::vector<JobInit> jobs, const std::string& policy = "fifo",
                     const std::string& mech = "fair") {
  const ProfileSet prof = ProfileSet::load(3);
  auto src = replay_source(std::move(jobs));
  RoundOptions o;
  o.compat = compat;
  o.is_static = true;
  o.order = policy;
  o.allocation = std::shared_ptr<Allocation>(make_allocation(PartSpec{Point::Allocation, mech, {}}, 0));
  return run_rounds(1, 1, {1, 3, 62.5, 62.5, 5}, prof, *src, o);
}

TEST(RoundModel, CompatCreditsWholeRoundsAndFinishesAtBoundaries) {
  const auto r = tiny_run(true, {{.id = 0, .model = "gnmt", .arrival = 0.0, .N = 1000, .g = 1},
                                 {.id = 1, .model = "gnmt", .arrival = 0.001, .N = 5000, .g = 1}});
  // Round at t=1: A gets floor(300/0.12)=2500 >= 1000, ends at 301. B needs two rounds: 301..901.
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[0].finish_time, 301);
  EXPECT_EQ(r.jobs[1].finish_time, 901);
  EXPECT_EQ(r.measured_jct, (std::vector<double>{301.0, 901.0 - 0.001}));
}

TEST(RoundModel, ExactFinishFreesTheGpuMidRound) {
  const auto r = tiny_run(false, {{.id = 0, .model = "gnmt", .arrival = 0.0, .N = 1000, .g = 1},
                                  {.id = 1, .model = "gnmt", .arrival = 0.001, .N = 5000, .g = 1}});
  // A: 1 + 120 = 121. B starts at 121 (fill pass), runs to 301 (1500 iterations), then 301 + 3500*0.12.
  EXPECT_DOUBLE_EQ(r.jobs[0].finish_time, 121);
  EXPECT_NEAR(r.jobs[1].finish_time, 301 + 3500 * 0.12, 1e-9);
  EXPECT_NEAR(r.busy_gpu_s, 120 + 600, 1e-9);  // work conserved: exactly the jobs' run time
}

TEST(RoundModel, SrtfOrdersByRemainingTime) {
  // Both at once; SRTF runs the short job first even though it arrived second.
  const auto r = tiny_run(true, {{.id = 0, .model = "gnmt", .arrival = 0.0, .N = 5000, .g = 1},
                                 {.id = 1, .model = "gnmt", .arrival = 0.001, .N = 1000, .g = 1}}, "srtf");
  EXPECT_EQ(r.jobs[1].finish_time, 301);
  EXPECT_EQ(r.jobs[0].finish_time, 901);
}

// A Synergy replay's ids may be any integers: jobs -1 and -2 are two jobs in the book (one GPU: one after the
// other) and both are measured.
TEST(RoundModel, NegativeIdsAreBookedApartAndMeasured) {
  const auto r = tiny_run(false, {{.id = -1, .model = "gnmt", .arrival = 0.0, .N = 1000, .g = 1},
                                  {.id = -2, .model = "gnmt", .arrival = 0.001, .N = 1000, .g = 1}});
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish_time, 121);
  EXPECT_DOUBLE_EQ(r.jobs[1].finish_time, 241);
  EXPECT_EQ(r.measured_jct.size(), 2u);
}

// A pass of TUNE over random jobs on a 4 x 8-GPU cluster; checks S.6.5's two guarantees.
TEST(Tune, NeverBelowProportionalUnlessNeedsLessAndNeverIdleWithFreeGpus) {
  const ProfileSet prof = ProfileSet::load(3);
  const Vec P = {8, 24, 500, 500, 40};
  const std::vector<std::string> models = {"alexnet", "res18", "res50", "mobilenet", "shufflenet",
                                           "gnmt",    "lstm",  "m5",    "deepspeech"};
  PyRandom rnd(7);
  for (int trial = 0; trial < 200; ++trial) {
    Cluster book(round_cluster(4, 8, P));
    RoundPass cl(book, P);
    cl.credit = [](Job&, bool) {};
    cl.rollback = [](Job&) {};
    std::deque<Job> jobs;
    const int n = 5 + rnd.randint(0, 30);
    for (int i = 0; i < n; ++i) {
      Job& j = jobs.emplace_back();
      j.id = j.key = i;
      const int gs[] = {1, 1, 1, 2, 4, 8};
      init_job(j, prof.get(models[rnd.randint(0, static_cast<int>(models.size()) - 1)]), gs[rnd.randint(0, 5)], P);
    }
    for (auto& j : jobs) {
      const int free_before = cl.free_gpus();
      const bool ok = tune_round(cl, j);
      if (!ok) {
        EXPECT_LT(free_before, j.g) << "job waits with its GPUs free (trial " << trial << ")";
      }
    }
    for (const auto& j : jobs) {
      if (j.gpus.empty()) continue;
      const Vec t = j.alloc_total();
      EXPECT_EQ(static_cast<int>(j.gpus.size()), j.g);
      EXPECT_GE(t[kCpu] + 1e-9, std::min(j.c, 3.0 * j.g)) << j.prof->model << " x" << j.g;
      EXPECT_GE(t[kMem] + 1e-9, std::min(j.m, 62.5 * j.g)) << j.prof->model << " x" << j.g;
    }
    for (int s = 0; s < 4; ++s) {  // the book never holds more than a server has
      EXPECT_GE(book.free_cpus(s), -1e-9);
      EXPECT_GE(book.free_mem_gb(s), -1e-9);
      EXPECT_GE(book.free_storage(s), -1e-9);
    }
  }
}

TEST(Opt, FeasibleAndAtLeastProportionalThroughput) {
  const ProfileSet prof = ProfileSet::load(3);
  const Vec P = {8, 24, 500, 500, 40};
  const std::vector<std::string> models = {"alexnet", "res18", "shufflenet", "gnmt", "m5", "deepspeech", "res50"};
  PyRandom rnd(11);
  for (int trial = 0; trial < 30; ++trial) {
    Cluster book(round_cluster(2, 8, P));
    RoundPass cl(book, P);
    cl.matrix_speed = true;
    cl.credit = [](Job&, bool) {};
    cl.rollback = [](Job&) {};
    std::deque<Job> jobs;
    std::vector<Job*> ptrs;
    int gpus = 0;
    while (gpus < 16) {
      Job& j = jobs.emplace_back();
      j.id = j.key = static_cast<std::int64_t>(jobs.size());
      const int g = std::min(16 - gpus, rnd.randint(1, 2));
      init_job(j, prof.get(models[rnd.randint(0, 6)]), g, P);
      gpus += g;
      ptrs.push_back(&j);
    }
    OptOptionsMemo memo;
    const auto placed = opt_round(cl, ptrs, memo);
    EXPECT_EQ(placed.size(), ptrs.size());
    double sum = 0;
    for (const Job* j : placed) {
      EXPECT_GE(j->speed, 1.0 - 1e-12) << j->prof->model;
      sum += j->speed;
    }
    EXPECT_GE(sum, static_cast<double>(placed.size()));
    for (int s = 0; s < 2; ++s) {
      EXPECT_GE(book.free_mem_gb(s), -1e-9);
      double cpu = 0;
      for (const Job* j : placed)
        for (const auto& [srv, v] : j->res)
          if (srv == s) cpu += v[kCpu];
      EXPECT_LE(cpu, 24 + 1e-9);
    }
  }
}

SimConfig golden_cfg(const std::string& trace, const std::string& policy) {
  SimConfig c;
  c.cluster = "synergy32";
  c.trace = kGold + trace;
  c.format = "synergy";
  c.is_static = true;
  c.exec = "round";
  c.compat = "synergy";
  c.policy = policy;
  return c;
}

double extra(const SimResult& r, const std::string& key) {
  for (const auto& [k, v] : r.summary.extra)
    if (k == key) return v;
  throw std::runtime_error("no key " + key);
}

// --max-jobs keeps the first N jobs of a Synergy replay under the round model too (it was ignored there).
TEST(RoundModel, MaxJobsKeepsTheFirstJobsOfAReplay) {
  SimConfig c = golden_cfg("test_trace.csv", "fifo+tune");
  c.max_jobs = 2;
  const auto r = simulate(c);
  ASSERT_EQ(r->record.jobs.size(), 2u);
  EXPECT_EQ(r->record.jobs[0].spec->name, "0");
  EXPECT_EQ(r->record.jobs[1].spec->name, "1");
  EXPECT_EQ(extra(*r, "generated_jobs"), 2);
}

// shared/goldens/synergy/README.md section 2: mean / p99 / makespan (h), exact to the printed digits.
TEST(SynergyGolden, StaticReplayAllTwelveCells) {
  struct Cell { const char* policy; double mean, p99, makespan; };
  const Cell cells[] = {
      {"fifo+fair", 5.631097361111111, 12.94025192777779, 15.25},
      {"fifo+greedy", 5.4944306944444445, 11.756084469444447, 12.33},
      {"fifo+tune", 5.0827640277777775, 10.587751136111114, 11.00},
      {"srtf+fair", 4.411930694444444, 13.093595252777783, 14.08},
      {"srtf+greedy", 4.307764027777778, 14.501940230555556, 14.67},
      {"srtf+tune", 4.106930694444445, 12.339440230555558, 12.92},
      {"las+fair", 5.625264027777778, 11.169430786111114, 11.42},
      {"las+greedy", 6.1852640277777775, 12.919440230555558, 13.17},
      {"las+tune", 5.171097361111112, 10.419440230555558, 10.67},
      {"ftf+fair", 7.982764027777779, 9.750274736111113, 9.75},
      {"ftf+greedy", 8.096097361111111, 10.501109969444444, 10.58},
      {"ftf+tune", 7.777764027777775, 9.416919408333333, 9.42}};
  for (const auto& c : cells) {
    const auto r = simulate(golden_cfg("static_100job.csv", c.policy));
    EXPECT_EQ(extra(*r, "avg_jct_h"), c.mean) << c.policy;
    EXPECT_EQ(extra(*r, "p99_jct_h"), c.p99) << c.policy;
    EXPECT_EQ(std::round(extra(*r, "makespan_h") * 100) / 100, c.makespan) << c.policy;
    EXPECT_EQ(r->summary.jobs, 100);
  }
}

TEST(SynergyGolden, MultiGpuSmokeTest) {
  for (const char* p : {"fifo+fair", "srtf+fair", "las+fair", "ftf+fair"})
    EXPECT_EQ(extra(*simulate(golden_cfg("test_trace.csv", p)), "avg_jct_h"), 1.8439160416666667) << p;
  for (const char* p : {"fifo+greedy", "fifo+tune", "srtf+tune", "las+greedy"})
    EXPECT_EQ(extra(*simulate(golden_cfg("test_trace.csv", p)), "avg_jct_h"), 1.770999375) << p;
}

TEST(SynergyGolden, PhillyDerivedFifoTuneAtNineJobsPerHour) {
  SimConfig c;
  c.cluster = "synergy128";
  c.workload = "synergy-philly";
  c.gen.load = 9;
  c.seed = 42;
  c.measure_ids = "4000:4999";
  c.exec = "round";
  c.compat = "synergy";
  c.policy = "fifo+tune";
  const auto r = simulate(c);
  EXPECT_EQ(extra(*r, "avg_jct_h"), 21.876600555555555);
  EXPECT_EQ(extra(*r, "p99_jct_h"), 156.93307777777775);
  EXPECT_EQ(extra(*r, "p999_jct_h"), 170.61199750000023);
  EXPECT_EQ(extra(*r, "measured_jobs"), 1000);
}

TEST(RoundModel, EveryPolicyRunsMultiGpuWorkloadsInBothModesDeterministically) {
  for (const char* order : {"fifo", "srtf", "las", "ftf", "drf", "tetris"})
    for (const char* mech : {"fair", "greedy", "tune", "opt"})
      for (bool compat : {false, true}) {
        SimConfig c;
        c.cluster = "synergy32";
        c.workload = "synergy-synthetic";
        c.gen.load = 1;
        c.measure_ids = "10:39";
        c.exec = "round";
        c.compat = compat ? "synergy" : "";
        c.policy = std::string(order) + "+" + mech;
        const auto a = simulate(c), b = simulate(c);
        const std::string what = c.policy + (compat ? " compat" : " exact");
        EXPECT_EQ(extra(*a, "measured_jobs"), 30) << what;
        EXPECT_EQ(extra(*a, "avg_jct_h"), extra(*b, "avg_jct_h")) << what;
        EXPECT_LE(a->summary.gpu_util, 1.0 + 1e-9) << what;
        for (const auto& j : a->record.jobs) {  // never faster than the best-case speedup allows
          const double ideal = j.spec->iterations * 0.011 / 2.94;
          EXPECT_GE(to_seconds(j.finish - j.spec->submit) + 1e-6, ideal) << what;
        }
      }
}

TEST(RoundModel, BadInputNamesFileLineField) {
  const std::string path = testing::TempDir() + "/bad_synergy.csv";
  const auto expect_error = [&](const std::string& text, const std::string& needle) {
    std::ofstream(path) << text;
    SimConfig c = golden_cfg("", "fifo+tune");
    c.trace = path;
    try {
      simulate(c);
      ADD_FAILURE() << "no error for " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error("0,alexnet,0.0,100,1\n1,gnmt,0.1,100\n", ":2");
  expect_error("0,alexnet,0.0,100,1\n1,bogus,0.1,100,1\n", "bogus");
  expect_error("0,alexnet,0.0,100,3\n", "gpu_demand");
  expect_error("0,alexnet,x,100,1\n", "arrival_s");
  expect_error("0,alexnet,0,100,1\n0,gnmt,1,100,1\n", "duplicate");
  SimConfig c = golden_cfg("static_100job.csv", "fifo+magic");
  EXPECT_THROW(simulate(c), InputError);
  c.policy = "lifo+tune";
  EXPECT_THROW(simulate(c), InputError);
  c.policy = "fifo+tune";
  c.exec = "rate";
  EXPECT_THROW(simulate(c), InputError);
}

}  // namespace
}  // namespace rm::synergy
