// The one event loop (engine/engine.h, docs/design.md "One event loop"): jobs from a JobFeed (a trace or a
// generator taken one job ahead) and the contract with an execution model that decides.
#include <gtest/gtest.h>

#include <deque>
#include <set>
#include <string>

#include "core/error.h"
#include "policy/registry.h"
#include "test_util.h"

namespace rm {
namespace {

// A generator: job k arrives at k x `gap` seconds; counts how many jobs were taken from it.
class Generator final : public JobFeed {
 public:
  Generator(std::vector<JobSpec> jobs) : jobs_(std::move(jobs)) {}
  const JobSpec* next() override { return taken_ < jobs_.size() ? &jobs_[taken_++] : nullptr; }
  bool known_up_front() const override { return false; }
  std::size_t taken() const { return taken_; }

 private:
  std::vector<JobSpec> jobs_;
  std::size_t taken_ = 0;
};

// A stepping model, recording what the engine asks of it. Each job runs alone for 10 s after it arrives
// (its own instant, 10 s later); `stop_after` ends the run after that many of them.
class Recorder final : public SteppingModel {
 public:
  std::vector<std::string> log;
  int stop_after = 1000;
  std::string name() const override { return "recorder"; }
  bool searches_book() const override { return false; }
  void bind(Cluster& book) override { log.push_back("bind " + std::to_string(book.total_gpus())); }
  void admit(JobState& j) override { log.push_back("admit " + j.spec->name); }
  void begin() override { log.push_back("begin"); }
  void arrive(JobState& j, Time now) override {
    log.push_back("arrive " + j.spec->name + " " + std::to_string(now / kUsPerS));
    ends_.push_back(now + 10 * kUsPerS);
  }
  Time next_event_time() override { return ends_.empty() ? kNever : ends_.front(); }
  void advance_to(Time t) override {
    log.push_back("advance " + std::to_string(t / kUsPerS));
    while (!ended() && !ends_.empty() && ends_.front() <= t) {
      log.push_back("done " + std::to_string(ends_.front() / kUsPerS));
      ends_.pop_front();
      ++done_;
    }
  }
  bool ended() const override { return done_ >= stop_after; }
  void end() override { log.push_back("end"); }

 private:
  std::deque<Time> ends_;
  int done_ = 0;
};

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " | ") + x;
  return s;
}

TEST(EngineLoop, TheEngineStepsAModelThatDecidesInstantByInstant) {
  const auto c = test::cluster(1, 4);
  auto specs = test::jobs(c, {"a,0,1,1000,100", "b,5,1,1000,100", "c,30,1,1000,100"});
  VectorFeed feed(specs);
  auto model = std::make_unique<Recorder>();
  Recorder& m = *model;
  Engine e(c, feed, nullptr, std::move(model));
  e.run();
  // A trace is taken whole before the first instant; the engine moves time to each arrival and each of the model's
  // own instants, and tells the model to advance only to the instant it named (never past an arrival).
  EXPECT_EQ(joined(m.log),
            "bind 4 | admit a | admit b | admit c | begin | arrive a 0 | arrive b 5 | advance 10 | done 10 | "
            "advance 15 | done 15 | arrive c 30 | advance 40 | done 40 | end");
}

TEST(EngineLoop, AGeneratorIsTakenOneJobAheadAndTheModelMayEndTheRun) {
  const auto c = test::cluster(1, 4);
  Generator gen(test::jobs(c, {"a,0,1,1000,100", "b,20,1,1000,100", "c,40,1,1000,100", "d,60,1,1000,100"}));
  auto model = std::make_unique<Recorder>();
  Recorder& m = *model;
  m.stop_after = 2;
  Engine e(c, gen, nullptr, std::move(model));
  e.run();
  // b is taken when a arrives, c when b does; the run ends after the second job's instant, before c arrives.
  EXPECT_EQ(joined(m.log),
            "bind 4 | admit a | begin | arrive a 0 | admit b | advance 10 | done 10 | arrive b 20 | admit c | advance 30 | "
            "done 30 | end");
  EXPECT_EQ(gen.taken(), 3u);
  EXPECT_EQ(e.jobs().size(), 3u);
  EXPECT_EQ(e.jobs()[2].status, JobStatus::Pending);  // taken, never arrived
}

TEST(EngineLoop, AJobLevelRunFromAGeneratorEqualsTheSameTrace) {
  const auto c = test::cluster(1, 4);
  const std::vector<std::string> rows = {"a,0,4,1000,100", "b,10,2,1000,100", "c,20,2,1000,50", "d,20,4,1000,10"};
  auto sched_a = make_scheduler("srsf", 1);
  auto sched_b = make_scheduler("srsf", 1);
  const auto specs = test::jobs(c, rows);
  Engine traced(c, specs, *sched_a, make_rate_model(c));
  traced.run();
  Generator gen(test::jobs(c, rows));
  Engine generated(c, gen, sched_b.get(), make_rate_model(c));
  generated.run();
  ASSERT_EQ(generated.jobs().size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(generated.jobs()[i].first_start, traced.jobs()[i].first_start) << i;
    EXPECT_EQ(generated.jobs()[i].finish, traced.jobs()[i].finish) << i;
  }
  // d (10 s on 4 GPUs, 40 GPU-s) is the least service left when it arrives at 20: srsf runs it at once.
  EXPECT_EQ(to_seconds(traced.jobs()[3].finish), 30);
}

