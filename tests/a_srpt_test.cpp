// A-SRPT (spec synergy-and-a-srpt.md A.5): the virtual single machine, the list schedule it guides, the
// preemptive variant, and the rule that predictions only learn from finished jobs.
#include <set>

#include "core/error.h"
#include "core/rng.h"
#include "exec/comm_model.h"
#include "models/graph/graph_model.h"
#include "policy/a_srpt.h"
#include "test_util.h"

namespace rm::test {
namespace {

TEST(VirtualSrpt, FollowsPreemptiveSrptOnAHandInstance) {
  // A (r=0, 10), B (r=2, 3), C (r=4, 1). A runs 0-2 (8 left); B is smaller and runs 2-5; at 4 C (1) ties
  // B's remaining 1 and loses on release time; C runs 5-6; A finishes at 6 + 8 = 14.
  VirtualSrpt vm;
  std::vector<std::pair<JobId, double>> done;
  vm.add(0, 0, 10);
  EXPECT_DOUBLE_EQ(vm.next_completion(), 10);
  vm.advance(2, done);
  vm.add(1, 2, 3);
  EXPECT_DOUBLE_EQ(vm.next_completion(), 5);
  vm.advance(4, done);
  EXPECT_TRUE(done.empty());
  EXPECT_DOUBLE_EQ(vm.remaining(0), 8);
  EXPECT_DOUBLE_EQ(vm.remaining(1), 1);
  vm.add(2, 4, 1);
  vm.advance(100, done);
  ASSERT_EQ(done.size(), 3u);
  EXPECT_EQ(done[0], (std::pair<JobId, double>{1, 5}));
  EXPECT_EQ(done[1], (std::pair<JobId, double>{2, 6}));
  EXPECT_EQ(done[2], (std::pair<JobId, double>{0, 14}));
  EXPECT_DOUBLE_EQ(vm.now(), 100);
}

TEST(VirtualSrpt, ResizeReordersAndRemoveDrops) {
  VirtualSrpt vm;
  std::vector<std::pair<JobId, double>> done;
  vm.add(0, 0, 4);
  vm.add(1, 0, 6);
  vm.resize(1, -5);  // a new prediction makes job 1 the smaller one
  std::vector<JobId> order;
  vm.order(order);
  EXPECT_EQ(order, (std::vector<JobId>{1, 0}));
  vm.resize(0, -100);  // never below eps
  EXPECT_GT(vm.remaining(0), 0);
  vm.remove(1);
  vm.advance(1, done);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].first, 0);
}

// A predictor that records what it was told and when, to check there is no look-ahead.
// It lives inside the scheduler, so what the test reads afterwards (`finished`) is owned by the test.
struct Spy : Predictor {
  explicit Spy(std::set<JobId>& f) : finished(f) {}
  std::set<JobId>& finished;
  std::vector<std::pair<JobId, Time>> observed;
  const Engine** engine = nullptr;
  std::string name() const override { return "spy"; }
  double predict(const JobSpec& j, Time now) override {
    // Every job it has learned from finished no later than now.
    for (const auto& [id, t] : observed) EXPECT_LE(t, now);
    EXPECT_EQ(finished.count(j.id), 0u) << "predicting a job that already finished";
    return j.iterations;
  }
  void observe(const JobSpec& j, double, Time now) override {
    const JobState& s = (*engine)->jobs()[j.id];
    EXPECT_EQ(s.status, JobStatus::Finished) << "learned from a job still running";
    EXPECT_EQ(s.finish, now) << "learned late or early";
    finished.insert(j.id);
    observed.emplace_back(j.id, now);
  }
};

struct Result {
  std::vector<double> start, finish;
};

Result run_asrpt(const ClusterSpec& c, const std::vector<std::string>& rows, ASrptOptions opt,
                 std::unique_ptr<Predictor> pred, const Engine** hook = nullptr) {
  const auto specs = jobs(c, rows);
  auto sched = make_a_srpt(std::move(pred), opt);
  Engine e(c, specs, *sched, make_graph_model(c));
  if (hook) *hook = &e;
  e.run();
  Result r;
  for (const auto& j : e.jobs()) {
    r.start.push_back(to_seconds(j.first_start));
    r.finish.push_back(to_seconds(j.finish));
  }
  return r;
}

std::unique_ptr<Predictor> oracle() {
  PluginParams p("oracle", {}, 1);
  return make_predictor("oracle", p);
}

// One server of 4 GPUs, 1 s per iteration (no communication): J0 (0 s, 4 GPUs, 100 it), J1 (1 s, 2 GPUs,
// 10 it), J2 (1 s, 2 GPUs, 5 it). Virtual sizes n N alpha / M: 100, 5, 2.5. The machine serves J0 for 1 s,
// then J2 (1-3.5), J1 (3.5-8.5), J0 (8.5-107.5): the list is J2, J1, J0 and each starts at its virtual
// completion: J2 3.5-8.5, J1 8.5-18.5, J0 107.5-207.5.
const std::vector<std::string> kHand = {"J0,0,4,100,1000", "J1,1,2,10,1000", "J2,1,2,5,1000"};

