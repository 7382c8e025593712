// Job graphs and the MAP placement of the A-SRPT reconstruction (spec synergy-and-a-srpt.md A.2-A.3).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/error.h"
#include "core/rng.h"
#include "workload/job_graph_map.h"
#include "workload/job_graph.h"

namespace rm {
namespace {

std::vector<std::vector<int>> free_gpus(std::vector<int> counts) {
  std::vector<std::vector<int>> f;
  for (int c : counts) {
    f.emplace_back(c);
    for (int i = 0; i < c; ++i) f.back()[i] = i;
  }
  return f;
}

TEST(JobGraph, EdgesAndWeights) {
  // D = P = T = 2: TP rings 4 groups x 2 edges of 2(1)/2 A = A; PP 4 edges of pp; DP rings 4 x 2 of theta.
  const auto g = build_job_graph({2, 2, 2}, {0.5, {10}, {7}, {100}});
  EXPECT_EQ(g.size(), 8);
  EXPECT_EQ(g.edges.size(), 20u);
  EXPECT_DOUBLE_EQ(g.total_bytes(), 8 * 10 + 4 * 7 + 8 * 100);
  // Phases run one after another, each as long as its slowest edge: TP 10, PP 7, DP 100 bytes.
  EXPECT_DOUBLE_EQ(alpha_max_s(g, 10), 0.5 + (10 + 7 + 100) / 10.0);
  EXPECT_DOUBLE_EQ(alpha_floor_s(g, 100), 0.5 + (10 + 7 + 100) / 100.0);
  EXPECT_THROW(build_job_graph({0, 1, 1}, {}), InputError);
  EXPECT_THROW(build_job_graph({1, 3, 1}, {0, {}, {1, 2, 3, 4}, {}}), InputError);  // 2 boundaries, 4 values
  EXPECT_NO_THROW(build_job_graph({1, 3, 1}, {0, {5, 6, 7}, {1, 2}, {9}}));
}

TEST(Map, AJobThatFitsOneServerUsesOne) {
  const auto g = build_job_graph({4, 1, 1}, {0.1, {}, {}, {1e6}});
  // Servers with 8, 5 and 6 free GPUs: the tightest that fits is server 1.
  const auto r = map_place(g, free_gpus({8, 5, 6}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->servers, 1);
  EXPECT_EQ(r->cut_bytes, 0);
  for (int v = 0; v < 4; ++v) EXPECT_EQ(r->gpus[v], (GpuRef{1, v}));
  EXPECT_FALSE(map_place(g, free_gpus({1, 1, 1})));  // 3 free GPUs < 4 workers
}

TEST(Map, TwoServerSplitOfARingCutsTwoEdges) {
  // DP ring of 4 (edges of 2*3/4*theta = 1.5 theta) over 2 + 2 free GPUs: two ring edges cross.
  const double theta = 4e8;
  const auto g = build_job_graph({4, 1, 1}, {0.1, {}, {}, {theta}});
  const auto r = map_place(g, free_gpus({2, 2}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->servers, 2);
  EXPECT_DOUBLE_EQ(r->cut_bytes, 2 * 1.5 * theta);
  const double b_in = 100e9, b_out = 10e9;
  std::vector<int> server_of;
  for (const auto& x : r->gpus) server_of.push_back(x.server);
  // The ring's slowest edge crosses servers: the all-reduce 2(D-1)/D theta / b_out.
  EXPECT_DOUBLE_EQ(alpha_s(g, server_of, b_in, b_out), 0.1 + 1.5 * theta / b_out);
  // On one server it is the same ring over b_in.
  EXPECT_DOUBLE_EQ(alpha_s(g, {0, 0, 0, 0}, b_in, b_out), 0.1 + 1.5 * theta / b_in);
}

TEST(Map, PicksThePipelineCutWhenGradientsAreHeavier) {
  // D = 2, P = 2 over two servers of 2: cutting the DP rings costs 4 theta (both stages' rings of two
  // edges of theta), cutting the pipeline costs 2 pp. With pp << theta, MAP keeps each stage's ring
  // together (O_pp) and cuts the pipeline.
  const double theta = 1e9, pp = 1e7;
  const auto g = build_job_graph({2, 2, 1}, {0.1, {}, {pp}, {theta}});
  const auto r = map_place(g, free_gpus({2, 2}));
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->cut_bytes, 2 * pp);
  // And the other way round: with heavy activations the replicas stay together (O_dp).
  const auto g2 = build_job_graph({2, 2, 1}, {0.1, {}, {theta}, {pp}});
  EXPECT_DOUBLE_EQ(map_place(g2, free_gpus({2, 2}))->cut_bytes, 4 * pp);
}

TEST(Map, RefinementRepairsABadLinearOrder) {
  // One replica, P = 2 stages, T = 4, over two servers of 4 free GPUs. Both linear orders put stage 0
  // on one server and stage 1 on the other, cutting all 4 pipeline edges (4 pp). With pp >> A it is
  // cheaper to cut both TP rings in half instead (2 rings x 2 edges x 1.5 A = 6 A), which no single
  // improving swap reaches but a Kernighan-Lin pass does.
  const double A = 1e6, pp = 1e8;
  const auto g = build_job_graph({1, 2, 4}, {0.1, {A}, {pp}, {}});
  const auto r0 = map_place(g, free_gpus({4, 4, 0}), 0);  // a third, full server forces a split
  ASSERT_TRUE(r0);
  EXPECT_DOUBLE_EQ(r0->cut_bytes, 4 * pp);
  const auto r = map_place(g, free_gpus({4, 4, 0}));
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->cut_bytes, 6 * A);
}

TEST(Map, AlphaBoundsHoldForRandomMappings) {
  // alpha^min (MAP on an empty cluster) <= alpha(x) <= alpha^max for random capacity-respecting mappings.
  Rng rng(7);
  const double b_in = 200e9, b_out = 12.5e9;
  for (int trial = 0; trial < 200; ++trial) {
    const ParallelConfig cfg{1 + static_cast<int>(rng.below(4)), 1 + static_cast<int>(rng.below(3)),
                             1 << rng.below(3)};
    const GraphSizes sz{0.05, {1e8 * (1 + rng.uniform())}, {1e7 * (1 + rng.uniform())}, {5e8 * (1 + rng.uniform())}};
    const auto g = build_job_graph(cfg, sz);
    const int per = 8, servers = (g.size() + per - 1) / per + 2;
    const auto best = map_place(g, free_gpus(std::vector<int>(servers, per)));
    ASSERT_TRUE(best);
    std::vector<int> bs;
    for (const auto& x : best->gpus) bs.push_back(x.server);
    const double amin = alpha_s(g, bs, b_in, b_out), amax = alpha_max_s(g, b_out);
    std::vector<int> slots;
    for (int s = 0; s < servers; ++s)
      for (int i = 0; i < per; ++i) slots.push_back(s);
    rng.shuffle(slots.begin(), slots.end());
    std::vector<int> x(slots.begin(), slots.begin() + g.size());
    const double a = alpha_s(g, x, b_in, b_out);
    EXPECT_LE(alpha_floor_s(g, b_in), amin + 1e-12);
    EXPECT_LE(amin, a + 1e-12) << cfg.D << "x" << cfg.P << "x" << cfg.T;
    EXPECT_LE(a, amax + 1e-12);
  }
}

}  // namespace
}  // namespace rm
