// The Backend seam (live/backend.h) with the in-process fake cluster: the generic live side (LiveScheduler,
// run_live) scheduling scripted jobs on a scripted clock, hand-computed; retries while the cluster does not
// answer; recovery from the state file; `serve` and `replay` choosing the backend by name.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "run/simulation.h"
#include "live/backends.h"
#include "live/fake/fake_backend.h"
#include "live/live_scheduler.h"
#include "test_util.h"

namespace rm::live {
namespace {

struct FakeRun {
  std::vector<std::string> lines;
  std::function<void(const std::string&)> log = [this](const std::string& s) { lines.push_back(s); };
  std::unique_ptr<FakeBackend> b;
  std::unique_ptr<LiveScheduler> s;
  double t = 999;  // the scripted clock: one second per call
  Clock clock = [this] { return t++; };

  explicit FakeRun(const std::string& policy, const std::string& state = "", bool rate_law = false) {
    ServeOptions o;
    o.policy = policy;
    o.partition = "rm";
    o.state_dir = state;
    o.log = log;
    b = std::make_unique<FakeBackend>(o, clock, rate_law);
    s = std::make_unique<LiveScheduler>(*b, policy, 1, log);
    s->connect(1000);
  }
  int loop() {
    LoopOptions lo;
    lo.interval_s = 0.001;
    lo.exit_when_done = true;
    lo.out = test::temp_dir() + "/out";
    return run_live(*s, lo, log, clock);
  }
  const LiveJob& job(const std::string& name) const {
    for (std::size_t i = 0; i < b->jobs().size(); ++i)
      if (b->views()[i].spec->name == name) return b->jobs()[i];
    throw std::runtime_error("no job " + name);
  }
  bool logged(const std::string& s) const {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(s) != std::string::npos; });
  }
};

TEST(FakeBackend, FifoOnTinyHandComputed) {
  // tiny: 4 servers x 4 GPUs. A takes all 16 GPUs for 10 s from t=1000; B (4 GPUs, 5 s) and C (4 GPUs, 3 s) wait
  // behind it, both start when it ends at 1010 and end at 1015 and 1013.
  FakeRun r("fifo");
  r.b->add("rm:name=A;duration=10", 16, 1000);
  r.b->add("rm:name=B;duration=5", 4, 1001);
  r.b->add("rm:name=C;duration=3", 4, 1002);
  EXPECT_EQ(r.loop(), 0);
  EXPECT_DOUBLE_EQ(r.job("A").first_start_s, 1000);
  EXPECT_NEAR(r.job("A").end_s, 1010, 1e-9);
  EXPECT_DOUBLE_EQ(r.job("B").first_start_s, 1010);
  EXPECT_NEAR(r.job("B").end_s, 1015, 1e-9);
  EXPECT_DOUBLE_EQ(r.job("C").first_start_s, 1010);
  EXPECT_NEAR(r.job("C").end_s, 1013, 1e-9);
  for (const char* j : {"A", "B", "C"}) EXPECT_EQ(r.job(j).manager_state, "COMPLETED") << j;
  EXPECT_TRUE(std::filesystem::exists(test::temp_dir() + "/out/jobs.csv"));
  // The documented columns (docs/slurm.md) keep their names whatever the core calls them (issue 42).
  const std::string runs = test::read_file(test::temp_dir() + "/out/runs.csv");
  EXPECT_EQ(runs.substr(0, runs.find('\n')), "slurm_id,end_reason,start_s,end_s,node,gpus,job_id,released_s,noticed_s");
}

