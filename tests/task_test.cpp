// The task execution model (Wang et al. 2020): hand-computed schedules, plugin behaviour, invariants,
// and the authors' simulator's numbers on job set 1 (spec contention-and-sjf-bco.md Part A, Part C).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "exec/comm_model.h"
#include "core/error.h"
#include "policy/task/task_placements.h"
#include "policy/task/task_registry.h"
#include "run/task_run.h"
#include "test_util.h"
#include "workload/generators.h"

namespace rm {
namespace {

const std::string& kSet1 = test::kWangSet1;

std::unique_ptr<SimResult> run_task(const std::string& cluster, const std::string& trace, const std::string& policy,
                                    bool compat = false, std::uint64_t seed = 1) {
  SimConfig cfg = test::task_config(cluster, trace, policy);
  cfg.seed = seed;
  if (compat) cfg.compat = "wang2020";
  return simulate(cfg);
}

// Two servers with one GPU each, beta = 1 ms/MB, eta = 0.5 ms/MB: every 2-GPU job spans both NICs,
// and AdaDUAL's threshold is 2 (1 + 0.5) / 1 = 3.
std::string link_cluster(const std::string& dir) {
  return test::write_file(dir, "link.yaml",
                          "network: {beta_ms_per_mb: 1, eta_ms_per_mb: 0.5}\n"
                          "servers:\n  - {count: 2, gpus: 1, gpu_mem_gb: 32, nic_gbps: 10}\n");
}

// A (100 MB) computes over [0, 2) and starts its all-reduce at 2; B arrives at 2, computes over [2, 4)
// while A waits, and asks for the link at 4, when A has 98 MB left.
std::string two_flows(const std::string& dir, double b_mb) {
  return test::write_file(dir, "two.csv",
                          "job_id,arrival_ms,model,num_gpus,iterations,fw_ms,bw_ms,model_size_mb,gpu_mem_mb,batch_size\n"
                          "A,0,m,2,1,1,1,100,1000,1\n"
                          "B,2,m,2,1,1,1," + std::to_string(b_mb) + ",1000,1\n");
}

TEST(TaskModel, AdaDualSharesJustAboveTheThreshold) {
  const auto dir = test::temp_dir();
  // 98 / 32 = 3.06 >= 3: share. k = 2: each flow at 1 / (2 + 0.5) = 0.4 MB/ms. B ends at 4 + 32 / 0.4 = 84;
  // A has 98 - 32 = 66 MB left, alone at 1 MB/ms: ends at 150. Waiting would give 102 + 134 = 236 > 234.
  auto r = run_task(link_cluster(dir), two_flows(dir, 32), "ada-srsf");
  EXPECT_DOUBLE_EQ(r->task->finish_ms(0), 150.0);
  EXPECT_DOUBLE_EQ(r->task->finish_ms(1), 84.0);
  EXPECT_EQ(r->task->max_link_flows(), 2);
}

TEST(TaskModel, AdaDualWaitsJustBelowTheThreshold) {
  const auto dir = test::temp_dir();
  // 98 / 33 = 2.97 < 3: wait. A ends at 4 + 98 = 102, B runs alone from 102 to 135. Sharing would
  // give 86.5 + 151.5 = 238 > 237.
  auto r = run_task(link_cluster(dir), two_flows(dir, 33), "ada-srsf");
  EXPECT_DOUBLE_EQ(r->task->finish_ms(0), 102.0);
  EXPECT_DOUBLE_EQ(r->task->finish_ms(1), 135.0);
  EXPECT_EQ(r->task->max_link_flows(), 1);
}

TEST(TaskModel, SrsfTwoAlwaysSharesSrsfOneNever) {
  const auto dir = test::temp_dir();
  auto share = run_task(link_cluster(dir), two_flows(dir, 33), "srsf2");
  EXPECT_DOUBLE_EQ(share->task->finish_ms(1), 86.5);   // 4 + 33 * 2.5
  EXPECT_DOUBLE_EQ(share->task->finish_ms(0), 151.5);  // 86.5 + (98 - 33)
  auto avoid = run_task(link_cluster(dir), two_flows(dir, 32), "srsf1");
  EXPECT_DOUBLE_EQ(avoid->task->finish_ms(0), 102.0);
  EXPECT_DOUBLE_EQ(avoid->task->finish_ms(1), 134.0);
}

TEST(TaskModel, ThresholdIsTheAuthorsConstant) {
  // Compat reproduces theta = (2 (0.856 + 0.235)) / 0.856 exactly; check the pairwise sums around it
  // (spec A.6.4): share iff r / m > 2 (beta + eta) / beta.
  const double beta = 0.856, eta = 0.235, theta = (2 * (beta + eta)) / beta;
  EXPECT_NEAR(theta, 2.5490654205607477, 1e-15);
  for (double ratio : {theta * 0.99, theta * 1.01}) {
    const double m = 10, r = ratio * m;
    const double wait = r * beta + (r + m) * beta;
    const double share = m * (2 * beta + eta) + (m * (2 * beta + eta) + (r - m) * beta);
    EXPECT_EQ(share < wait, ratio > theta) << ratio;
  }
}

TEST(TaskModel, SingleServerJobsHaveNoCommunication) {
  const auto dir = test::temp_dir();
  const auto c = test::write_file(dir, "c.yaml", "servers:\n  - {count: 2, gpus: 4, gpu_mem_gb: 32, nic_gbps: 10}\n");
  const auto t = test::write_file(
      dir, "t.csv",
      "job_id,arrival_ms,model,num_gpus,iterations,fw_ms,bw_ms,model_size_mb,gpu_mem_mb,batch_size\n"
      "0,5,vgg16,4,41,36,54,526.4,4527,16\n");
  for (bool compat : {false, true}) {
    auto r = run_task(c, t, "ssf-lwf1-srsf-1-true", compat);
    EXPECT_DOUBLE_EQ(r->task->jct_ms(0), 41 * 90.0) << compat;  // no all-reduce time at all
    EXPECT_EQ(r->task->max_link_flows(), 0);
  }
}

// A TaskView over hand-set GPU workloads, for placement plugins.
class FakeView : public task::TaskView {
 public:
  FakeView(int servers, int per, std::vector<double> workloads) {
    for (int s = 0; s < servers; ++s) {
      sg_.emplace_back();
      for (int k = 0; k < per; ++k) {
        sg_.back().push_back(static_cast<int>(g_.size()));
        task::TGpu g;
        g.server = s;
        g.slot = k;
        g.mem_total = 32768;
        free_.push_back(32768);
        g.workload = workloads[g_.size()];
        g_.push_back(g);
      }
    }
    flows_.resize(servers);
  }
  const std::vector<task::TGpu>& gpus() const override { return g_; }
  const std::vector<double>& free_mem() const override { return free_; }
  int num_servers() const override { return static_cast<int>(sg_.size()); }
  const std::vector<int>& server_gpus(int s) const override { return sg_[s]; }
  const std::vector<int>& server_flows(int s) const override { return flows_[s]; }
  const task::TFlow& flow_of(int) const override { return flow_; }
  const task::TJob& job(int) const override { return job_; }
  int server_split_jobs(int s) const override { return split[s]; }
  std::vector<int> split = std::vector<int>(16, 0);
  int eligible_count(double mem) const override {
    return static_cast<int>(std::count_if(free_.begin(), free_.end(), [&](double f) { return f >= mem; }));
  }
  std::uint64_t workload_version() const override { return 1; }
  double beta() const override { return 0.856; }
  double eta() const override { return 0.235; }
  bool compat() const override { return false; }
  double probe_rest(int, double, bool) override { return 0; }

