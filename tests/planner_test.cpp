// SJF-BCO and its baselines (Yu et al. 2022, spec contention-and-sjf-bco.md Part B and Part C).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.h"
#include "core/rng.h"
#include "run/simulation.h"
#include "exec/yu2022_model.h"
#include "policy/planner/planner.h"

namespace rm::plan {
namespace {

yu::ModelParams model() { return yu::ModelParams{}; }

// A random instance: `servers` servers of 4/8/16 GPUs, `n` jobs of 1..max_g GPUs.
Instance random_instance(std::uint64_t seed, int servers, int n, int max_g) {
  Rng rng(seed);
  Instance in;
  int total = 0;
  for (int s = 0; s < servers; ++s) total += in.server_gpus.emplace_back(4 << rng.below(3));
  for (int i = 0; i < n; ++i) {
    PJob j;
    j.id = i;
    j.G = 1 + static_cast<int>(rng.below(std::min(max_g, total)));
    j.F = 100 + static_cast<double>(rng.below(900));
    j.tau0 = 0.01 + 0.04 * rng.uniform();
    j.rho_hat = j.F * j.tau0;
    in.jobs.push_back(j);
  }
  return in;
}

TEST(Yu2022Model, ContentionCountOfEquation6) {
  // Four servers: X on s0+s1, Y on s1+s2, Z on s2+s3, V on s1+s3, W alone on s1.
  // Split jobs per server: s0 {X}, s1 {X, Y, V}, s2 {Y, Z}, s3 {Z, V}; W is not split, so not counted.
  const auto p = yu::contention_counts({{0, 1}, {1, 2}, {2, 3}, {1, 3}, {1}}, 4);
  EXPECT_EQ(p, (std::vector<int>{3, 3, 2, 3, 0}));
}

TEST(Yu2022Model, IterationTimeLaw) {
  const auto m = model();
  EXPECT_DOUBLE_EQ(yu::tau_slots(0.02, 0, 1, m), 0.02);  // single server: no contention, no overhead
  EXPECT_DOUBLE_EQ(yu::tau_slots(0.02, 7, 1, m), 0.02);
  // p = 2 on 2 servers: f = 2 + 0.2745 = 2.2745; extra = 0.02 (1.2745 + 1) = 4.549 %.
  EXPECT_NEAR(yu::tau_slots(0.02, 2, 2, m), 0.02 * 1.04549, 1e-15);
  EXPECT_DOUBLE_EQ(yu::tau_slots(0.02, 1, 2, m), 0.02 * 1.02);  // k = max(1, p): only the overhead
  EXPECT_DOUBLE_EQ(yu::tau_slots(0.02, 40, 9, m), 0.02 * 1.15);  // capped at 15 %
}

TEST(Planner, SingleServerJobsRunAtTheirOwnSpeed) {
  // Two 4-GPU servers. LS puts A (2 GPUs) on GPUs 0-1 of server 0 and B (6 GPUs) across both servers,
  // beside A: A is not split, so its time stays F * tau0 whatever B does.
  Instance in;
  in.server_gpus = {4, 4};
  in.jobs = {{0, 2, 1000, 0.02, 20, 1}, {1, 6, 1000, 0.03, 30, 1}};
  PlanOptions opt;
  const Plan p = make_plan("ls", in, model(), opt);
  ASSERT_TRUE(p.ok);
  EXPECT_DOUBLE_EQ(p.jobs[0].start, 0);
  EXPECT_NEAR(p.jobs[0].finish, 20.0, 1e-9);  // alone on its server: p = 0, sigma = 1
  // B spans both servers (p = 1, sigma = 2: 2 % overhead), starts with A: 30 * 1.02.
  EXPECT_NEAR(p.jobs[1].finish - p.jobs[1].start, 30.0 * 1.02, 1e-9);
}

TEST(Planner, PaperSlotSemanticsUnderCompat) {
  // One job, tau0 = 0.3 slot, F = 10 iterations: fractional progress ends at 3 slots; the paper's
  // floor(1 / tau) = 3 whole iterations per slot needs 4 slots (eq. 9).
  Instance in;
  in.server_gpus = {4};
  in.jobs = {{0, 2, 10, 0.3, 3, 1}};
  auto m = model();
  EXPECT_NEAR(make_plan("ls", in, m, {}).makespan, 3.0, 1e-12);
  m.floor_slots = true;
  EXPECT_EQ(make_plan("ls", in, m, {}).makespan, 4.0);
  // End to end: the engine executes the slot-rounded plan exactly.
  SimConfig cfg;
  cfg.cluster = "yu2022";
  cfg.workload = "yu2022";
  cfg.gen.jobs = 40;
  cfg.gen.servers = 6;
  cfg.compat = "yu2022";
  cfg.policy = "sjf-bco:horizon=5000";
  auto r = simulate(cfg);
  for (const auto& j : r->schedule.jobs) EXPECT_EQ(j.finish, std::floor(j.finish));
  EXPECT_EQ(r->summary.makespan_s, r->schedule.makespan * 10);
}

TEST(Planner, SjfBcoWithLargeKappaIsLs) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Instance in = random_instance(seed, 6, 40, 16);
    PlanOptions opt;
    opt.horizon = 3000;
    opt.kappa = 16;  // >= max G: every job uses FA-FFP
    const Plan a = make_plan("sjf-bco", in, model(), opt);
    const Plan b = make_plan("ls", in, model(), opt);
    ASSERT_TRUE(a.ok && b.ok);
    EXPECT_EQ(a.makespan, b.makespan);
    EXPECT_EQ(a.theta, b.theta);
    for (std::size_t i = 0; i < a.jobs.size(); ++i) {
      EXPECT_EQ(a.jobs[i].gpus, b.jobs[i].gpus) << seed << " job " << i;
      EXPECT_EQ(a.jobs[i].start, b.jobs[i].start);
    }
  }
}

