// Elastic jobs on the engine (issue 43 goal 1; docs/elastic.md): a decision grows, shrinks or moves a running
// elastic job, which pays the restart delay and counts it; hand-computed runs through a Python scheduler, the
// engine's refusals (a built-in policy's bug: InvariantError naming job and time), the user's (exit 2), and Optimus's
// invariants on random elastic workloads.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/rng.h"
#include "test_util.h"

namespace rm {
namespace {

const std::string kBin = "ASAN_OPTIONS=detect_leaks=0 " + std::string(RM_BINARY);

// One 4-GPU server; the trace law (each job at its ideal time on the GPUs it asked for, linearly faster or slower
// on more or fewer), a 5-s restart, no start delay: every figure below is by hand.
test::ShellOut sim(const std::string& dir, const std::string& trace, const std::string& py, const std::string& cls,
                   const std::string& out) {
  const std::string cluster = test::write_file(dir, "c.yaml", "servers:\n  - {count: 1, gpus: 4, gpu_mem_gb: 32}\n");
  const std::string t = test::write_file(dir, "t.csv", trace);
  const std::string f = test::write_file(dir, "p.py", py);
  return test::shell(kBin + " simulate --cluster " + cluster + " --trace " + t + " --policy 'py:" + f + ":" + cls +
                     "' --perf-model trace --preempt-overhead 5 --start-delay 0 --out " + out + " -q 2>&1");
}

const char* kPolicies = R"(import ringmaster

class Fill(ringmaster.Policy):
    """The elastic job e takes GPUs 0.. of what the rigid jobs leave; rigid jobs take the top GPUs."""
    def schedule(self, view):
        d = ringmaster.Decisions()
        rigid = [j for j in view.jobs if not j.elastic]
        k = 4 - sum(j.num_gpus for j in rigid)
        top = 4
        for j in view.jobs:
            if j.elastic:
                gpus = [(0, g) for g in range(k)]
                if j.running and j.width != k:
                    d.resize(j, gpus)
                elif j.waiting:
                    d.start(j, gpus)
        for j in rigid:
            top -= j.num_gpus
            if j.waiting:
                d.start(j, [(0, g) for g in range(top, top + j.num_gpus)])
        return d

class Grow(ringmaster.Policy):
    """Starts e on 2 GPUs, grows it to 4 at t=10 s."""
    def schedule(self, view):
        d = ringmaster.Decisions()
        for j in view.waiting:
            d.start(j, [(0, 0), (0, 1)])
        for j in view.running:
            if view.now_s >= 10 and j.width == 2:
                d.resize(j, [(0, g) for g in range(4)])
        if view.now_s < 10:
            d.wake_at(10)
        return d

class Below(ringmaster.Policy):
    def schedule(self, view):
        d = ringmaster.Decisions()
        for j in view.waiting:
            d.start(j, [(0, 0), (0, 1)] if j.elastic else [(0, 2)])
        if view.now_s >= 10:
            d.resize(view.running[0], [(0, 3)])
        else:
            d.wake_at(10)
        return d

class Taken(ringmaster.Policy):
    def schedule(self, view):
        d = ringmaster.Decisions()
        if view.waiting:
            d.start(view.waiting[0], [(0, 0), (0, 1)])
            if len(view.waiting) > 1:
                d.start(view.waiting[1], [(0, 2)])
            return d.wake_at(10)
        e = [j for j in view.running if j.elastic][0]
        return d.resize(e, [(0, 0), (0, 1), (0, 2)])

class Rigid(ringmaster.Policy):
    def schedule(self, view):
        d = ringmaster.Decisions()
        for j in view.waiting:
            d.start(j, [(0, 0), (0, 1)] if j.elastic else [(0, 2)])
        for j in view.running:
            if not j.elastic and view.now_s >= 10:
                d.resize(j, [(0, 2), (0, 3)])
        if view.now_s < 10:
            d.wake_at(10)
        return d
)";

// The row of job `name` in jobs.csv.
std::string row(const std::string& jobs, const std::string& name) {
  const auto at = jobs.find("\n" + name + ",");
  if (at == std::string::npos) return "";
  return jobs.substr(at + 1, jobs.find('\n', at + 1) - at - 1);
}

// Grow: e (asks 2 of [1, 4], 100 s alone on 2) runs 10 s on 2 GPUs (10 % done), restarts on 4 (5 s), then does the
// other 90 s-on-2 in 45 s: finish 60 s, 2 x 10 + 4 x 50 = 220 GPU-seconds, one reallocation, 5 s of restart.
TEST(Elastic, AGrownJobPaysTheRestartAndRunsFasterByHand) {
  const std::string dir = test::temp_dir();
  const auto r = sim(dir, "job_id,submit_s,num_gpus,model,duration_s,gpus_min,gpus_max\ne,0,2,alexnet,100,1,4\n",
                     kPolicies, "Grow", dir + "/out");
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string jobs = test::read_file(dir + "/out/jobs.csv");
  EXPECT_EQ(row(jobs, "e"),
            "e,0.000000,2,alexnet,617.665,0.000000,60.000000,60.000000,0.000000,60.000000,0,finished,100.000000,0.600000,"
            "1,default,0.600000,5.000000,2,4,220.000000,1")
      << jobs;
  const std::string summary = test::read_file(dir + "/out/summary.json");
  EXPECT_NE(summary.find("\"reallocations\": 1"), std::string::npos) << summary;
}

// Fill: e (asks 4 of [2, 4], 100 s on 4) runs alone 20 s (20 %); b (rigid, 2 GPUs, 50 s) arrives at 20 s: e shrinks to
// 2 (restart to 25 s) and b runs 20-70 s; from 25 to 70 s e does 45 s on 2 = 22.5 s on 4; at 70 s it grows back to 4,
// restarts to 75 s and does the last 57.5 s: finish 132.5 s; 4 x 20 + 2 x 50 + 4 x 62.5 = 430 GPU-seconds, 2 reallocations.
TEST(Elastic, AShrinkAdmitsARigidJobAndTheGrowthFollowsItsEndByHand) {
  const std::string dir = test::temp_dir();
  const auto r = sim(dir,
                     "job_id,submit_s,num_gpus,model,duration_s,gpus_min,gpus_max\ne,0,4,alexnet,100,2,4\n"
                     "b,20,2,alexnet,50,,\n",
                     kPolicies, "Fill", dir + "/out");
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string jobs = test::read_file(dir + "/out/jobs.csv");
  EXPECT_NE(row(jobs, "e").find(",0.000000,132.500000,132.500000,0.000000,132.500000,0,finished,"), std::string::npos) << jobs;
  EXPECT_NE(row(jobs, "e").find(",10.000000,2,4,430.000000,2"), std::string::npos) << jobs;
  // b is rigid: its own GPUs x its run time, no reallocation.
  EXPECT_NE(row(jobs, "b").find(",20.000000,70.000000,50.000000,0.000000,50.000000,0,finished,"), std::string::npos) << jobs;
  EXPECT_NE(row(jobs, "b").find(",0.000000,2,2,100.000000,0"), std::string::npos) << jobs;
  // elastic.csv (issue 46): e's three stretches, 4 then 2 then 4 GPUs (restarts inside them); b is rigid, not in it.
  EXPECT_EQ(test::read_file(dir + "/out/elastic.csv"),
            "job_id,start_s,end_s,gpus\ne,0.000000,20.000000,4\ne,20.000000,70.000000,2\ne,70.000000,132.500000,4\n");
  // plot's elastic_gpus figure from it, laid out without overlaps.
  const auto p = test::shell(kBin + " plot " + dir + "/out --only elastic_gpus --format png --check-layout --out " + dir +
                             "/fig 2>&1");
  ASSERT_EQ(p.code, 0) << p.text;
  EXPECT_GT(std::filesystem::file_size(dir + "/fig/elastic_gpus.png"), 10000u);
}

// The user's wrong resizes stop the run: exit 2, the job, the time, nothing written.
TEST(Elastic, WrongResizesFromPythonAreTheUsersErrorNamingJobAndTime) {
  const std::string dir = test::temp_dir();
  const std::string trace = "job_id,submit_s,num_gpus,model,duration_s,gpus_min,gpus_max\ne,0,2,alexnet,100,2,4\n"
                            "r,0,1,alexnet,100,,\n";
  struct Case {
    const char* cls;
    const char* says;
  } cases[] = {
      {"Below", "gave 1 GPUs to elastic job e at t=10 s, outside its range [2, 4]"},
      {"Taken", "gave server 0 GPU 2 to job e at t=10 s, but it is not free"},
      {"Rigid", "a resize of job r at t=10 s, which is rigid"},
  };
  for (const auto& c : cases) {
    const std::string out = dir + "/" + c.cls;
    const auto r = sim(dir, trace, kPolicies, c.cls, out);
    EXPECT_EQ(r.code, 2) << c.cls << ": " << r.text;
    EXPECT_NE(r.text.find(c.says), std::string::npos) << c.cls << ": " << r.text;
    EXPECT_FALSE(std::filesystem::exists(out + "/jobs.csv")) << c.cls;
  }
}

// Bad elastic rows: exit 2 naming the file, line and field.
TEST(Elastic, BadElasticRowsNameFileLineAndField) {
  const std::string dir = test::temp_dir();
  const std::string cluster = test::write_file(dir, "c.yaml", "servers:\n  - {count: 1, gpus: 4, gpu_mem_gb: 32}\n");
  struct Case {
    const char* row;
    const char* says;
  } cases[] = {
      {"e,0,2,alexnet,100,3,4", "t.csv:2:gpus_min: 3 is more than num_gpus 2"},
      {"e,0,2,alexnet,100,0,4", "t.csv:2:gpus_min: must be >= 1"},
      {"e,0,2,alexnet,100,1,1", "t.csv:2:gpus_max: 1 is less than num_gpus 2"},
      {"e,0,8,alexnet,100,8,8", "gpus_min: elastic job e needs at least 8 GPUs, the cluster has 4"},
      {"e,0,8,alexnet,100,2,8", "job e asks for 8 GPUs, the cluster has 4 (an elastic job starts at num_gpus"},
      {"e,0,2,alexnet,100,x,4", "t.csv:2:gpus_min"},
  };
  for (const auto& c : cases) {
    const std::string t =
        test::write_file(dir, "t.csv", std::string("job_id,submit_s,num_gpus,model,duration_s,gpus_min,gpus_max\n") + c.row + "\n");
    const auto r = test::shell(kBin + " simulate --cluster " + cluster + " --trace " + t + " --policy fifo --out " + dir +
                               "/o -q 2>&1");
    EXPECT_EQ(r.code, 2) << c.row << ": " << r.text;
    EXPECT_NE(r.text.find(c.says), std::string::npos) << c.row << ": " << r.text;
  }
}

// A built-in scheduler's wrong reallocation is a bug (InvariantError, exit 3) naming the job and the time.
class BadMoves final : public Scheduler {
 public:
  explicit BadMoves(int kind) : kind_(kind) {}
  std::string name() const override { return "bad"; }
  Decisions schedule(const SchedContext& ctx) override {
    Decisions d;
    std::vector<const JobState*> jobs(ctx.active.begin(), ctx.active.end());
    if (ctx.now == 0) {
      d.start.push_back({jobs[0]->id(), {{0, 0}, {0, 1}}, {}});
      d.start.push_back({jobs[1]->id(), {{0, 2}}, {}});
      d.wake_at = from_seconds(10);
      return d;
    }
    if (kind_ == 0) d.reallocate.push_back({jobs[0]->id(), {{0, 0}}, {}});                  // below its least
    if (kind_ == 1) d.reallocate.push_back({jobs[0]->id(), {{0, 0}, {0, 2}}, {}});          // a GPU job 1 holds
    if (kind_ == 2) d.reallocate.push_back({jobs[1]->id(), {{0, 2}, {0, 3}}, {}});          // a rigid job
    if (kind_ == 3) d.reallocate.push_back({jobs[0]->id(), {{0, 0}, {0, 0}}, {}});          // one GPU twice
    return d;
  }