// Issue 48: the outputs of a replay hold its own jobs; the others are counted as foreign_jobs.
TEST(FakeBackend, OutputsLeaveForeignJobsOutAndCountThem) {
  FakeRun r("fifo");
  r.b->add("rm:name=A;duration=10", 16, 1000);
  r.b->add("rm:name=X;duration=3", 4, 1001);  // not the replay's
  r.b->add("rm:name=B;duration=5", 4, 1002);
  EXPECT_EQ(r.loop(), 0);
  const std::int64_t x = r.job("X").manager_id;
  const std::string d = test::temp_dir() + "/own";
  std::filesystem::remove_all(d);
  const OutputScope scope{[x](const LiveJob& l) { return l.manager_id != x; }, {}};
  r.s->write_outputs(d, &scope);
  const std::string jobs = test::read_file(d + "/jobs.csv"), runs = test::read_file(d + "/runs.csv");
  EXPECT_EQ(std::count(jobs.begin(), jobs.end(), '\n'), 3) << jobs;  // header, A, B
  EXPECT_EQ(jobs.find("\nX,"), std::string::npos) << jobs;
  EXPECT_EQ(runs.find(",X,"), std::string::npos) << runs;
  EXPECT_NE(runs.find(",A,"), std::string::npos) << runs;
  EXPECT_NE(test::read_file(d + "/summary.json").find("\"foreign_jobs\": 1"), std::string::npos);
  // Without a filter (serve) every adopted job is the run's and no foreign_jobs key is written.
  EXPECT_EQ(test::read_file(test::temp_dir() + "/out/summary.json").find("foreign_jobs"), std::string::npos);
}

TEST(FakeBackend, SrsfPreemptsAndTheWorkIsConserved) {
  // A (16 GPUs, 100 s) runs from 1000; B (16 GPUs, 10 s) arrives at 1005 with less remaining service: A is
  // preempted, B runs 1005-1015, A resumes at 1015 with 95 s left and ends at 1110.
  FakeRun r("srsf");
  r.b->add("rm:name=A;duration=100", 16, 1000);
  r.b->add("rm:name=B;duration=10", 16, 1005);
  EXPECT_EQ(r.loop(), 0);
  EXPECT_DOUBLE_EQ(r.job("B").first_start_s, 1005);
  EXPECT_NEAR(r.job("B").end_s, 1015, 1e-9);
  EXPECT_EQ(r.job("A").preemptions, 1);
  ASSERT_EQ(r.job("A").runs.size(), 2u);
  EXPECT_DOUBLE_EQ(r.job("A").runs[0].end_s, 1005);
  EXPECT_DOUBLE_EQ(r.job("A").runs[1].start_s, 1015);
  EXPECT_NEAR(r.job("A").end_s, 1110, 1e-9);
  EXPECT_NEAR(r.job("A").run_s, 100, 1e-9);
}

TEST(FakeBackend, AFalseShortHintIsReKeyedOnceTheJobRunsPastTwiceIt) {
  // Issue 45: A hints 5 s but runs 200 s on all 16 GPUs from 1000. Past max(2 x 5, 5 + 60) = 65 s of service it
  // is re-keyed from its run time (remaining ~ its 65+ s so far), so B (16 GPUs, 10 s) arriving at 1100 preempts
  // it under SRSF; trusting the hint, A's remaining would be 0 and B would wait until 1200.
  FakeRun r("srsf");
  r.b->add("rm:name=A;duration=5", 16, 1000, 200);
  r.b->add("rm:name=B;duration=10", 16, 1100);
  EXPECT_EQ(r.loop(), 0);
  EXPECT_TRUE(r.logged("past twice its hinted 5 s; its remaining time is now estimated from its run time"));
  EXPECT_EQ(r.job("A").preemptions, 1);
  EXPECT_NEAR(r.job("B").first_start_s, 1100, 2);
  EXPECT_NEAR(r.job("A").run_s, 200, 1e-9);  // its work is conserved across the preemption
  EXPECT_NE(r.b->metrics_text(true).find("ringmaster_hint_overruns_total 1\n"), std::string::npos);
}