TEST(ASrpt, StrictListFollowsVirtualCompletionOrder) {
  ASrptOptions o;
  o.backfill = false;
  const auto r = run_asrpt(cluster(1, 4), kHand, o, oracle());
  EXPECT_DOUBLE_EQ(r.start[2], 3.5);
  EXPECT_DOUBLE_EQ(r.finish[2], 8.5);
  EXPECT_DOUBLE_EQ(r.start[1], 8.5);
  EXPECT_DOUBLE_EQ(r.finish[1], 18.5);
  EXPECT_DOUBLE_EQ(r.start[0], 107.5);
  EXPECT_DOUBLE_EQ(r.finish[0], 207.5);
}

TEST(ASrpt, EagerStartsVirtualJobsOnIdleGpus) {
  // Ours: J0 starts at once on the idle cluster; J2 and J1 wait for it (no preemption).
  ASrptOptions o;
  o.eager = true;
  const auto r = run_asrpt(cluster(1, 4), kHand, o, oracle());
  EXPECT_DOUBLE_EQ(r.start[0], 0);
  EXPECT_DOUBLE_EQ(r.finish[0], 100);
  EXPECT_DOUBLE_EQ(r.start[2], 100);
  EXPECT_DOUBLE_EQ(r.start[1], 100);
  EXPECT_DOUBLE_EQ(r.finish[1], 110);
}

TEST(ASrpt, EasyBackfillRespectsTheHeadsReservation) {
  // 4 GPUs, 1 s per iteration. R (0 s, 2 GPUs, 40 it, q 20) is virtually done at 20 and runs 20-60.
  // H (20 s, 4 GPUs, 10 it, q 10) is virtually done at 30 and blocks: its reservation is R's end, 60.
  // S1 (30 s, 1 GPU, 10 it, q 2.5) is listed at 32.5 and ends by 42.5 <= 60: backfilled at once.
  // S2 (30 s, 2 GPUs, 50 it, q 25) is listed at 57.5; it would end after 60 and the head needs every GPU,
  // so it waits: H 60-70, then S2 70-120.
  const std::vector<std::string> rows = {"R,0,2,40,1000", "H,20,4,10,1000", "S1,30,1,10,1000", "S2,30,2,50,1000"};
  ASrptOptions o;
  auto r = run_asrpt(cluster(1, 4), rows, o, oracle());
  EXPECT_DOUBLE_EQ(r.start[0], 20);
  EXPECT_DOUBLE_EQ(r.start[1], 60);
  EXPECT_DOUBLE_EQ(r.start[2], 32.5);
  EXPECT_DOUBLE_EQ(r.start[3], 70);
  // Strict order: S1 waits behind H.
  o.backfill = false;
  r = run_asrpt(cluster(1, 4), rows, o, oracle());
  EXPECT_DOUBLE_EQ(r.start[1], 60);
  EXPECT_DOUBLE_EQ(r.start[2], 70);
  EXPECT_DOUBLE_EQ(r.start[3], 70);
}

TEST(ASrpt, PreemptiveVariantRunsTheLeastRemainingWork) {
  // A-SRPT-P: J0 runs alone from 0; at 1 J1 and J2 arrive with smaller predicted work n (N^ - e) alpha / M
  // (5 and 2.5 against J0's 99): they take the cluster (J0 preempted), J2 and J1 run side by side 1-6 and 1-11, and J0 restarts
  // at 11 with its 99 iterations left (zero restart overhead): ends at 110.
  ASrptOptions o;
  o.preemptive = true;
  const auto r = run_asrpt(cluster(1, 4), kHand, o, oracle());
  EXPECT_DOUBLE_EQ(r.start[1], 1);
  EXPECT_DOUBLE_EQ(r.start[2], 1);
  EXPECT_DOUBLE_EQ(r.finish[2], 6);
  EXPECT_DOUBLE_EQ(r.finish[1], 11);
  EXPECT_DOUBLE_EQ(r.finish[0], 110);
}

TEST(ASrpt, NoPredictionUsesAJobThatHasNotFinished) {
  Rng rng(3);
  std::vector<std::string> rows;
  double t = 0;
  for (int i = 0; i < 60; ++i) {
    t += rng.uniform() * 30;
    rows.push_back("J" + std::to_string(i) + "," + std::to_string(t) + "," + std::to_string(1 << rng.below(3)) + "," +
                   std::to_string(20 + rng.below(200)) + ",500");
  }
  for (bool pre : {false, true}) {
    std::set<JobId> finished;
    auto spy = std::make_unique<Spy>(finished);
    const Engine* e = nullptr;
    spy->engine = &e;
    ASrptOptions o;
    o.preemptive = pre;
    run_asrpt(cluster(2, 4), rows, o, std::move(spy), &e);
    EXPECT_EQ(finished.size(), rows.size());
  }
}

TEST(ASrpt, UnknownParametersAreRejected) {
  EXPECT_THROW(make_scheduler("a-srpt:predictor=crystal-ball", 1), InputError);
  EXPECT_THROW(make_scheduler("a-srpt:backfill=maybe", 1), InputError);
  EXPECT_THROW(make_scheduler("a-srpt:typo=1", 1), InputError);
  EXPECT_THROW(make_scheduler("a-srpt+first-fit", 1), InputError);
  EXPECT_NO_THROW(make_scheduler("a-srpt-p:predictor=median;delta=60", 1));
}

}  // namespace
}  // namespace rm::test