 private:
  int kind_;
};

TEST(Elastic, ABuiltInPolicysWrongReallocationIsAnInvariantErrorNamingJobAndTime) {
  const auto c = test::cluster(1, 4);
  const char* says[] = {"given 1 GPUs, outside its range [2, 4] at t=10 s", "which is not free (double-booking), at t=10 s",
                        "reallocating rigid job b at t=10 s", "job a given server 0 GPU 0 twice, at t=10 s"};
  for (int kind = 0; kind < 4; ++kind) {
    auto specs = test::jobs(c, {"a,0,2,1000,100", "b,0,1,1000,100"});
    specs[0].gpus_min = 2;
    specs[0].gpus_max = 4;
    BadMoves s(kind);
    Engine e(c, specs, s, make_rate_model(c));
    try {
      e.run();
      ADD_FAILURE() << "kind " << kind << " ran";
    } catch (const InvariantError& x) {
      EXPECT_NE(std::string(x.what()).find(says[kind]), std::string::npos) << kind << ": " << x.what();
    }
  }
}

// n random jobs (test::jobs rows): arrivals up to `gap` s apart, 2^0 .. 2^(width_bits - 1) GPUs, 100 up to 100 +
// `iterations` iterations of 20-220 ms, gradients below 300 MB.
std::vector<std::string> random_rows(std::uint64_t seed, int n, double gap, int width_bits, int iterations) {
  Rng rng(seed);
  std::vector<std::string> rows;
  double t = 0;
  for (int i = 0; i < n; ++i) {
    t += rng.uniform() * gap;
    rows.push_back("J" + std::to_string(i) + "," + std::to_string(t) + "," + std::to_string(1 << rng.below(width_bits)) +
                   "," + std::to_string(100 + rng.below(iterations)) + "," + std::to_string(20 + rng.below(200)) + "," +
                   std::to_string(rng.below(300)));
  }
  return rows;
}

// Optimus on random elastic workloads: every job finishes once, within its range at every start (the engine checks),
// GPU-seconds conserved (the engine checks), and some job ran at another width than it asked for; the same run twice
// is the same run.
TEST(Elastic, OptimusKeepsTheInvariantsOnRandomElasticWorkloads) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const auto c = test::cluster(3, 4, 10, 0.2745);
    const auto rows = random_rows(seed, 60, 30, 3, 3000);
    std::vector<std::vector<Time>> finishes;
    for (int twice = 0; twice < 2; ++twice) {
      auto specs = test::jobs(c, rows);
      for (std::size_t i = 0; i < specs.size(); i += 2) specs[i].gpus_min = 1, specs[i].gpus_max = 8;  // half elastic
      auto sched = make_scheduler("optimus", 7);
      EngineOptions eo;
      eo.preempt_overhead = from_seconds(20);
      Engine e(c, specs, *sched, make_rate_model(c), eo);
      ASSERT_NO_THROW(e.run()) << "seed " << seed;
      int moved = 0;
      std::vector<Time> f;
      for (const auto& j : e.jobs()) {
        EXPECT_EQ(j.status, JobStatus::Finished);
        EXPECT_GE(j.held_min, j.spec->min_gpus());
        EXPECT_LE(j.held_max, j.spec->max_gpus());
        if (!j.spec->elastic()) {
          EXPECT_EQ(j.reallocations, 0);
        }
        moved += j.reallocations;
        f.push_back(j.finish);
      }
      EXPECT_GT(moved, 0) << "seed " << seed;
      finishes.push_back(f);
    }
    EXPECT_EQ(finishes[0], finishes[1]);
  }
}