TEST(Planner, BisectionTerminatesAndKeepsTheBestItSaw) {
  // A made-up makespan per cap: the search must stop after about log2(T) probes and return the best
  // makespan among the caps it probed, with that cap.
  Instance in;
  PlanOptions opt;
  opt.horizon = 1000;
  std::map<int, double> seen;
  const Plan best = bisect(in, model(), opt, [&](double theta) {
    Plan p;
    p.ok = theta >= 300;  // tighter caps are infeasible
    p.makespan = p.ok ? 400 + std::abs(theta - 420) : opt.horizon;
    seen[static_cast<int>(theta)] = p.makespan;
    return p;
  });
  EXPECT_LE(seen.size(), 11u);  // ceil(log2(1000)) + 1
  double min_seen = 1e9;
  int arg = 0;
  for (const auto& [th, m] : seen)
    if (m < min_seen) min_seen = m, arg = th;
  EXPECT_EQ(best.makespan, min_seen);
  EXPECT_EQ(best.theta, arg);
}

TEST(Planner, Lemma3MakespanBoundOnRandomInstances) {
  // makespan <= n_g * W_max, W_max = the largest total execution time assigned to one GPU (Lemma 3:
  // with gang scheduling and no backfilling a GPU idles only while the next job's other GPUs are busy).
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const Instance in = random_instance(seed, 2 + static_cast<int>(seed % 5), 10 + static_cast<int>(seed % 30), 12);
    int ng = 0;
    for (const auto& j : in.jobs) ng = std::max(ng, j.G);
    for (const char* name : {"sjf-bco", "ls", "ff", "rand"}) {
      PlanOptions opt;
      opt.horizon = 20000;
      opt.seed = seed;
      const Plan p = make_plan(name, in, model(), opt);
      ASSERT_TRUE(p.ok) << name << " " << seed;
      std::map<int, double> w;
      for (const auto& j : p.jobs)
        for (int g : j.gpus) w[g] += j.finish - j.start;
      double wmax = 0;
      for (const auto& [g, x] : w) wmax = std::max(wmax, x);
      EXPECT_LE(p.makespan, ng * wmax + 1e-9) << name << " seed " << seed;
      // No GPU ever holds two jobs at once.
      std::map<int, std::vector<std::pair<double, double>>> busy;
      for (const auto& j : p.jobs)
        for (int g : j.gpus) busy[g].push_back({j.start, j.finish});
      for (auto& [g, v] : busy) {
        std::sort(v.begin(), v.end());
        for (std::size_t k = 1; k < v.size(); ++k) EXPECT_LE(v[k - 1].second, v[k].first + 1e-9) << name << " gpu " << g;
      }
    }
  }
}

TEST(Planner, EngineExecutesThePlanForEveryPlanner) {
  for (const char* name : {"sjf-bco", "ls", "ff", "rand"}) {
    SimConfig cfg;
    cfg.cluster = "yu2022";
    cfg.workload = "yu2022";
    cfg.gen.jobs = 40;
    cfg.gen.servers = 6;
    cfg.seed = 3;
    cfg.policy = std::string(name) + ":horizon=5000";
    auto r = simulate(cfg);  // throws InvariantError if the engine's run differs from the plan
    ASSERT_TRUE(r->schedule.ok);
    EXPECT_NEAR(r->summary.makespan_s, r->schedule.makespan * cfg.yu.slot_s, 1e-3) << name;
    EXPECT_EQ(r->summary.jobs, 40);
  }
}

TEST(Planner, OnlineReplanningFinishesEveryJobAndBeatsFifo) {
  auto run = [](const std::string& policy) {
    SimConfig cfg;
    cfg.cluster = "wang2020";
    cfg.workload = "wang2020";
    cfg.gen.jobs = 60;
    cfg.seed = 5;
    cfg.exec = "rate";
    cfg.policy = policy;
    return simulate(cfg);
  };
  auto a = run("sjf-bco-online"), b = run("sjf-bco-online"), f = run("fifo");
  EXPECT_EQ(a->summary.jobs, 60);  // the engine checks every job finishes and no GPU is double-booked
  EXPECT_EQ(a->summary.avg_jct_s, b->summary.avg_jct_s);
  EXPECT_LT(a->summary.avg_jct_s, f->summary.avg_jct_s);
  EXPECT_THROW(run("sjf-bco-online:lambda=0"), InputError);
  EXPECT_THROW(run("sjf-bco-online+first-fit"), InputError);
}

TEST(Planner, BadInput) {
  SimConfig cfg;
  cfg.cluster = "yu2022";
  cfg.workload = "yu2022";
  cfg.policy = "sjf-bco:horizon=5";  // far too short
  EXPECT_THROW(simulate(cfg), InputError);
  cfg.policy = "sjf-bco:lambda=0.5";
  EXPECT_THROW(simulate(cfg), InputError);
  cfg.policy = "sjf-bco:nosuch=1";
  EXPECT_THROW(simulate(cfg), InputError);
  cfg.workload = "wang2020";  // jobs arrive over time: not an offline instance
  cfg.cluster = "wang2020";
  cfg.policy = "ls";
  EXPECT_THROW(simulate(cfg), InputError);
}

}  // namespace
}  // namespace rm::plan