TEST(FakeBackend, TheLoopRetriesWhileTheClusterDoesNotAnswer) {
  FakeRun r("fifo");
  r.b->add("rm:name=A;duration=4", 2, 1000);
  r.b->fail_next(2);  // the observations at 1000 and 1001 fail; A is adopted and started at 1002
  EXPECT_EQ(r.loop(), 0);
  EXPECT_DOUBLE_EQ(r.job("A").first_start_s, 1002);
  EXPECT_NEAR(r.job("A").end_s, 1006, 1e-9);
  EXPECT_EQ(std::count_if(r.lines.begin(), r.lines.end(),
                          [](const std::string& l) { return l.find("unreachable, retrying") != std::string::npos; }),
            1);
  EXPECT_TRUE(r.logged("the fake cluster answers again"));
}

TEST(FakeBackend, ARestartRecoversTheJobsFromTheStateFile) {
  const std::string state = test::temp_dir() + "/state";
  std::filesystem::remove_all(state);
  {
    FakeRun r("fifo", state);
    r.b->add("rm:name=A;duration=10", 4, 1000);
    r.s->step(1000);
    r.s->step(1001);
  }
  FakeRun again("fifo", state);  // a new process: A is running since 1000 and ends at 1010
  EXPECT_TRUE(again.logged("1 jobs from the state file"));
  EXPECT_EQ(again.s->step(1005), 1);
  EXPECT_EQ(again.s->step(1010), 0);
  EXPECT_NEAR(again.job("A").end_s, 1010, 1e-9);
}

TEST(FakeBackend, EndedJobsMoveToTheJournalAndARestartReadsBoth) {
  // Issue 45: state.json lists the live jobs only; each ended job is appended once to ended.jsonl, and a restart
  // reads both back by id (a state file that grew with history made every step slower).
  const std::string state = test::temp_dir() + "/journal";
  std::filesystem::remove_all(state);
  {
    FakeRun r("fifo", state);
    r.b->add("rm:name=A;duration=2", 4, 1000);
    r.b->add("rm:name=B;duration=3", 4, 1000);
    r.b->add("rm:name=C;duration=50", 4, 1000);
    for (double t = 1000; t <= 1004; ++t) r.s->step(t);
  }
  const auto js = nlohmann::json::parse(test::read_file(state + "/state.json"));
  ASSERT_EQ(js.at("jobs").size(), 1u);
  EXPECT_EQ(js.at("jobs")[0].at("name"), "C");
  EXPECT_EQ(js.at("ended_jobs").at("count"), 2);
  const std::string journal = test::read_file(state + "/ended.jsonl");
  EXPECT_EQ(std::count(journal.begin(), journal.end(), '\n'), 2);
  FakeRun again("fifo", state);
  ASSERT_EQ(again.b->jobs().size(), 3u);
  EXPECT_EQ(again.job("A").status, "finished");
  EXPECT_NEAR(again.job("B").end_s, 1003, 1e-9);
  EXPECT_EQ(again.job("C").status, "running");
  again.s->step(1005);  // nothing ends: the journal is not appended twice
  EXPECT_EQ(test::read_file(state + "/ended.jsonl"), journal);
}

// The sim backend runs the rate law of the simulator: two 6-GPU jobs on tiny (4 x 4 GPUs) placed first-fit split
// over servers 0-1 and 1-2 share server 1's NIC, and end when `simulate` says they end.
TEST(FakeBackend, TheSimBackendFollowsTheSimulatorsRateLaw) {
  FakeRun r("fifo+first-fit", "", true);
  EXPECT_EQ(r.b->name(), "sim");
  r.b->add("rm:name=a;model=resnet50;duration=100", 6, 1000);
  r.b->add("rm:name=b;model=resnet50;duration=100", 6, 1000);
  EXPECT_EQ(r.loop(), 0);
  SimConfig cfg;
  cfg.cluster = "tiny";
  cfg.trace = test::write_file(test::temp_dir(), "two.csv",
                               "job_id,submit_s,num_gpus,model,duration_s\na,0,6,resnet50,100\nb,0,6,resnet50,100\n");
  cfg.policy = "fifo+first-fit";
  const auto sim = simulate(cfg);
  for (const char* j : {"a", "b"}) {
    double finish = -1;
    for (const auto& rec : sim->record.jobs)
      if (rec.spec->name == j) finish = to_seconds(rec.finish);
    EXPECT_GT(finish, 100.5) << j;  // slowed by the shared NIC
    EXPECT_NEAR(r.job(j).end_s - 1000, finish, 1e-5) << j;
  }
}

