// Backfill with reservations (policy/backfill.h; issue 29): EASY never delays the queue's head, by hand and over
// random traces with exact durations on one server; conservative protects every blocked job; the demo's
// fifo-backfill (EASY) is no worse than fifo on makespan.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>

#include <fmt/format.h>

#include "test_util.h"

namespace rm {
namespace {

// One 8-GPU server: j1 holds 6 GPUs to 100 s; j2 (4 GPUs) is the blocked head, its shadow time 100 s with 4 GPUs
// to spare; j3 (8 GPUs) waits behind it; j4 (2 GPUs, 200 s) fits now.
const std::vector<std::string> kRows = {"j1,0,6,100,1000", "j2,1,4,100,100", "j3,2,8,100,100", "j4,3,2,100,2000"};

TEST(Backfill, EasyProtectsTheHeadOnlyConservativeProtectsEveryone) {
  const ClusterSpec c = test::cluster(1, 8);
  // EASY: j4 takes 2 of the head's 4 spare GPUs at its shadow time, so it starts at 3 s; j3 waits for it (203 s).
  auto easy = test::run(c, kRows, "fifo+easy-backfill");
  EXPECT_DOUBLE_EQ(easy->start("j4"), 3);
  EXPECT_DOUBLE_EQ(easy->start("j2"), 100);
  EXPECT_DOUBLE_EQ(easy->start("j3"), 203);
  // Conservative: j3 holds a reservation at 110 s that j4 would break: j4 waits to 120 s, nothing is delayed.
  auto cons = test::run(c, kRows, "fifo+conservative-backfill");
  EXPECT_DOUBLE_EQ(cons->start("j2"), 100);
  EXPECT_DOUBLE_EQ(cons->start("j3"), 110);
  EXPECT_DOUBLE_EQ(cons->start("j4"), 120);
  // Greedy backfill (no reservation) starts j4 at once too; strict FIFO does not.
  EXPECT_DOUBLE_EQ(test::run(c, kRows, "fifo+backfill")->start("j4"), 3);
  auto fifo = test::run(c, kRows, "fifo");
  EXPECT_DOUBLE_EQ(fifo->start("j4"), 120);
  EXPECT_DOUBLE_EQ(fifo->start("j3"), 110);
}

TEST(Backfill, EasyRefusesAJobThatWouldDelayTheHead) {
  // 4 GPUs: j2 (all 4) is the head from 1 s, its shadow 100 s and no GPU to spare; j3 ends by then (backfilled),
  // j4 would not (it waits for j2); greedy backfill starts j4 and delays j2 to 203 s.
  const ClusterSpec c = test::cluster(1, 4);
  const std::vector<std::string> rows = {"j1,0,2,100,1000", "j2,1,4,100,100", "j3,2,1,100,500", "j4,3,1,100,2000"};
  auto easy = test::run(c, rows, "fifo+easy-backfill");
  EXPECT_DOUBLE_EQ(easy->start("j3"), 2);
  EXPECT_DOUBLE_EQ(easy->start("j2"), 100);
  EXPECT_DOUBLE_EQ(easy->start("j4"), 110);
  auto greedy = test::run(c, rows, "fifo+backfill");
  EXPECT_DOUBLE_EQ(greedy->start("j4"), 3);
  EXPECT_DOUBLE_EQ(greedy->start("j2"), 203);
}

// With exact durations on one server, each job starts as soon as the jobs that were running when it reached the
// queue's head leave it room: backfilled jobs never push it later (and under greedy backfill they do).
TEST(Backfill, EasyNeverDelaysTheHeadOverRandomTraces) {
  const ClusterSpec c = test::cluster(1, 8);
  int delayed_by_greedy = 0;
  for (int seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::string> rows;
    double t = 0;
    const int sizes[] = {1, 1, 2, 2, 4, 8};
    for (int i = 0; i < 25; ++i) {
      t += static_cast<double>(rng() % 30);
      const int n = sizes[rng() % 6];
      const int dur = 10 + static_cast<int>(rng() % 200);
      rows.push_back(fmt::format("j{:02d},{},{},100,{}", i, t, n, dur * 10));
    }
    for (const char* policy : {"fifo+easy-backfill", "fifo+backfill"}) {
      auto r = test::run(c, rows, policy);
      // Jobs in FIFO order (submit, then id: the rows are in that order).
      std::vector<const JobState*> order;
      for (const auto& j : r->engine->jobs()) order.push_back(&j);
      double prev_start = 0;
      for (std::size_t k = 0; k < order.size(); ++k) {
        const JobState& J = *order[k];
        ASSERT_NEAR(to_seconds(J.finish - J.first_start), J.spec->iterations * J.spec->compute_s, 1e-6);
        // When J became the head: submitted, and every job before it in order started.
        const double head = std::max(to_seconds(J.spec->submit), prev_start);
        prev_start = std::max(prev_start, to_seconds(J.first_start));
        // The jobs holding GPUs then: started by that time (at that very time: only those ahead of J).
        std::vector<std::pair<double, int>> ends;
        int busy = 0;
        for (std::size_t m = 0; m < order.size(); ++m) {
          const JobState& K = *order[m];
          const double s = to_seconds(K.first_start), f = to_seconds(K.finish);
          if (m == k || s > head + 1e-9 || (s > head - 1e-9 && m > k) || f <= head + 1e-9) continue;
          busy += K.spec->num_gpus;
          ends.push_back({f, K.spec->num_gpus});
        }
        std::sort(ends.begin(), ends.end());
        double expect = head;
        for (const auto& [f, n] : ends) {
          if (8 - busy >= J.spec->num_gpus) break;
          busy -= n;
          expect = f;
        }
        const double start = to_seconds(J.first_start);
        if (start < head - 1e-9) continue;  // backfilled before it reached the head
        if (std::string(policy) == "fifo+easy-backfill") {
          EXPECT_NEAR(start, expect, 1e-6) << "seed " << seed << " job " << J.spec->name;
        } else if (start > expect + 1e-6) {
          ++delayed_by_greedy;
        }
      }
    }
  }
  EXPECT_GT(delayed_by_greedy, 0) << "the traces never make greedy backfill delay a head: the test cannot fail";
}

TEST(Backfill, ReservationsNeedANonPreemptiveOrderAndFifoBackfillIsEasy) {
  try {
    make_scheduler("srsf+easy-backfill", 1);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("srsf preempts (add +no-preempt, or use +backfill)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(make_scheduler("fifo-backfill", 1)->name(), "fifo+consolidated+easy-backfill");
  EXPECT_EQ(make_scheduler("srsf+no-preempt+conservative-backfill", 1)->name(), "srsf+consolidated+conservative-backfill");
}

// The contract: on the demo, fifo-backfill's makespan is no worse than fifo's.
TEST(Backfill, DemoFifoBackfillMakespanNoWorseThanFifo) {
  const std::string d = test::temp_dir();
  const auto r = test::shell(std::string(RM_BINARY) + " simulate --policy fifo --policy fifo-backfill --out " + d +
                             "/o -q 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  auto makespan = [&](const std::string& p) {
    const std::string s = test::read_file(d + "/o/" + p + "/summary.json");
    const auto at = s.find("\"makespan_s\": ");
    return std::stod(s.substr(at + 14));
  };
  EXPECT_LE(makespan("fifo-backfill"), makespan("fifo"));
  EXPECT_GT(makespan("fifo"), 0);
}

}  // namespace
}  // namespace rm