// The Python example (examples/policies/elastic.py) on Pollux's workload-1 under the measured tables: every job
// finishes, some grew, and the run's figures agree with its own outputs.
TEST(Elastic, ThePythonExampleGrowsJobsOnPolluxsWorkload) {
  const std::string dir = test::temp_dir();
  const std::string ex = std::string(RM_SOURCE_DIR) + "/examples/policies/elastic.py";
  const auto r = test::shell(kBin + " simulate --cluster pollux-64 --trace " + RM_SHARED_DIR +
                             "/traces/pollux/workloads/workload-1.csv --format pollux --perf-model measured:pollux "
                             "--data-dir " + RM_SHARED_DIR + "/traces --policy 'py:file=" + ex + ";class=GrowIdle' --out " +
                             dir + "/o -q 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string jobs = test::read_file(dir + "/o/jobs.csv");
  int rows = 0, grown = 0;
  std::size_t at = jobs.find('\n');
  while (at != std::string::npos && at + 1 < jobs.size()) {
    const std::size_t end = jobs.find('\n', at + 1);
    const std::string line = jobs.substr(at + 1, end - at - 1);
    std::vector<std::string> f;
    for (std::size_t p = 0, q; (q = line.find(',', p)) != std::string::npos || p <= line.size(); p = q + 1) {
      f.push_back(line.substr(p, q == std::string::npos ? std::string::npos : q - p));
      if (q == std::string::npos) break;
    }
    ++rows;
    EXPECT_EQ(f[11], "finished") << line;
    const int asked = std::stoi(f[2]), hi = std::stoi(f[f.size() - 3]);
    grown += hi > asked;
    at = end;
  }
  EXPECT_EQ(rows, 160);
  EXPECT_GT(grown, 0) << jobs;
}


// Pollux's policy on the engine (policy/pollux.cpp) on a mixed workload (half the jobs elastic, the rigid ones up to 8
// GPUs over 4-GPU servers): every job finishes (a rigid job's exact count is found), within its range, the same run
// twice is the same run (the search's random numbers from the seed), and it beats FIFO's mean JCT here.
TEST(Elastic, PolluxOnTheEngineFinishesMixedWorkloadsDeterministically) {
  const auto c = test::cluster(3, 4, 10, 0.2745);
  const auto rows = random_rows(11, 20, 40, 4, 2000);
  std::vector<std::vector<Time>> finishes;
  double mean[2] = {0, 0};
  for (int k = 0; k < 3; ++k) {
    auto specs = test::jobs(c, rows);
    for (std::size_t i = 0; i < specs.size(); i += 2) specs[i].gpus_min = 1, specs[i].gpus_max = 8;
    auto sched = make_scheduler(k < 2 ? "pollux" : "fifo", 5);
    EngineOptions eo;
    eo.preempt_overhead = from_seconds(20);
    Engine e(c, specs, *sched, make_rate_model(c), eo);
    ASSERT_NO_THROW(e.run());
    std::vector<Time> f;
    double sum = 0;
    for (const auto& j : e.jobs()) {
      EXPECT_EQ(j.status, JobStatus::Finished) << j.spec->name;
      EXPECT_GE(j.held_min, j.spec->min_gpus()) << j.spec->name;
      EXPECT_LE(j.held_max, j.spec->max_gpus()) << j.spec->name;
      f.push_back(j.finish);
      sum += to_seconds(j.finish - j.spec->submit);
    }
    if (k < 2) finishes.push_back(f);
    mean[k < 2 ? 0 : 1] = sum / static_cast<double>(e.jobs().size());
  }
  EXPECT_EQ(finishes[0], finishes[1]);
  EXPECT_LT(mean[0], mean[1]) << "pollux " << mean[0] << " s, fifo " << mean[1] << " s";
}

// A lone elastic job (asks 1 of [1, 4]) on a 4-GPU server: every extra GPU shortens it, so Optimus gives it all 4 at
// the first round and keeps them (no reallocation), and so does Pollux's search; its jobs.csv range says so.
TEST(Elastic, OptimusAndPolluxGiveALoneElasticJobTheWholeServer) {
  const std::string dir = test::temp_dir();
  const std::string cluster = test::write_file(dir, "c.yaml", "servers:\n  - {count: 1, gpus: 4, gpu_mem_gb: 32}\n");
  const std::string t = test::write_file(dir, "t.csv",
                                         "job_id,submit_s,num_gpus,model,iterations,gpus_min,gpus_max\ne,0,1,resnet50,2000,1,4\n");
  for (const std::string policy : {"optimus", "pollux"}) {
    const auto r = test::shell(kBin + " simulate --cluster " + cluster + " --trace " + t + " --policy " + policy +
                               " --start-delay 0 --out " + dir + "/" + policy + " -q 2>&1");
    ASSERT_EQ(r.code, 0) << policy << ": " << r.text;
    const std::string jobs = test::read_file(dir + "/" + policy + "/jobs.csv");
    EXPECT_NE(row(jobs, "e").find(",4,4,"), std::string::npos) << policy << ": " << jobs;
    if (policy == "optimus") {
      EXPECT_EQ(row(jobs, "e").back(), '0') << jobs;
    }
  }
  // Two GPU types: Pollux's policy does not place across types (Sia's does): exit 2, said.
  const std::string two = test::write_file(dir, "two.yaml", "servers:\n  - {count: 1, gpus: 4, gpu_type: t4, gpu_mem_gb: 16}\n"
                                                            "  - {count: 1, gpus: 4, gpu_type: v100, gpu_mem_gb: 32}\n");
  const auto r2 = test::shell(kBin + " simulate --cluster " + two + " --trace " + t + " --policy pollux --out " + dir + "/o2 -q 2>&1");
  EXPECT_EQ(r2.code, 2) << r2.text;
  EXPECT_NE(r2.text.find("on one type only"), std::string::npos) << r2.text;
}


// serve refuses an elastic policy at start (a cluster manager's jobs are rigid), exit 2, saying why.
TEST(Elastic, ServeRefusesElasticPolicies) {
  const std::string d = test::temp_dir();
  for (const char* p : {"optimus", "pollux"}) {
    std::filesystem::remove_all(d + "/s");
    const auto r = test::shell(std::string(RM_BINARY) + " serve --backend fake --partition rm --policy " + p +
                               " --state " + d + "/s --once 2>&1");
    EXPECT_EQ(r.code, 2) << p << ": " << r.text;
    EXPECT_NE(r.text.find("a cluster manager's jobs are rigid"), std::string::npos) << p << ": " << r.text;
  }
}

}  // namespace
}  // namespace rm