TEST(Backends, ServeAndReplayPickTheBackendByName) {
  const std::string d = test::temp_dir();
  std::filesystem::remove_all(d + "/s");
  const std::string bin = RM_BINARY;
  auto bad = test::shell(bin + " serve --backend slrum --partition rm --state " + d + "/s --once");
  EXPECT_EQ(bad.code, 2) << bad.text;
  EXPECT_NE(bad.text.find("did you mean 'slurm'"), std::string::npos) << bad.text;
  auto once = test::shell(bin + " serve --backend fake --partition rm --state " + d + "/s --once");
  EXPECT_EQ(once.code, 0) << once.text;
  EXPECT_TRUE(std::filesystem::exists(d + "/s/jobs.csv"));
  // A trace on the fake cluster at 100x: every job runs and ends (the payloads are not started).
  const std::string trace = test::write_file(d, "t.csv",
                                             "job_id,submit_s,num_gpus,model,duration_s\na,0,4,resnet50,100\n"
                                             "b,20,16,resnet50,200\nc,40,2,resnet50,50\n");
  auto rep = test::shell(bin + " replay --backend fake --trace " + trace + " --time-scale 100 --policy srsf "
                         "--partition rm --state " + d + "/rs --interval 20ms --timeout 60 --out " + d + "/rep");
  ASSERT_EQ(rep.code, 0) << rep.text;
  const std::string jobs = test::read_file(d + "/rep/jobs.csv");
  for (const char* j : {"\na,", "\nb,", "\nc,"}) EXPECT_NE(jobs.find(j), std::string::npos) << jobs;
  EXPECT_EQ(jobs.find("unfinished"), std::string::npos) << jobs;
}

// Issue 48 goal 2: a trace job no node of the partition can take is refused, not submitted, and ends the replay's
// account of it: the replay terminates and jobs.csv says `unschedulable`.
TEST(Backends, ReplayCountsAnImpossibleJobUnschedulableAndEnds) {
  const std::string d = test::temp_dir();
  std::filesystem::remove_all(d + "/imp");
  std::filesystem::remove_all(d + "/is");
  const std::string trace = test::write_file(d, "imp.csv",
                                             "job_id,submit_s,num_gpus,model,duration_s\na,0,4,resnet50,100\n"
                                             "huge,10,64,resnet50,100\nc,20,2,resnet50,50\n");
  auto rep = test::shell(std::string(RM_BINARY) + " replay --backend fake --trace " + trace +
                         " --time-scale 100 --policy fifo --partition rm --state " + d + "/is --interval 20ms "
                         "--timeout 60 --out " + d + "/imp");
  ASSERT_EQ(rep.code, 0) << rep.text;
  EXPECT_NE(rep.text.find("job huge cannot run on"), std::string::npos) << rep.text;
  const std::string jobs = test::read_file(d + "/imp/jobs.csv");
  EXPECT_EQ(std::count(jobs.begin(), jobs.end(), '\n'), 4) << jobs;  // header, a, huge, c
  const auto row = jobs.find("\nhuge,");
  ASSERT_NE(row, std::string::npos) << jobs;
  EXPECT_NE(jobs.substr(row, jobs.find('\n', row + 1) - row).find("unschedulable"), std::string::npos) << jobs;
  EXPECT_NE(test::read_file(d + "/imp/summary.json").find("\"foreign_jobs\": 0"), std::string::npos);
}

}  // namespace
}  // namespace rm::live