 private:
  std::vector<task::TGpu> g_;
  std::vector<double> free_;
  std::vector<std::vector<int>> sg_, flows_;
  task::TFlow flow_;
  task::TJob job_;
};

std::vector<int> place(const std::string& spec, const FakeView& v, int n) {
  auto p = task::make_task_policy(spec, 1);
  task::TJob j;
  j.n = n;
  j.mem = 1000;
  std::vector<int> out;
  EXPECT_TRUE(p.placement->place(j, v, out));
  return out;
}

TEST(TaskPlacement, LwfWithLargeKappaIsPureLeastWorkload) {
  // Server 0: [0, 0, 10, 8] (mean 4.5); server 1: [5, 5, 5, 5]; server 2: [1, 9, 9, 9].
  FakeView v(3, 4, {0, 0, 10, 8, 5, 5, 5, 5, 1, 9, 9, 9});
  // The 4 least-loaded GPUs wherever they are: 0, 1 (0), 8 (1), then 4 (5, lowest id among the 5s).
  EXPECT_EQ(place("lwf:kappa=4", v, 4), (std::vector<int>{0, 1, 8, 4}));
  EXPECT_EQ(place("lwf:kappa=64", v, 4), place("lwf:kappa=4", v, 4));
}

TEST(TaskPlacement, LwfWithKappaOneConsolidates) {
  FakeView v(3, 4, {0, 0, 10, 8, 5, 5, 5, 5, 1, 9, 9, 9});
  // Server means 4.5, 5, 7: server 0 first, its GPUs by workload.
  EXPECT_EQ(place("lwf:kappa=1", v, 4), (std::vector<int>{0, 1, 3, 2}));
  // 6 GPUs: all of server 0, then the two least-loaded of server 1.
  EXPECT_EQ(place("lwf:kappa=1", v, 6), (std::vector<int>{0, 1, 3, 2, 4, 5}));
}

TEST(TaskPlacement, FirstFitTakesTheLowestGpus) {
  FakeView v(2, 4, {9, 9, 9, 9, 0, 0, 0, 0});
  EXPECT_EQ(place("first-fit", v, 3), (std::vector<int>{0, 1, 2}));
}

TEST(TaskModel, SrsfOneNeverSharesANic) {
  for (bool compat : {false, true}) {
    EXPECT_EQ(run_task("wang2020", kSet1, "srsf1", compat)->task->max_link_flows(), 1) << compat;
    EXPECT_EQ(run_task("wang2020", kSet1, "srsf2", compat)->task->max_link_flows(), 2) << compat;
    EXPECT_EQ(run_task("wang2020", kSet1, "ada-srsf", compat)->task->max_link_flows(), 2) << compat;
  }
}

TEST(TaskModel, GpuMemoryIsNeverOvercommitted) {
  // First-fit piles jobs onto the lowest GPUs: sharing happens, but never past 32768 MB
  // (the smallest job needs 2751 MB, so at most 11 per GPU).
  for (bool compat : {false, true}) {
    auto r = run_task("wang2020", kSet1, "ssf-bp-srsf-1-true", compat);
    EXPECT_GT(r->task->max_gpu_sharing(), 1);
    EXPECT_LE(r->task->max_gpu_sharing(), 11);
  }
}

// A placement that returns a GPU without room: the engine must refuse it.
class Greedy : public task::TaskPlacement {
 public:
  std::string name() const override { return "greedy"; }
  bool place(const task::TJob& j, const task::TaskView&, std::vector<int>& out) override {
    out.assign(j.n, 0);
    return true;
  }
};

TEST(TaskModel, EngineRejectsAnOvercommittingPlacement) {
  auto cluster = load_cluster("wang2020");
  Workload w = read_trace(kSet1, "wang2020");
  resolve_workload(w, ModelCatalogue::builtin(), cluster, law_resolve_options(), nullptr);
  task::TaskPolicy p = task::make_task_policy("ada-srsf", 1);
  p.placement = std::make_unique<Greedy>();
  EXPECT_THROW(run_task_model(cluster, w.jobs, std::make_unique<TaskModel>(cluster, w.jobs, p)), InvariantError);
}

struct Golden {
  const char* config;
  bool probe_fixed;
  double avg_jct_ms, makespan_ms, util;
  std::vector<double> jct_0_4, jct_150_159;  // spec A.11 item 26
};

TEST(TaskModel, CompatReproducesTheAuthorsSimulatorOnSet1) {
  const std::vector<Golden> goldens = {
      {"ssf-lwf2-srsf-1-true", false, 12313.2, 73573, 0.360, {10106, 3438, 3690, 3894, 7487},
       {36186, 38765, 41113, 48276, 36846, 43596, 37681, 21178, 50801, 63411}},
      {"ssf-lwf2-srsf-0-false", false, 15689.8, 121509, 0.218, {10656, 4656, 3690, 3894, 7487},
       {48561, 45945, 59630, 77182, 43083, 80618, 77233, 42250, 104932, 111347}},
      {"ssf-lwf2-srsf-1-true+adadual:probe=readonly", true, 19675.6, 140644, 0.188, {10656, 2340, 3690, 3894, 7487},
       {81271, 45210, 110430, 75365, 84815, 88753, 41293, 38507, 124067, 130482}},
      {"ssf-bp-srsf-1-true", false, 17355.6, 87200, 0.304, {}, {}},
  };
  for (const auto& g : goldens) {
    auto r = run_task("wang2020", kSet1, g.config, true);
    const auto& s = r->summary;
    auto extra = [&](const std::string& k) {
      for (const auto& [n, v] : s.extra)
        if (n == k) return v;
      return -1.0;
    };
    EXPECT_NEAR(extra("avg_jct_ms"), g.avg_jct_ms, 0.05) << g.config;
    EXPECT_EQ(extra("makespan_ms"), g.makespan_ms) << g.config;
    EXPECT_NEAR(extra("authors_gpu_util"), g.util, 0.0005) << g.config;
    // Jobs are in arrival order inside the engine; the trace's ids are their names.
    auto jct_of = [&](int trace_id) {
      for (std::size_t i = 0; i < r->workload.jobs.size(); ++i)
        if (r->workload.jobs[i].name == std::to_string(trace_id)) return r->task->jct_ms(static_cast<int>(i));
      return -1.0;
    };
    for (std::size_t k = 0; k < g.jct_0_4.size(); ++k) EXPECT_EQ(jct_of(static_cast<int>(k)), g.jct_0_4[k]) << g.config;
    for (std::size_t k = 0; k < g.jct_150_159.size(); ++k)
      EXPECT_EQ(jct_of(150 + static_cast<int>(k)), g.jct_150_159[k]) << g.config;
    // Spec A.11 item 24: the busy time is the total work, whatever the schedule.
    EXPECT_EQ(r->task->gpu_active_ms(), 1695512.0);
  }
}

TEST(TaskModel, DefaultModeConservesWorkAndIsDeterministic) {
  auto a = run_task("wang2020", kSet1, "ssf-random-srsf-1-true", false, 5);
  auto b = run_task("wang2020", kSet1, "ssf-random-srsf-1-true", false, 5);
  auto c = run_task("wang2020", kSet1, "ssf-random-srsf-1-true", false, 6);
  EXPECT_EQ(a->task->gpu_active_ms(), 1695512.0);
  EXPECT_EQ(a->task->avg_jct_ms(), b->task->avg_jct_ms());
  EXPECT_NE(a->task->avg_jct_ms(), c->task->avg_jct_ms());
  for (std::size_t i = 0; i < a->record.jobs.size(); ++i) {
    EXPECT_GE(a->record.jobs[i].first_start, a->record.jobs[i].spec->submit);
    EXPECT_GT(a->record.jobs[i].finish, a->record.jobs[i].first_start);
  }
}

TEST(TaskPolicy, AuthorsConfigStringsAndPresets) {
  EXPECT_EQ(task::make_task_policy("ssf-lwf2-srsf-1-true", 1).name,
            "queue=ssf+lwf:kappa=2+comm=srsf+compute=srsf+adadual");
  EXPECT_EQ(task::make_task_policy("ssf-2-srsf-0-false", 1).name,
            "queue=ssf+lwf:kappa=2+comm=srsf+compute=srsf+srsf-n:n=1");
  EXPECT_EQ(task::make_task_policy("ssf-bp-srsf-0-true", 1).name,  // AdaDUAL only with thres 1
            "queue=ssf+first-fit+comm=srsf+compute=srsf+srsf-n:n=1");
  EXPECT_EQ(task::make_task_policy("srsf2+lwf8+queue=srtf", 1).name,
            "queue=srtf+lwf:kappa=8+comm=srsf+compute=srsf+srsf-n:n=2");
  EXPECT_EQ(task::make_task_policy("ada-srsf+random", 1).placement->name(), "random");
  EXPECT_TRUE(task::is_task_policy("ada-srsf"));
  EXPECT_TRUE(task::is_task_policy("ssf-bp-srsf-1-true"));
  EXPECT_FALSE(task::is_task_policy("fifo"));
  EXPECT_FALSE(task::is_task_policy("srsf+consolidated"));
  EXPECT_THROW(task::make_task_policy("ada-srsf+lwf:kappa=0", 1), InputError);
  EXPECT_THROW(task::make_task_policy("ada-srsf+adadual:probe=maybe", 1), InputError);
  EXPECT_THROW(task::make_task_policy("ada-srsf+nosuch", 1), InputError);
  EXPECT_THROW(task::make_task_policy("ada-srsf+queue=fastest", 1), InputError);
}

TEST(TaskModel, CompatRejectsFractionalMilliseconds) {
  const auto dir = test::temp_dir();
  const auto t = test::write_file(
      dir, "t.csv",
      "job_id,arrival_ms,model,num_gpus,iterations,fw_ms,bw_ms,model_size_mb,gpu_mem_mb,batch_size\n"
      "0,5,vgg16,4,41,36.5,54,526.4,4527,16\n");
  try {
    run_task("wang2020", t, "ada-srsf", true);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.csv:2:fw_ms"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(run_task("wang2020", t, "ada-srsf", false));
  SimConfig cfg;
  cfg.compat = "wang2020";
  cfg.exec = "rate";
  EXPECT_THROW(simulate(cfg), InputError);  // compat needs the task model
  cfg.exec = "auto";
  cfg.policy = "fifo";
  EXPECT_THROW(simulate(cfg), InputError);
}

TEST(Generator, Wang2020MixAndRanges) {
  GenOptions g;
  g.seed = 3;
  const auto a = generate_wang2020(g), b = generate_wang2020(g);
  EXPECT_EQ(a.text, b.text);
  g.seed = 4;
  EXPECT_NE(generate_wang2020(g).text, a.text);
  Workload w = read_trace_text(a.text, "gen", a.format);
  ASSERT_EQ(w.jobs.size(), 160u);
  std::map<int, int> mix;
  std::set<std::string> models;
  for (const auto& j : w.jobs) {
    ++mix[j.num_gpus];
    models.insert(j.model);
    EXPECT_GE(j.iterations, 10);
    EXPECT_LE(j.iterations, 60);
    EXPECT_LT(j.submit, from_seconds(12.0));
  }
  EXPECT_EQ(mix, (std::map<int, int>{{1, 80}, {2, 14}, {4, 26}, {8, 30}, {16, 8}, {32, 2}}));
  EXPECT_EQ(models.size(), 4u);
}

}  // namespace
}  // namespace rm
