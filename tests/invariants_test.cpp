// Invariants on random workloads under every policy, and proof that the checker catches violations.
#include "core/error.h"
#include "core/rng.h"
#include "test_util.h"

namespace rm::test {
namespace {

std::vector<std::string> random_rows(std::uint64_t seed, int n, int max_gpus) {
  Rng rng(seed);
  std::vector<std::string> rows;
  double t = 0;
  for (int i = 0; i < n; ++i) {
    t += rng.uniform() * 20;
    const int g = 1 << rng.below(5);
    rows.push_back("J" + std::to_string(i) + "," + std::to_string(t) + "," + std::to_string(std::min(g, max_gpus)) +
                   "," + std::to_string(10 + rng.below(500)) + "," + std::to_string(20 + rng.below(200)) + "," +
                   std::to_string(rng.below(600)));
  }
  return rows;
}

class EveryPolicy : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryPolicy, InvariantsHoldOnRandomWorkloads) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    auto c = cluster(3, 4, 10, 0.2745);
    auto rows = random_rows(seed, 80, 8);
    std::unique_ptr<rm::test::Run> r;
    // The engine itself throws InvariantError on double-booking, time going backwards, a job
    // completing with work left, GPU-seconds not conserved, or a job never finishing.
    ASSERT_NO_THROW(r = run(c, rows, GetParam(), seed % 2 ? 3.0 : 0.0)) << "seed " << seed;
    // Every job finished exactly once, after it arrived and started.
    Time prev = -1;
    for (const auto& row : r->engine->series()) {
      EXPECT_GT(row.t, prev);  // time strictly increases between records
      EXPECT_LE(row.busy_gpus, r->engine->cluster().total_gpus());
      prev = row.t;
    }
    ASSERT_EQ(r->engine->jobs().size(), rows.size());
    for (const auto& j : r->engine->jobs()) {
      EXPECT_EQ(j.status, JobStatus::Finished);
      EXPECT_GE(j.first_start, j.spec->submit);
      EXPECT_GT(j.finish, j.first_start);
      EXPECT_LE(j.run_us, j.finish - j.spec->submit);
      // No job can beat its ideal-placement, uncontended run time (minus microsecond rounding).
      EXPECT_GE(to_seconds(j.run_us) + 1e-5, j.spec->iterations * j.ideal_iter_time);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, EveryPolicy,
                         ::testing::Values("fifo", "fifo-backfill", "sjf", "shortest", "srtf", "srsf", "2d-las",
                                           "tiresias", "fifo+random", "srsf+consolidated", "sjf+preempt+backfill",
                                           "2d-las:thresholds=50,500+random", "a-srpt:predictor=median",
                                           "a-srpt:predictor=oracle;backfill=off", "a-srpt:eager=1;placement=first-fit",
                                           "a-srpt-p:predictor=rf;first=20;trees=10", "gittins:cdf=online",
                                           "2d-gittins:cdf=" RM_SHARED_DIR "/traces/tiresias/yarn-gput1000.csv",
                                           "gavel-las", "gavel-ftf:round=60", "gavel-makespan", "gavel-throughput", "optimus"),
                         [](const auto& info) {
                           std::string s;
                           for (char c : info.param) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return s;
                         });

// A scheduler that breaks the rules on purpose.
class Rogue : public Scheduler {
 public:
  explicit Rogue(int mode) : mode_(mode) {}
  std::string name() const override { return "rogue"; }
  Decisions schedule(const SchedContext& ctx) override {
    Decisions d;
    for (const JobState* j : ctx.active) {
      if (j->running()) continue;
      if (mode_ == 0) d.start.push_back({.job = j->id(), .gpus = std::vector<GpuRef>(j->spec->num_gpus, GpuRef{0, 0})});
      if (mode_ == 1) d.start.push_back({.job = j->id(), .gpus = {}});
      if (mode_ == 2) d.preempt.push_back(j->id());
    }
    return d;
  }