// A trace's feed, by submit time, that counts the specs let go.
class LettingFeed final : public JobFeed {
 public:
  explicit LettingFeed(const std::vector<JobSpec>& jobs) : inner_(jobs) {}
  const JobSpec* next() override { return inner_.next(); }
  bool known_up_front() const override { return true; }
  bool by_submit() const override { return true; }
  void let_go(const JobSpec&) override { ++freed; }
  int freed = 0;

 private:
  VectorFeed inner_;
};

// Each job runs 2 s after it arrives and its view is let go when it ends; `twice` lets the first job's go again.
// Records every view's address.
class Forgetful final : public SteppingModel {
 public:
  bool twice = false;
  std::set<const JobState*> places;
  std::string name() const override { return "forgetful"; }
  bool searches_book() const override { return false; }
  void bind_views(JobViews& v) override { views_ = &v; }
  void arrive(JobState& j, Time now) override {
    places.insert(&j);
    ends_.push_back({now + 2 * kUsPerS, &j});
  }
  Time next_event_time() override { return ends_.empty() ? kNever : ends_.front().first; }
  void advance_to(Time t) override {
    while (!ends_.empty() && ends_.front().first <= t) {
      JobState& v = *ends_.front().second;
      ends_.pop_front();
      v.status = JobStatus::Finished;
      views_->let_go(v);
      if (twice) views_->let_go(v);
    }
  }

 private:
  JobViews* views_ = nullptr;
  std::deque<std::pair<Time, JobState*>> ends_;
};

TEST(EngineLoop, AModelLetsFinishedViewsGoAndLaterJobsTakeTheirPlaces) {
  const auto c = test::cluster(1, 4);
  std::vector<std::string> rows;
  for (int k = 0; k < 10000; ++k) rows.push_back("j" + std::to_string(k) + "," + std::to_string(k) + ",1,1000,100");
  const auto specs = test::jobs(c, rows);
  LettingFeed feed(specs);
  auto model = std::make_unique<Forgetful>();
  Forgetful& m = *model;
  Engine e(c, feed, nullptr, std::move(model));
  e.run();
  // One job a second, each 2 s: taken one ahead of the arrivals, at most four views exist at once.
  EXPECT_EQ(feed.freed, 10000);
  EXPECT_LE(m.places.size(), 4u);
  EXPECT_THROW(e.jobs(), InvariantError);  // the model's result holds the jobs now

  LettingFeed again(specs);
  auto twice = std::make_unique<Forgetful>();
  twice->twice = true;
  Engine e2(c, again, nullptr, std::move(twice));
  EXPECT_THROW(e2.run(), InvariantError);  // a view let go twice
}

TEST(Chunked, DropsAWholeChunkAndKeepsTheOthersInPlace) {
  static int alive = 0;
  struct Counted {
    int v;
    explicit Counted(int x) : v(x) { ++alive; }
    ~Counted() { --alive; }
  };
  constexpr auto n = static_cast<int>(Chunked<Counted>::chunk_size);
  {
    Chunked<Counted> c;
    for (int i = 0; i < 2 * n + 3; ++i) c.emplace_back(i);
    const Counted* kept = &c[n];
    c.drop_chunk(2);  // not full: kept
    EXPECT_EQ(c.dropped_chunks(), 0u);
    c.drop_chunk(0);
    c.drop_chunk(0);  // once
    EXPECT_EQ(c.dropped_chunks(), 1u);
    EXPECT_EQ(alive, n + 3);
    EXPECT_EQ(&c[n], kept);
    EXPECT_EQ(c[2 * n + 2].v, 2 * n + 2);
    EXPECT_EQ(c.size(), static_cast<std::size_t>(2 * n + 3));
  }
  EXPECT_EQ(alive, 0);  // the rest destroyed once each
}

TEST(EngineLoop, RefusesWhatTheLoopCannotRun) {
  const auto c = test::cluster(1, 4);
  auto specs = test::jobs(c, {"a,0,1,1000,100"});
  VectorFeed feed(specs);
  EXPECT_THROW(Engine(c, feed, nullptr, make_rate_model(c)), InvariantError);  // nobody would decide
  auto out_of_order = test::jobs(c, {"a,0,1,1000,100", "b,10,1,1000,100"});
  std::swap(out_of_order[0].submit, out_of_order[1].submit);
  Generator late_first(out_of_order);
  auto sched = make_scheduler("fifo", 1);
  Engine e(c, late_first, sched.get(), make_rate_model(c));
  EXPECT_THROW(e.run(), InvariantError);  // a generator's jobs must come by submit time
}

}  // namespace
}  // namespace rm
