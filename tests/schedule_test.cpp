// Hand-computed schedules on 1-3 server clusters, one or more per policy. Every expected time below
// is worked out in the comment beside it.
#include "test_util.h"

namespace rm::test {
namespace {

// One server, 4 GPUs; all jobs single-server, so iteration time = compute only.
// J0: 4 GPUs, 100 x 0.1 s = 10 s.  J1 (t=1): 4 GPUs, 200 x 0.1 s = 20 s.  J2 (t=2): 1 GPU, 100 x 0.1 = 10 s.
const std::vector<std::string> kQueue = {"J0,0,4,100,100", "J1,1,4,200,100", "J2,2,1,100,100"};

TEST(Schedule, FifoRunsInArrivalOrder) {
  auto r = run(cluster(1, 4), kQueue, "fifo");
  EXPECT_DOUBLE_EQ(r->finish("J0"), 10);
  EXPECT_DOUBLE_EQ(r->start("J1"), 10);  // J0 frees all 4 GPUs at 10
  EXPECT_DOUBLE_EQ(r->finish("J1"), 30);
  EXPECT_DOUBLE_EQ(r->start("J2"), 30);  // strict FIFO: J2 waits behind J1
  EXPECT_DOUBLE_EQ(r->finish("J2"), 40);
}

TEST(Schedule, SjfServesFewestGpusFirst) {
  auto r = run(cluster(1, 4), kQueue, "sjf");
  EXPECT_DOUBLE_EQ(r->start("J2"), 10);  // 1 GPU beats 4 GPUs at t=10
  EXPECT_DOUBLE_EQ(r->finish("J2"), 20);
  EXPECT_DOUBLE_EQ(r->start("J1"), 20);  // needs all 4: waits for J2
  EXPECT_DOUBLE_EQ(r->finish("J1"), 40);
}

TEST(Schedule, ShortestServesShortestDurationFirst) {
  // J1 is 20 s, J2 is 10 s: J2 first at t=10, then J1 at 20.
  auto r = run(cluster(1, 4), kQueue, "shortest");
  EXPECT_DOUBLE_EQ(r->finish("J2"), 20);
  EXPECT_DOUBLE_EQ(r->finish("J1"), 40);
}

// J0 holds 3 of 4 GPUs until 10; J1 (4 GPUs, 10 s) is blocked until then; J2 (1 GPU, 5 s) fits the hole.
const std::vector<std::string> kHole = {"J0,0,3,100,100", "J1,1,4,100,100", "J2,2,1,50,100"};

TEST(Schedule, StrictFifoKeepsSmallJobBehindBlockedHead) {
  auto r = run(cluster(1, 4), kHole, "fifo");
  EXPECT_DOUBLE_EQ(r->start("J1"), 10);
  EXPECT_DOUBLE_EQ(r->finish("J1"), 20);
  EXPECT_DOUBLE_EQ(r->start("J2"), 20);
  EXPECT_DOUBLE_EQ(r->finish("J2"), 25);
}

TEST(Schedule, BackfillLetsSmallJobPastBlockedHead) {
  auto r = run(cluster(1, 4), kHole, "fifo-backfill");
  EXPECT_DOUBLE_EQ(r->start("J2"), 2);
  EXPECT_DOUBLE_EQ(r->finish("J2"), 7);
  EXPECT_DOUBLE_EQ(r->start("J1"), 10);
  EXPECT_DOUBLE_EQ(r->finish("J1"), 20);
}

TEST(Schedule, SrtfPreemptsLongerJobAndResumesIt) {
  // J0: 4 GPUs, 100 s. J1 at t=10: 4 GPUs, 10 s. At 10 J0 has 90 s left > 10 -> preempted.
  // J1 runs 10-20; J0 resumes at 20 with 90 s left -> 110.
  const std::vector<std::string> rows = {"J0,0,4,1000,100", "J1,10,4,100,100"};
  auto r = run(cluster(1, 4), rows, "srtf");
  EXPECT_DOUBLE_EQ(r->finish("J1"), 20);
  EXPECT_DOUBLE_EQ(r->finish("J0"), 110);
  EXPECT_EQ(r->job("J0").preemptions, 1);
  // With a 5 s restart overhead J0 makes no progress from 20 to 25 -> 115.
  auto o = run(cluster(1, 4), rows, "srtf", 5.0);
  EXPECT_DOUBLE_EQ(o->finish("J0"), 115);
}

TEST(Schedule, StartDelayHoldsGpusWithoutProgressAtEveryStart) {
  // FIFO on kQueue with a 2 s start delay: J0 starts at 0, works 2-12; J1 starts at 12, works 14-34;
  // J2 starts at 34, works 36-46. The start time is the decision's, the GPUs are held through the delay.
  auto r = run(cluster(1, 4), kQueue, "fifo", 0, 2.0);
  EXPECT_DOUBLE_EQ(r->finish("J0"), 12);
  EXPECT_DOUBLE_EQ(r->start("J1"), 12);
  EXPECT_DOUBLE_EQ(r->finish("J1"), 34);
  EXPECT_DOUBLE_EQ(r->start("J2"), 34);
  EXPECT_DOUBLE_EQ(r->finish("J2"), 46);
  // SRTF with a 1 s delay and a 5 s restart overhead (rows as SrtfPreemptsLongerJobAndResumesIt): J0 works
  // 1-10 (9 s done, 91 left); J1 starts at 10, works 11-21; J0 resumes at 21, no progress until
  // 21 + 1 + 5 = 27, then 91 s -> 118. J1 at 10 has 10 s < 91 s left, so it preempts as before.
  auto s = run(cluster(1, 4), {"J0,0,4,1000,100", "J1,10,4,100,100"}, "srtf", 5.0, 1.0);
  EXPECT_DOUBLE_EQ(s->finish("J1"), 21);
  EXPECT_DOUBLE_EQ(s->finish("J0"), 118);
}

// J0: 2 GPUs, 30 s (t=0). J1 at t=5: 4 GPUs, 15 s. At 5, J0 has 25 s left (50 GPU-s).
//   SRTF: 15 s < 25 s -> preempt J0; J1 5-20; J0 20-45.
//   SRSF: 60 GPU-s > 50 GPU-s -> J0 keeps running to 30; J1 30-45.
const std::vector<std::string> kSrsf = {"J0,0,2,300,100", "J1,5,4,150,100"};

TEST(Schedule, SrtfAndSrsfDisagreeOnWideJob) {
  auto t = run(cluster(1, 4), kSrsf, "srtf");
  EXPECT_DOUBLE_EQ(t->finish("J1"), 20);
  EXPECT_DOUBLE_EQ(t->finish("J0"), 45);
  auto s = run(cluster(1, 4), kSrsf, "srsf");
  EXPECT_DOUBLE_EQ(s->finish("J0"), 30);
  EXPECT_DOUBLE_EQ(s->start("J1"), 30);
  EXPECT_DOUBLE_EQ(s->finish("J1"), 45);
  EXPECT_EQ(s->job("J0").preemptions, 0);
}

TEST(Schedule, TwoDLasDemotesAtThreshold) {
  // One GPU. Threshold 10 GPU-s. J0 (30 s) runs from 0; J1 (t=1, 5 s) is in the same queue but later.
  // At 10 J0 crosses the threshold (woken by the scheduler's wake-up), J1 preempts it: 10-15.
  // J0 resumes at 15 with 20 s left -> 35.
  const std::vector<std::string> rows = {"J0,0,1,300,100", "J1,1,1,50,100"};
  auto r = run(cluster(1, 1), rows, "2d-las:thresholds=10");
  EXPECT_DOUBLE_EQ(r->start("J1"), 10);
  EXPECT_DOUBLE_EQ(r->finish("J1"), 15);
  EXPECT_DOUBLE_EQ(r->finish("J0"), 35);
}

TEST(Schedule, NonPreemptiveOrderWithPreemptFlag) {
  // sjf+preempt: J1 (1 GPU) arrives while J0 (2 GPUs) holds the only 2 GPUs -> J0 is preempted.
  const std::vector<std::string> rows = {"J0,0,2,100,100", "J1,1,1,100,100"};
  auto r = run(cluster(1, 2), rows, "sjf+preempt");
  EXPECT_DOUBLE_EQ(r->finish("J1"), 11);
  EXPECT_DOUBLE_EQ(r->finish("J0"), 20);  // 1 s done before, the other 9 s from 11
  auto n = run(cluster(1, 2), rows, "sjf");
  EXPECT_DOUBLE_EQ(n->finish("J0"), 10);
  EXPECT_DOUBLE_EQ(n->finish("J1"), 20);
}

// --- placement and communication ----------------------------------------------------------

TEST(Schedule, SplitJobPaysRingAllReduceAtNicSpeed) {
  // 2 servers x 2 GPUs, 10 Gbps. 4-GPU job, 0.1 s compute, 125 MB = 1e9 bit gradient:
  // all-reduce = 2(4-1)/4 * 1e9 / 1e10 = 0.15 s, iteration 0.25 s, 100 iterations = 25 s.
  auto r = run(cluster(2, 2, 10), {"A,0,4,100,100,125"}, "fifo");
  EXPECT_DOUBLE_EQ(r->finish("A"), 25);
  // On one 4-GPU server the all-reduce is free (intra-server bandwidth unset = free): 10 s.
  auto one = run(cluster(1, 4, 10), {"A,0,4,100,100,125"}, "fifo");
  EXPECT_DOUBLE_EQ(one->finish("A"), 10);
}

TEST(Schedule, ContentionSlowsSharedNicAndReratesOnFinish) {
  // 3 servers x 2 GPUs, 10 Gbps, a = 0.5. X (1 GPU) takes s0g0. First-fit puts A on s0g1+s1g0 and
  // B on s1g1+s2g0: both split, both on server 1 -> k = 2, share 1/(2 + 0.5) = 0.4 -> 4 Gbps.
  // A, B: n = 2, 0.1 s compute, 125 MB: comm alone = 1e9/1e10 = 0.1 s; shared = 1e9/4e9 = 0.25 s.
  // B (50 iterations at 0.35 s) ends at 17.5 s. A has done 50 of 100; alone it runs 0.2 s/iteration:
  // 50 x 0.2 = 10 s -> 27.5 s.
  auto c = cluster(3, 2, 10, 0.5);
  auto r = run(c, {"X,0,1,10000,100", "A,0,2,100,100,125", "B,0,2,50,100,125"}, "fifo+first-fit");
  EXPECT_DOUBLE_EQ(r->finish("B"), 17.5);
  EXPECT_DOUBLE_EQ(r->finish("A"), 27.5);
}

TEST(Schedule, ConsolidatedAvoidsTheSplit) {
  // Same jobs, consolidated placement: X on s0 (best fit), A on s1, B on s2 -> no communication.
  // A: 100 x 0.1 = 10 s, B: 50 x 0.1 = 5 s.
  auto c = cluster(3, 2, 10, 0.5);
  auto r = run(c, {"X,0,1,10000,100", "A,0,2,100,100,125", "B,0,2,50,100,125"}, "fifo+consolidated");
  EXPECT_DOUBLE_EQ(r->finish("A"), 10);
  EXPECT_DOUBLE_EQ(r->finish("B"), 5);
}

TEST(Schedule, ConsolidatedTakesFewestServersThenOneRack) {
  // Rack r0: s0 with 4 GPUs; rack r1: s1, s2 with 3 each. J (6 GPUs) needs two servers: the emptiest two are
  // s0 + s1 (across racks), but r1 holds it on two servers of its own, so J takes s1 + s2 and K (4 GPUs, at
  // 1 s, 10 x 100 ms, 125 MB) runs alone on s0: 1 + 1 s. First-fit puts J on s0 + s1 and K on s1 + s2, where
  // the two split jobs share s1's NIC (5 Gb/s each): 2(4-1)/4 x 1e9 bit / 5 Gb/s = 0.3 s, 1 + 10 x 0.4 = 5 s.
  const ClusterSpec c = parse_cluster_yaml(
      "racks: [{name: r0}, {name: r1}]\nservers:\n"
      "  - {count: 1, gpus: 4, gpu_mem_gb: 32, nic_gbps: 10, rack: r0}\n"
      "  - {count: 2, gpus: 3, gpu_mem_gb: 32, nic_gbps: 10, rack: r1}\n",
      "racks.yaml");
  const std::vector<std::string> rows = {"J,0,6,100,100", "K,1,4,10,100,125"};
  EXPECT_DOUBLE_EQ(run(c, rows, "fifo")->finish("K"), 2);
  EXPECT_DOUBLE_EQ(run(c, rows, "fifo+consolidated")->finish("K"), 2);
  EXPECT_DOUBLE_EQ(run(c, rows, "fifo+first-fit")->finish("K"), 5);
}

TEST(Schedule, RandomPlacementIsSeededAndValid) {
  auto c = cluster(3, 4, 10, 0.2745);
  std::vector<std::string> rows;
  for (int i = 0; i < 20; ++i) rows.push_back("J" + std::to_string(i) + "," + std::to_string(i) + "," +
                                              std::to_string(1 + i % 4) + ",100,100,50");
  auto a = run(c, rows, "fifo+random");
  auto b = run(c, rows, "fifo+random");
  for (int i = 0; i < 20; ++i) {
    const std::string n = "J" + std::to_string(i);
    EXPECT_EQ(a->finish(n), b->finish(n)) << n;
  }
}

}  // namespace
}  // namespace rm::test