 private:
  int mode_;
};

TEST(Invariants, EngineRefusesDoubleBookingWrongSizesAndBadPreemption) {
  auto c = cluster(1, 4);
  auto specs = jobs(c, {"A,0,1,10,100", "B,0,1,10,100"});
  for (int mode : {0, 1, 2}) {
    Rogue rogue(mode);
    Engine e(c, specs, rogue, make_rate_model(c));
    EXPECT_THROW(e.run(), InvariantError) << "mode " << mode;
  }
}

TEST(Invariants, ClusterRefusesDoubleBookingAndForeignRelease) {
  Cluster c(cluster(2, 2));
  c.allocate(1, {{0, 0}, {1, 1}});
  EXPECT_THROW(c.allocate(2, {{0, 1}, {1, 1}}), InvariantError);
  EXPECT_EQ(c.free_gpus(), 2);  // the failed allocation rolled back
  EXPECT_TRUE(c.is_free({0, 1}));
  EXPECT_THROW(c.release(2, {{0, 0}}), InvariantError);
  EXPECT_THROW(c.allocate(3, {{5, 0}}), InvariantError);
  c.release(1, {{0, 0}, {1, 1}});
  EXPECT_EQ(c.free_gpus(), 4);
}

// Servers with 8 CPUs, 62.5 GB of DRAM (OPT's levels, 62.5/3 GB, are not dyadic) and 100 MB/s of storage.
ClusterSpec cluster_with_shares(int servers, int gpus) {
  ClusterSpec spec = cluster(servers, gpus);
  for (auto& s : spec.servers) {
    s.cpus = 8;
    s.dram_gb = 62.5;
    s.storage_mbps = 100;
  }
  return spec;
}

// The one book's CPUs, DRAM and storage (the job-level engines and the round model book them alike).
TEST(Invariants, ClusterRefusesOverbookedSharesAndSettlesOnlyIdleServers) {
  Cluster c(cluster_with_shares(2, 2));
  c.allocate(1, {{0, 0}});
  c.take_shares(1, {{0, 3, 62.5 / 3}});
  c.take_share(1, 0, 0, 0, 40);
  EXPECT_DOUBLE_EQ(c.free_cpus(0), 5);
  EXPECT_DOUBLE_EQ(c.free_storage(0), 60);
  EXPECT_THROW(c.take_shares(2, {{0, 6, 1}}), InvariantError);  // 6 CPUs of 5 free
  EXPECT_THROW(c.take_share(2, 0, 0, 0, 61), InvariantError);
  EXPECT_THROW(c.give_share(1, 0, 0, 0, 41), InvariantError);  // more than it holds
  EXPECT_THROW(c.settle_idle(0), InvariantError);            // a GPU there is held
  c.take_shares(1, {{0, 0, 62.5 / 7}});
  c.give_shares(1, {{0, 3, 62.5 / 3}});
  c.give_shares(1, {{0, 0, 62.5 / 7}});
  c.give_share(1, 0, 0, 0, 39);
  c.release(1, {{0, 0}});
  c.settle_idle(0);  // the rounding drift and the storage left behind go
  EXPECT_EQ(c.free_cpus(0), 8);
  EXPECT_EQ(c.free_mem_gb(0), 62.5);
  EXPECT_EQ(c.free_storage(0), 100);
}

// The round model's boundary frees the whole book at once: the state that every holder's own release leaves (free
// GPUs per server and in all, owners, the servers-by-free sets, each server's shares settled), and a book then used
// as before.
TEST(Invariants, ClusterFreedAtOnceIsTheBookEachReleaseLeaves) {
  const ClusterSpec spec = cluster_with_shares(3, 4);
  Cluster one_by_one(spec), at_once(spec);
  for (Cluster* c : {&one_by_one, &at_once}) {
    c->allocate(1, {{0, 0}, {0, 1}, {1, 3}});
    c->take_shares(1, {{0, 3, 62.5 / 3}, {1, 1, 62.5 / 7}});
    c->allocate(2, {{2, 0}, {2, 1}, {2, 2}, {2, 3}});
    c->take_share(2, 2, 5, 10, 40);
  }
  one_by_one.release(1, {{0, 0}, {0, 1}, {1, 3}});
  one_by_one.give_shares(1, {{0, 3, 62.5 / 3}, {1, 1, 62.5 / 7}});
  one_by_one.release(2, {{2, 0}, {2, 1}, {2, 2}, {2, 3}});
  one_by_one.give_share(2, 2, 5, 10, 40);
  for (int s = 0; s < 3; ++s) one_by_one.settle_idle(s);
  EXPECT_EQ(at_once.free_gpus(), 5);
  at_once.free_everything();
  EXPECT_EQ(at_once.free_gpus(), 12);
  EXPECT_EQ(at_once.owners(), one_by_one.owners());
  EXPECT_EQ(at_once.free_gpus_per_server(), one_by_one.free_gpus_per_server());
  EXPECT_EQ(at_once.free_cpus_per_server(), one_by_one.free_cpus_per_server());
  EXPECT_EQ(at_once.free_mem_per_server(), one_by_one.free_mem_per_server());
  for (int s = 0; s < 3; ++s) EXPECT_EQ(at_once.free_storage(s), 100);
  for (int c = 0; c <= 4; ++c)
    for (int s = 0; s < 3; ++s)
      EXPECT_EQ(at_once.servers_with_free(c).has(s), one_by_one.servers_with_free(c).has(s)) << c << " " << s;
  at_once.allocate(3, {{2, 3}});  // and it books as a new one
  EXPECT_EQ(at_once.servers_with_free(3).next(0), 2);
  EXPECT_THROW(at_once.release(1, {{0, 0}}), InvariantError);
}

// GPU memory for GPUs shared by memory (the task model), and a book without the servers-by-free index.
TEST(Invariants, ClusterBooksSharedGpuMemoryAndRefusesAnIndexItDoesNotKeep) {
  ClusterSpec spec = cluster(1, 2);
  spec.servers[0].gpu_mem_gb = 16;
  Cluster c(spec, false);
  c.take_gpu_mem(1, 1, 10000);
  c.take_gpu_mem(2, 1, 6384);  // two jobs on one GPU: 16 GB exactly
  EXPECT_EQ(c.free_gpu_mem_mb()[1], 0);
  EXPECT_EQ(c.free_gpu_mem_mb()[0], 16384);
  EXPECT_THROW(c.take_gpu_mem(3, 1, 1), InvariantError);
  EXPECT_THROW(c.take_gpu_mem(3, 2, 1), InvariantError);  // no GPU 2
  c.give_gpu_mem(1, 1, 10000);
  EXPECT_THROW(c.give_gpu_mem(2, 1, 10000), InvariantError);  // more than the GPU has
  EXPECT_THROW(c.servers_with_free(0), InvariantError);
  c.take_gpu(1, {0, 0});  // exclusive GPUs still work without the index
  EXPECT_EQ(c.free_gpus(0), 1);
  EXPECT_THROW(c.take_gpu(2, {0, 0}), InvariantError);
}

TEST(Invariants, SchedulerThatStarvesAJobIsCaught) {
  class Idle : public Scheduler {
   public:
    std::string name() const override { return "idle"; }
    Decisions schedule(const SchedContext&) override { return {}; }
  } idle;
  auto c = cluster(1, 4);
  auto specs = jobs(c, {"A,0,1,10,100"});
  Engine e(c, specs, idle, make_rate_model(c));
  EXPECT_THROW(e.run(), InvariantError);
}

}  // namespace
}  // namespace rm::test
