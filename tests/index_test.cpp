// The scale structures (docs/design.md, "Scale"): the composed scheduler's indexes of waiting and running jobs
// decide exactly as the full sort of every active job (`+full-sort`), the cluster's servers-by-free-count index
// answers as a walk over every server, and the active list's view skips finished jobs.
#include "core/rng.h"
#include "policy/job_index.h"
#include "test_util.h"

namespace rm::test {
namespace {

// Arrivals in bursts (queues form), 1..16 GPUs, some long jobs, heavy contention (rate changes).
std::vector<std::string> bursty_rows(std::uint64_t seed, int n) {
  Rng rng(seed);
  std::vector<std::string> rows;
  double t = 0;
  for (int i = 0; i < n; ++i) {
    t += rng.below(4) == 0 ? rng.uniform() * 300 : rng.uniform() * 3;
    const int g = 1 << rng.below(5);
    const int iters = rng.below(5) == 0 ? 2000 + rng.below(4000) : 10 + rng.below(400);
    rows.push_back("J" + std::to_string(i) + "," + std::to_string(t) + "," + std::to_string(g) + "," +
                   std::to_string(iters) + "," + std::to_string(20 + rng.below(200)) + "," +
                   std::to_string(rng.below(600)));
  }
  return rows;
}

// Servers of 4, 8 and 2 GPUs: consolidated placement's best fit and its emptiest-first order see every count.
ClusterSpec mixed_cluster() {
  return parse_cluster_yaml(
      "network: {contention_a: 0.3}\nservers:\n"
      "  - {count: 3, gpus: 4, gpu_mem_gb: 32, nic_gbps: 10}\n"
      "  - {count: 2, gpus: 8, gpu_mem_gb: 32, nic_gbps: 10}\n"
      "  - {count: 3, gpus: 2, gpu_mem_gb: 32, nic_gbps: 25}\n",
      "mixed.yaml");
}

class IndexedPolicy : public ::testing::TestWithParam<std::string> {};

TEST_P(IndexedPolicy, DecidesExactlyAsTheFullSort) {
  const ClusterSpec c = mixed_cluster();
  long preemptions = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const auto rows = bursty_rows(seed, 150);
    const double overhead = seed % 2 ? 2.0 : 0.0;
    auto a = run(c, rows, GetParam(), overhead);
    auto b = run(c, rows, GetParam() + "+full-sort", overhead);
    ASSERT_EQ(a->engine->jobs().size(), b->engine->jobs().size());
    for (std::size_t i = 0; i < a->engine->jobs().size(); ++i) {
      const JobState& x = a->engine->jobs()[i];
      const JobState& y = b->engine->jobs()[i];
      ASSERT_EQ(x.first_start, y.first_start) << GetParam() << " seed " << seed << " job " << x.spec->name;
      ASSERT_EQ(x.finish, y.finish) << GetParam() << " seed " << seed << " job " << x.spec->name;
      ASSERT_EQ(x.preemptions, y.preemptions) << GetParam() << " seed " << seed << " job " << x.spec->name;
    }
    EXPECT_EQ(a->engine->events(), b->engine->events());
    preemptions += a->engine->preemptions();
  }
  // The preemptive ones must have been tested on preemptions.
  auto probe = make_scheduler(GetParam(), 1);
  if (probe->name().find("+preempt") != std::string::npos) {
    EXPECT_GT(preemptions, 20) << GetParam();
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, IndexedPolicy,
                         ::testing::Values("srsf", "srtf", "2d-las:thresholds=200,2000", "tiresias",
                                           "srsf+consolidated", "srsf+no-backfill", "srtf+random",
                                           "shortest+preempt+backfill", "sjf+preempt+backfill", "2d-las:thresholds=100+no-backfill",
                                           "fifo", "fifo-backfill", "sjf", "shortest+backfill", "srsf+no-preempt",
                                           "fifo+consolidated+backfill", "drf", "drf+preempt+backfill", "tetris",
                                           "tetris+no-preempt",
                                           "2d-gittins:delta=200;cdf=" RM_SHARED_DIR "/traces/tiresias/yarn-gput1000.csv"),
                         [](const auto& info) {
                           std::string s;
                           for (char ch : info.param) s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return s;
                         });

TEST(Index, ServerBitsFindTheNextMemberAndNonMember) {
  ServerBits b;
  b.resize(200);
  for (int s : {0, 63, 64, 130, 199}) b.set(s, true);
  EXPECT_EQ(b.next(0), 0);
  EXPECT_EQ(b.next(1), 63);
  EXPECT_EQ(b.next(64), 64);
  EXPECT_EQ(b.next(65), 130);
  EXPECT_EQ(b.next(131), 199);
  EXPECT_EQ(b.next(200), 200);
  EXPECT_EQ(b.next_absent(0), 1);
  EXPECT_EQ(b.next_absent(63), 65);
  EXPECT_EQ(b.next_absent(199), 200);  // past the end: the size, even though the last word has spare bits
  b.set(64, false);
  EXPECT_EQ(b.next(64), 130);
  EXPECT_EQ(b.next_absent(63), 64);
}

// Past the summary level (a bit per 64 servers): sparse, empty and full stretches of 12,500 servers, as a walk
// over every bit answers them.
TEST(Index, ServerBitsAnswerAsAWalkOnLargeSparseAndFullSets) {
  for (const int n : {12500, 4096, 4097, 64}) {
    Rng rng(static_cast<std::uint64_t>(n));
    ServerBits b;
    b.resize(n);
    std::vector<bool> in(static_cast<std::size_t>(n), false);
    const auto walk = [&](int from, bool member) {
      for (int s = std::max(from, 0); s < n; ++s)
        if (in[static_cast<std::size_t>(s)] == member) return s;
      return n;
    };
    for (int step = 0; step < 3000; ++step) {
      const int phase = step / 1000;  // a few members; all but a few; a few again
      if (step % 1000 == 0)
        for (int k = 0; k < n; ++k) b.set(k, phase == 1), in[static_cast<std::size_t>(k)] = phase == 1;
      const int s = static_cast<int>(rng.below(static_cast<std::uint64_t>(n)));
      const bool on = phase == 1 ? rng.uniform() < 0.99 : rng.uniform() < 0.5;
      b.set(s, on);
      in[static_cast<std::size_t>(s)] = on;
      const int from = static_cast<int>(rng.below(static_cast<std::uint64_t>(n + 2)));
      ASSERT_EQ(b.next(from), walk(from, true)) << n << " " << step << " " << from;
      ASSERT_EQ(b.next_absent(from), walk(from, false)) << n << " " << step << " " << from;
      ASSERT_EQ(b.next(0), walk(0, true)) << n << " " << step;
      ASSERT_EQ(b.next_absent(0), walk(0, false)) << n << " " << step;
    }
  }
}

// The FreeMap's index answers (first free server, best fit, emptiest first) equal a walk over every server,
// on random cluster states with a decision's own takes and gives on top.
TEST(Index, FreeServerQueriesMatchAWalkOverEveryServer) {
  const ClusterSpec spec = parse_cluster_yaml(
      "servers:\n  - {count: 70, gpus: 8, gpu_mem_gb: 32}\n  - {count: 50, gpus: 4, gpu_mem_gb: 16}\n", "t.yaml");
  Rng rng(11);
  JobSpec big;  // needs 20 GB GPUs: not the 16 GB servers
  big.gpu_mem_mb = 20000;
  JobSpec small;
  small.gpu_mem_mb = 1000;
  for (int round = 0; round < 40; ++round) {
    Cluster c(spec);
    JobId id = 0;
    for (int s = 0; s < c.num_servers(); ++s)
      for (int g = 0; g < spec.servers[s].gpus; ++g)
        if (rng.below(10) < 7) c.allocate(id++, {{s, g}});
    FreeMap f(c);
    for (int k = 0; k < 30; ++k) {  // this decision's own changes
      const int s = static_cast<int>(rng.below(c.num_servers())), g = static_cast<int>(rng.below(spec.servers[s].gpus));
      if (f.is_free({s, g})) f.take({{s, g}});
      else if (!c.is_free({s, g})) f.give({{s, g}});
    }
    for (int from : {0, 1, 63, 64, 100, 119}) {
      int want = from;
      while (want < c.num_servers() && f.free_on(want) == 0) ++want;
      ASSERT_EQ(f.next_free_server(from), want) << "round " << round << " from " << from;
    }
    for (const JobSpec* j : {&big, &small})
      for (int n = 1; n <= 8; ++n) {
        int want = -1;
        for (int s = 0; s < c.num_servers(); ++s)
          if (f.free_on(s) >= n && f.fits_memory(*j, s) && (want < 0 || f.free_on(s) < f.free_on(want))) want = s;
        ASSERT_EQ(f.fullest_holding(n, *j), want) << "round " << round << " n " << n;
      }
    for (const JobSpec* j : {&big, &small}) {
      std::vector<int> want, got;
      for (int s = 0; s < c.num_servers(); ++s)
        if (f.free_on(s) > 0 && f.fits_memory(*j, s)) want.push_back(s);
      std::stable_sort(want.begin(), want.end(), [&](int a, int b) { return f.free_on(a) > f.free_on(b); });
      f.by_free_descending(*j, [&](int s) { return got.push_back(s), true; });
      ASSERT_EQ(got, want) << "round " << round;
    }
  }
}

TEST(Index, WaitingWalkPassesOverJobsAskingMoreThanTheBudget) {
  std::vector<JobSpec> specs(6);
  std::vector<JobState> jobs(6);
  const int gpus[] = {4, 1, 8, 2, 1, 4};
  WaitingIndex w;
  for (int i = 0; i < 6; ++i) {
    specs[i].id = i;
    specs[i].num_gpus = gpus[i];
    specs[i].submit = 10 * i;
    jobs[i].spec = &specs[i];
    w.insert(jobs[i], 100.0 - i);  // pass order: 5, 4, 3, 2, 1, 0
  }
  EXPECT_EQ(w.size(), 6u);
  EXPECT_EQ(w.gpus(), 20);
  EXPECT_EQ(w.first().id, 5);
  EXPECT_EQ(w.gpus_below(pass_key(jobs[2], 98.0)), 4 + 1 + 2);  // jobs 5, 4, 3
  WaitingIndex::Walk all(w);
  std::vector<JobId> order;
  while (const PassKey* k = all.next()) order.push_back(k->id);
  EXPECT_EQ(order, (std::vector<JobId>{5, 4, 3, 2, 1, 0}));
  WaitingIndex::Walk some(w);
  order.clear();
  for (int budget : {3, 3, 1})  // job 5 (4 GPUs) and 2 (8) are passed over; then only 1-GPU jobs
    if (const PassKey* k = some.next(budget)) order.push_back(k->id);
  EXPECT_EQ(order, (std::vector<JobId>{4, 3, 1}));
  w.erase(jobs[3], 97.0);
  EXPECT_EQ(w.gpus(), 18);
  EXPECT_THROW(w.erase(jobs[3], 97.0), InvariantError);
}

TEST(Index, ActiveViewSkipsFinishedJobs) {
  std::vector<JobSpec> specs(5);
  std::vector<JobState> jobs(5);
  ActiveJobs::List list;
  for (int i = 0; i < 5; ++i) {
    specs[i].id = i;
    jobs[i].spec = &specs[i];
    jobs[i].status = (i == 0 || i == 2 || i == 4) ? JobStatus::Finished : JobStatus::Queued;
    list.push_back(&jobs[i]);
  }
  ActiveJobs v(list);
  std::vector<JobId> ids;
  for (const JobState* j : v) ids.push_back(j->id());
  EXPECT_EQ(ids, (std::vector<JobId>{1, 3}));
  EXPECT_EQ((*v.begin())->id(), 1);
  for (auto& j : jobs) j.status = JobStatus::Finished;
  EXPECT_TRUE(v.empty());
}

}  // namespace
}  // namespace rm::test
