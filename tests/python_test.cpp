// Python policies and the Python module (issue 28; docs/python.md): the examples give the C++ orders' jobs.csv byte
// for byte, errors in user code stop the run with the traceback (exit 2, nothing written), and the module's
// simulate() returns the CLI's results as DataFrames with the CLI's validation.
#include <gtest/gtest.h>

#include <filesystem>

#include "test_util.h"

namespace rm {
namespace {

// The interpreter never finalizes inside the binary (the policies' objects live to the end): no leak report for it.
const std::string kBin = "ASAN_OPTIONS=detect_leaks=0 " + std::string(RM_BINARY);

std::string examples() { return std::filesystem::path(RM_SOURCE_DIR) / "examples" / "policies"; }

test::ShellOut sim(const std::string& policy, const std::string& out, const std::string& extra = "") {
  return test::shell(kBin + " simulate --cluster tiny --trace builtin:demo --policy '" + policy + "' --out " + out +
                     " --quiet " + extra + " 2>&1");
}

TEST(PythonPolicies, ExamplesGiveTheCppOrdersJobsCsvByteForByte) {
  const std::string dir = test::temp_dir();
  const std::pair<const char*, const char*> cases[] = {
      {"fifo", "py:file=" "%s/fifo.py;class=Fifo"},
      {"srsf", "py:file=" "%s/srsf.py;class=Srsf"},
      {"tiresias", "py:file=" "%s/tiresias.py;class=TwoDLas+consolidated"},
      {"srsf+first-fit", "py:%s/srsf.py:Srsf+first-fit"},  // the short form, composed with a C++ placement
      {"2d-las:thresholds=500,5000", "py:file=%s/tiresias.py;class=TwoDLas;thresholds=500,5000"},  // keywords
  };
  int i = 0;
  for (const auto& [cpp, py] : cases) {
    std::string p = py;
    p.replace(p.find("%s"), 2, examples());
    const std::string a = dir + "/a" + std::to_string(i), b = dir + "/b" + std::to_string(i);
    ++i;
    const auto ra = sim(p, a), rb = sim(cpp, b);
    ASSERT_EQ(ra.code, 0) << ra.text;
    ASSERT_EQ(rb.code, 0) << rb.text;
    EXPECT_EQ(test::read_file(a + "/jobs.csv"), test::read_file(b + "/jobs.csv")) << cpp;
  }
}

TEST(PythonPolicies, AnExceptionStopsTheRunWithItsTracebackJobAndTime) {
  const std::string dir = test::temp_dir();
  const std::string file = test::write_file(dir, "mine.py", R"(import ringmaster

class Boom(ringmaster.Policy):
    def key(self, job):
        if job.now_s > 100:
            raise RuntimeError("no key for " + job.name)
        return job.arrival_s

class Text(ringmaster.Policy):
    def key(self, job):
        return "soon"

class Rk(ringmaster.Policy):
    running_key = "sometimes"
    def key(self, job):
        return 0.0

class NoKey:
    pass
)");
  auto r = sim("py:file=" + file + ";class=Boom", dir + "/boom");
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("Boom.key: raised for job j01 at t=250 s"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("Traceback (most recent call last)"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("RuntimeError: no key for j01"), std::string::npos) << r.text;
  EXPECT_FALSE(std::filesystem::exists(dir + "/boom/jobs.csv"));
  r = sim("py:" + file + ":Text", dir + "/text");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("Text.key: must return a number, returned str for job j00"), std::string::npos) << r.text;
  r = sim("py:" + file + ":Rk", dir + "/rk");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("Rk.running_key: must be 'moves', 'falls' or 'steps'"), std::string::npos) << r.text;
  r = sim("py:" + file + ":NoKey", dir + "/nokey");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("NoKey: is not a policy: it defines none of key"), std::string::npos) << r.text;
  r = sim("py:" + file + ":Nope", dir + "/nope");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("no class Nope in it (it defines: Boom, Text, Rk, NoKey)"), std::string::npos) << r.text;
  r = sim("py:" + dir + "/missing.py:Boom", dir + "/missing");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("missing.py:file: no such Python file"), std::string::npos) << r.text;
  r = sim("py:file=" + file, dir + "/noclass");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("needs file=PATH and class=NAME"), std::string::npos) << r.text;
  // A syntax error in the file: the traceback names its line.
  const std::string broken = test::write_file(dir, "broken.py", "class A:\n    def key(self, job)\n        return 1\n");
  r = sim("py:" + broken + ":A", dir + "/broken");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("SyntaxError"), std::string::npos) << r.text;
}

// The other extension points: a placement (filter/score), an allocation and a whole scheduler in Python give the C++
// plugins' jobs.csv byte for byte.
TEST(PythonPolicies, PlacementAllocationAndSchedulerExamplesGiveTheCppJobsCsv) {
  const std::string dir = test::temp_dir();
  const std::string ex = examples();
  const struct {
    std::string cpp, py, extra;
  } cases[] = {
      {"fifo+first-fit", "fifo+py:file=" + ex + "/first_fit.py;class=FirstFit", ""},
      {"srsf+first-fit", "py:" + ex + "/srsf.py:Srsf+py:" + ex + "/first_fit.py:FirstFit", ""},  // both in Python
      {"fifo+first-fit", "py:file=" + ex + "/fifo_scheduler.py;class=FifoFirstFit", ""},
      {"fifo+greedy", "fifo+py:file=" + ex + "/greedy.py;class=Greedy", "--cpu-ratio 3"},
      {"srsf+greedy", "srsf+py:file=" + ex + "/greedy.py;class=Greedy", "--cpu-ratio 3"},
  };
  int i = 0;
  for (const auto& c : cases) {
    const std::string a = dir + "/a" + std::to_string(i), b = dir + "/b" + std::to_string(i);
    ++i;
    const auto ra = sim(c.py, a, c.extra), rb = sim(c.cpp, b, c.extra);
    ASSERT_EQ(ra.code, 0) << ra.text;
    ASSERT_EQ(rb.code, 0) << rb.text;
    EXPECT_EQ(test::read_file(a + "/jobs.csv"), test::read_file(b + "/jobs.csv")) << c.py;
  }
  // A plain function in a file is an order's key; its attributes are the flags.
  const std::string fn = test::write_file(dir, "fn.py", "def left(job):\n    return job.remaining_time_s * job.num_gpus\n"
                                                        "left.preemptive = True\n");
  const auto rf = sim("py:" + fn + ":left", dir + "/fn");
  ASSERT_EQ(rf.code, 0) << rf.text;
  const auto rs = sim("srsf", dir + "/srsf");
  ASSERT_EQ(rs.code, 0) << rs.text;
  EXPECT_EQ(test::read_file(dir + "/fn/jobs.csv"), test::read_file(dir + "/srsf/jobs.csv"));
  // A placement that scores does change the answer: best-fit packs where first-fit splits.
  const auto rb = sim("fifo+py:file=" + ex + "/first_fit.py;class=BestFit", dir + "/best");
  ASSERT_EQ(rb.code, 0) << rb.text;
  EXPECT_NE(test::read_file(dir + "/best/jobs.csv"), test::read_file(dir + "/b0/jobs.csv"));
}

// A whole scheduler by hand on one 1-GPU server: preemption and wake-ups do what the decisions say.
TEST(PythonPolicies, AWholeSchedulerPreemptsAndWakesAsItDecides) {
  const std::string dir = test::temp_dir();
  const std::string cluster = test::write_file(dir, "c.yaml", "servers:\n  - {count: 1, gpus: 1, gpu_mem_gb: 32}\n");
  const std::string trace =
      test::write_file(dir, "t.csv", "job_id,submit_s,num_gpus,model,duration_s\na,0,1,alexnet,100\nb,10,1,alexnet,20\n");
  const std::string file = test::write_file(dir, "s.py", R"(import ringmaster

class Shortest(ringmaster.Policy):
    """Preemptive shortest-remaining-time on one GPU, nothing before t=5 s."""
    def schedule(self, view):
        d = ringmaster.Decisions()
        if not view.jobs:
            return None
        if view.now_s < 5:
            return d.wake_at(5)
        jobs = sorted(view.jobs, key=lambda j: (j.remaining_time_s, j.id))
        best = jobs[0]
        if best.running:
            return d
        for j in view.running:
            d.preempt(j)
        return d.start(best.id, [(0, 0)])
)");
  const std::string out = dir + "/out";
  const auto r = test::shell(kBin + " simulate --cluster " + cluster + " --trace " + trace + " --policy 'py:" + file +
                             ":Shortest' --preempt-overhead 0 --out " + out + " -q 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string jobs = test::read_file(out + "/jobs.csv");
  // a: starts at 5 (the wake-up), stopped at 10 for b (20 s < 95 s left), resumes at 30, ends at 125; b: 10 to 30.
  EXPECT_NE(jobs.find("a,0.000000,1,alexnet,617.665,5.000000,125.000000,125.000000,25.000000,100.000000,1,finished"),
            std::string::npos) << jobs;
  EXPECT_NE(jobs.find("b,10.000000,1,alexnet,123.533,10.000000,30.000000,20.000000,0.000000,20.000000,0,finished"),
            std::string::npos) << jobs;
}

// Wrong decisions stop the run: exit 2, the method, the job and the time, nothing written.
TEST(PythonPolicies, WrongDecisionsStopTheRunNamingJobAndTime) {
  const std::string dir = test::temp_dir();
  const std::string cluster =
      test::write_file(dir, "c.yaml", "servers:\n  - {count: 1, gpus: 2, gpu_mem_gb: 32, cpus: 8, dram_gb: 100}\n");
  const std::string trace =
      test::write_file(dir, "t.csv", "job_id,submit_s,num_gpus,model,duration_s\na,0,1,alexnet,100\nb,0,1,alexnet,100\n");
  const std::string file = test::write_file(dir, "bad.py", R"(import ringmaster

class Twice(ringmaster.Policy):
    def schedule(self, view):
        return {"start": [(j, [(0, 0)]) for j in view.waiting]}

class Again(ringmaster.Policy):
    def schedule(self, view):
        if view.running:
            return {"start": [(view.running[0], view.running[0].gpus)]}
        return {"start": [(view.waiting[0], [(0, 0)])], "wake_at_s": view.now_s + 1}

class StopWaiting(ringmaster.Policy):
    def schedule(self, view):
        return ringmaster.Decisions().preempt(view.waiting[0])

class Count(ringmaster.Policy):
    def schedule(self, view):
        return ringmaster.Decisions().start(view.waiting[0], [(0, 0), (0, 1)])

class NoGpu(ringmaster.Policy):
    def schedule(self, view):
        return ringmaster.Decisions().start(view.waiting[0], [(0, 7)])

class Past(ringmaster.Policy):
    def schedule(self, view):
        return ringmaster.Decisions().wake_at(view.now_s)

class Number(ringmaster.Policy):
    def schedule(self, view):
        return 42

class Idle(ringmaster.Policy):
    def schedule(self, view):
        return None

class PlaceTwice(ringmaster.Policy):
    def place(self, job, servers):
        return [(0, 1), (0, 1)]

class Score(ringmaster.Policy):
    def score(self, job, server):
        raise RuntimeError("no score for " + job.name)

class Never(ringmaster.Policy):
    def filter(self, job, server):
        return False

class Greedy(ringmaster.Policy):
    def allocate(self, job, servers):
        return [(s["server"].free_cpus + 1, 0) for s in servers]

class Huge(ringmaster.Policy):
    def key(self, job):
        return 10**400

class NanKey(ringmaster.Policy):
    def key(self, job):
        return float("nan")

class FlagText(ringmaster.Policy):
    preemptive = "yes"
    def key(self, job):
        return job.submit_s

class NoneAlloc(ringmaster.Policy):
    may_refuse = False
    def allocate(self, job, servers):
        return None

class Attained(ringmaster.Policy):
    def key(self, job):
        return job.first_time_attained(float("inf"))
)");
  const struct {
    std::string policy, needle;
  } cases[] = {
      {"py:%:Twice", "Twice.schedule: a GPU given twice: server 0 GPU 0 to job a and to job b at t=0 s"},
      {"py:%:Again", "Again.schedule: a decision for job a at t=1 s, which is not waiting (it is running)"},
      {"py:%:StopWaiting", "StopWaiting.schedule: a decision for job a at t=0 s, which is not running"},
      {"py:%:Count", "Count.schedule: gave 2 GPUs to job a at t=0 s, which asks for 1"},
      {"py:%:NoGpu", "NoGpu.schedule: gave server 0 GPU 7 to job a at t=0 s: no such GPU"},
      {"py:%:Past", "Past.schedule: wake_at_s = 0 is not after now at t=0 s"},
      {"py:%:Number", "Number.schedule: must return ringmaster.Decisions, a dict or None, returned int at t=0 s"},
      {"py:%:Idle", "job a never finished: the Python policy left it waiting"},
      {"fifo+py:%:PlaceTwice", "PlaceTwice.place: a GPU given twice: server 0 GPU 1 to job a at t=0 s"},
      {"fifo+py:%:Score", "Score.score: raised for job a at t=0 s:\nTraceback"},
      {"fifo+py:%:Never", "job a never finished: the Python policy left it waiting"},
      {"fifo+py:%:Greedy", "Greedy.allocate: gave 9 CPUs and 0 GB on server 0 to job a at t=0 s, where 8 CPUs"},
      {"fifo+py:%:Twice", "the Python class Twice is a whole scheduler (schedule): give it first"},
      {"py:%:Score+py:%:Never", "a second part at the same extension point"},
      {"py:%:Never", "no queue order in"},
      // issue 45: numbers and flags of the wrong kind are the class's error, named (they were exit 3 or a lost job)
      {"py:%:Huge", "Huge.key: returned a number beyond a double's range for job a at t=0 s"},
      {"py:%:NanKey", "NanKey.key: returned NaN for job a at t=0 s"},
      {"py:%:FlagText", "FlagText.preemptive: must be True or False, is str"},
      {"py:%:Attained", "first_time_attained: gpu_s must be in [0, 1e12], got inf"},
      {"a-srpt-p+py:%:NoneAlloc", "NoneAlloc.allocate: returned None (a refusal) for job a at t=0 s, but the class says may_refuse = False"},
  };
  int i = 0;
  for (const auto& c : cases) {
    std::string p = c.policy;
    for (std::size_t k; (k = p.find('%')) != std::string::npos;) p.replace(k, 1, file);
    const std::string out = dir + "/o" + std::to_string(i++);
    const auto r = test::shell(kBin + " simulate --cluster " + cluster + " --trace " + trace + " --policy '" + p +
                               "' --out " + out + " -q 2>&1");
    EXPECT_EQ(r.code, 2) << p << "\n" << r.text;
    EXPECT_NE(r.text.find(c.needle), std::string::npos) << p << "\n" << r.text;
    EXPECT_FALSE(std::filesystem::exists(out + "/jobs.csv")) << p;
  }
}

// The live path runs the same Python placement and whole scheduler (the in-process fake cluster here; the real Slurm
// in tests/slurm/serve_test.sh part C), and the `simulate` command replay prints for the comparison runs as printed.
TEST(PythonPolicies, ReplayOnTheLiveBackendRunsPythonSchedulersAndPrintsARunnableCommand) {
  const std::string d = test::temp_dir();
  const std::string trace = test::write_file(d, "t.csv",
                                             "job_id,submit_s,num_gpus,model,duration_s\na,0,4,resnet50,100\n"
                                             "b,20,16,resnet50,200\nc,40,2,resnet50,50\n");
  int i = 0;
  for (const std::string& p : std::vector<std::string>{"py:file=" + examples() + "/fifo_scheduler.py;class=FifoFirstFit",
                              "fifo+py:" + examples() + "/first_fit.py:BestFit"}) {
    const std::string out = d + "/rep" + std::to_string(i), state = d + "/st" + std::to_string(i);
    ++i;
    const auto r = test::shell(kBin + " replay --backend fake --trace " + trace + " --time-scale 100 --policy '" + p +
                               "' --partition rm --state " + state + " --interval 20ms --timeout 60 --out " + out + " 2>&1");
    ASSERT_EQ(r.code, 0) << r.text;
    const std::string jobs = test::read_file(out + "/jobs.csv");
    for (const char* j : {"\na,", "\nb,", "\nc,"}) EXPECT_NE(jobs.find(j), std::string::npos) << jobs;
    EXPECT_EQ(jobs.find("unfinished"), std::string::npos) << jobs;
    // The printed comparison: `ringmaster simulate ... --policy '<p>' --out SIMDIR && ringmaster compare ...`.
    const auto at = r.text.find("  ringmaster simulate ");
    ASSERT_NE(at, std::string::npos) << r.text;
    std::string cmd = r.text.substr(at + 2, r.text.find('\n', at) - at - 2);
    for (std::size_t k; (k = cmd.find("SIMDIR")) != std::string::npos;) cmd.replace(k, 6, out + "-sim");
    ASSERT_EQ(cmd.rfind("ringmaster simulate ", 0), 0u) << cmd;
    cmd.replace(0, 10, kBin);
    const auto amp = cmd.find(" && ringmaster compare ");
    ASSERT_NE(amp, std::string::npos) << cmd;
    cmd.replace(amp + 4, 10, kBin);
    const auto c = test::shell(cmd + " 2>&1");
    EXPECT_EQ(c.code, 0) << cmd << "\n" << c.text;
    EXPECT_TRUE(std::filesystem::exists(out + "-sim/jobs.csv")) << cmd;
  }
}

// The module: built next to the binary (build/python); not in sanitizer builds, whose library the system interpreter
// cannot load.
std::string module_dir() { return (std::filesystem::path(RM_BINARY).parent_path() / "python").string(); }

test::ShellOut py(const std::string& code) {
  const std::string dir = test::temp_dir();
  const std::string f = test::write_file(dir, "t.py", code);
  return test::shell("cd " + dir + " && PYTHONPATH=" + module_dir() + ":" + examples() + " /usr/bin/python3 " + f +
                     " 2>&1");
}

TEST(PythonModule, SimulateReturnsTheCliResultsAsDataFrames) {
  if (!std::filesystem::exists(module_dir() + "/ringmaster/__init__.py")) GTEST_SKIP() << "no Python module here";
  const std::string out = test::temp_dir() + "/cli";
  ASSERT_EQ(test::shell(kBin + " simulate --cluster tiny --trace builtin:demo --policy srsf --out " + out + " -q").code, 0);
  const auto r = py(R"PY(import sys, ringmaster, pandas
from srsf import Srsf
runs = ringmaster.simulate(cluster="tiny", trace="builtin:demo", policy=["srsf", Srsf, (Srsf, "first-fit")], max_jobs=60)
assert list(runs) == ["srsf", "Srsf", "Srsf+first-fit"], list(runs)
a, b = runs["srsf"], runs["Srsf"]
assert isinstance(a.jobs, pandas.DataFrame) and len(a.jobs) == 60
assert a.jobs.equals(b.jobs)
cli = pandas.read_csv(")PY" + out + R"PY(/jobs.csv")
assert cli.equals(a.jobs), "the module's jobs differ from the CLI's"
assert a.summary["jobs"] == 60 and a.summary["policy"] == "srsf"
assert list(a.timeseries.columns) == ["time_s", "queued", "running", "busy_gpus", "gpu_util"]
assert runs["Srsf+first-fit"].summary["avg_jct_s"] != a.summary["avg_jct_s"]
# issue 46: a class is labelled by its name in summary.json and in the folder it is written to
import os, tempfile, json as _json
outdir = tempfile.mkdtemp()
ringmaster.simulate(cluster="tiny", trace="builtin:demo", policy=["fifo", Srsf], max_jobs=10, out=outdir)
assert {"Srsf", "fifo"} <= set(os.listdir(outdir)), os.listdir(outdir)
assert _json.load(open(os.path.join(outdir, "Srsf", "summary.json")))["policy_label"] == "Srsf"
# {label: policy} and a class's `label` attribute name them instead
class Labelled(Srsf):
    label = "my-srsf"
outdir = tempfile.mkdtemp()
runs = ringmaster.simulate(cluster="tiny", trace="builtin:demo", policy={"fast": "srsf", "mine": Srsf}, max_jobs=10, out=outdir)
assert list(runs) == ["fast", "mine"], list(runs)
assert sorted(os.listdir(outdir)) == ["fast", "mine"], os.listdir(outdir)
assert _json.load(open(os.path.join(outdir, "fast", "summary.json")))["policy_label"] == "fast"
assert list(ringmaster.simulate(cluster="tiny", trace="builtin:demo", policy=Labelled, max_jobs=10)) == ["my-srsf"]
for bad, needle in [(dict(max_jbs=3), "max_jbs: not an option of simulate (did you mean 'max_jobs'?)"),
                    (dict(max_jobs=-1), "--max-jobs: must be >= 0"),
                    (dict(policy="fifoo"), "unknown policy or plugin 'fifoo'")]:
    kw = dict(cluster="tiny", trace="builtin:demo", policy="fifo")
    kw.update(bad)
    try:
        ringmaster.simulate(**kw)
        sys.exit("no error for %r" % bad)
    except ringmaster.InputError as e:
        assert needle in str(e), str(e)
class Boom(ringmaster.Policy):
    def key(self, job):
        raise KeyError("boom")
try:
    ringmaster.simulate(cluster="tiny", trace="builtin:demo", policy=Boom)
    sys.exit("no error")
except ringmaster.InputError as e:
    assert "Boom.key: raised for job j00 at t=0 s" in str(e) and "KeyError: 'boom'" in str(e), str(e)
print("ok")
)PY");
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("ok"), std::string::npos) << r.text;
}

// Class objects at every extension point from the module, and sweep(): the CLI's folder layout, resumable by either.
TEST(PythonModule, ClassesAtEveryPointAndASweepInTheCliLayout) {
  if (!std::filesystem::exists(module_dir() + "/ringmaster/__init__.py")) GTEST_SKIP() << "no Python module here";
  const std::string dir = test::temp_dir();
  const auto r = py(R"PY(import sys, ringmaster
from first_fit import FirstFit
from fifo_scheduler import FifoFirstFit
from srsf import Srsf
runs = ringmaster.simulate(cluster="tiny", trace="builtin:demo", policy=["fifo+first-fit", ("fifo", FirstFit), FifoFirstFit])
a, b, c = runs.values()
assert a.jobs.equals(b.jobs) and a.jobs.equals(c.jobs), "the Python placement or scheduler differs"
# Plain functions: a function is an order's key; order()/placement()/scheduler() make the other points from them.
def left(job):
    return job.remaining_time_s * job.num_gpus
runs = ringmaster.simulate(cluster="tiny", trace="builtin:demo", policy=[
    "srsf", ringmaster.order(left, preemptive=True), "fifo", lambda job: job.arrival_s,
    ("fifo", ringmaster.placement(filter=lambda job, server: True)),
    ringmaster.scheduler(lambda view: FifoFirstFit().schedule(view))])
r = list(runs.values())
assert list(runs)[3:] == ["<lambda>", "fifo+<lambda>", "<lambda>#2"], list(runs)
assert r[0].jobs.equals(r[1].jobs) and r[2].jobs.equals(r[3].jobs), "a function order differs"
assert r[4].jobs.equals(a.jobs) and r[5].jobs.equals(a.jobs), "a function placement or scheduler differs"
sw = ringmaster.sweep(")PY" + dir + R"PY(/sw", cluster="tiny", trace="builtin:demo", policy=["fifo", Srsf],
                      load=[0.5, 1.0], parallel=2, quiet=True)
assert sw.status == 0 and len(sw.results) == 4, sw.results
assert list(sw.results["status"]) == ["ok"] * 4
# issue 46: the same sweep again in this process (a notebook cell run twice) skips the completed runs
again = ringmaster.sweep(")PY" + dir + R"PY(/sw", cluster="tiny", trace="builtin:demo", policy=["fifo", Srsf],
                         load=[0.5, 1.0], parallel=2, quiet=True)
assert again.status == 0 and again.results.equals(sw.results), again.results
# issue 46: ringmaster.load gives a sweep (or a run, or a multi-policy folder) as tidy tables
L = ringmaster.load(sw.out)
assert len(L.runs) == 4 and {"run", "policy", "load", "avg_jct_s"} <= set(L.runs.columns), L.runs
assert len(L.jobs) == 240 and list(L.jobs.columns[:2]) == ["run", "policy"] and "load" in L.jobs.columns, L.jobs.columns
assert sorted(set(L.runs["policy"])) == ["Srsf", "fifo"], set(L.runs["policy"])
assert "<table" in L._repr_html_()
assert isinstance(ringmaster.__version__, str) and ringmaster.__version__, ringmaster.__version__
assert sw.results["policy"][2].startswith("py:file=") and sw.results["policy"][2].endswith("srsf.py;class=Srsf")
one = ringmaster.simulate(cluster="tiny", trace="builtin:demo", policy=Srsf, load=1.0)
assert sw.run(3).jobs.equals(one["Srsf"].jobs)
class Local(ringmaster.Policy):
    def key(self, job):
        return 0
try:
    ringmaster.sweep(")PY" + dir + R"PY(/sw2", cluster="tiny", trace="builtin:demo", policy=[Local])
    sys.exit("no error")
except ringmaster.InputError as e:
    assert "a Python policy must be a top-level class (or function) of a .py file" in str(e), str(e)
try:
    ringmaster.sweep(")PY" + dir + R"PY(/sw3", cluster="tiny", trace="builtin:demo", policy="fifo", lod=[1])
    sys.exit("no error")
except ringmaster.InputError as e:
    assert "--lod" in str(e), str(e)
print(sw.results["policy"][2])
)PY");
  ASSERT_EQ(r.code, 0) << r.text;
  // The CLI finds the module's sweep complete: the same arguments run nothing again.
  const std::string srsf = r.text.substr(0, r.text.find('\n'));
  const auto again = test::shell(kBin + " sweep --cluster tiny --trace builtin:demo --policy fifo --policy '" + srsf +
                                 "' --load 0.5 --load 1.0 --out " + dir + "/sw 2>&1");
  EXPECT_EQ(again.code, 0) << again.text;
  EXPECT_NE(again.text.find("4 skipped as complete"), std::string::npos) << again.text;
}

// The contract's command, against the package in the build tree.
TEST(PythonModule, AViewKeptPastItsRunRaisesInsteadOfReadingFreedMemory) {
  if (!std::filesystem::exists(module_dir() + "/ringmaster/__init__.py")) GTEST_SKIP() << "no Python module here";
  const auto r = py(R"PY(import ringmaster
kept = []
class Keep(ringmaster.Policy):
    def key(self, job):
        kept.append(job)
        return job.submit_s
ringmaster.simulate(cluster="tiny", trace="builtin:demo", policy=Keep, max_jobs=5)
assert kept, "the policy was never called"
try:
    kept[0].name
    raise SystemExit("a view read after its run")
except ValueError as e:
    assert "belongs to a simulation run that has ended" in str(e), e
print("ok")
)PY");
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("ok"), std::string::npos) << r.text;
}

TEST(PythonModule, WithoutPandasResultsAreTablesAndItSaysSoOnce) {
  if (!std::filesystem::exists(module_dir() + "/ringmaster/__init__.py")) GTEST_SKIP() << "no Python module here";
  const auto r = py(R"PY(import sys, warnings
sys.modules["pandas"] = None  # as an interpreter without python3-pandas
import ringmaster
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("default")
    runs = ringmaster.simulate(cluster="tiny", trace="builtin:demo", policy=["fifo", "srsf"], max_jobs=5)
assert runs["fifo"].jobs.shape[0] == 5, runs["fifo"].jobs
said = [x for x in w if issubclass(x.category, ringmaster.PandasMissingWarning)]
assert len(said) == 1 and sys.executable in str(said[0].message), [str(x.message) for x in w]
print("ok")
)PY");
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("ok"), std::string::npos) << r.text;
}

TEST(PythonModule, TheContractCommand) {
  if (!std::filesystem::exists(module_dir() + "/ringmaster/__init__.py")) GTEST_SKIP() << "no Python module here";
  const auto r = py("import ringmaster, sys; r = ringmaster.simulate(cluster='tiny', trace='builtin:demo', "
                    "policy=['fifo']); sys.exit(0 if len(r['fifo'].jobs) == 60 else 1)\n");
  EXPECT_EQ(r.code, 0) << r.text;
}

// docs/python.md's example, as written (../shared pointed at the shared folder): it runs, prints what the page says
// it prints, and draws its figure.
TEST(PythonModule, TheDocsExampleRunsAndPrintsWhatThePageSays) {
  if (!std::filesystem::exists(module_dir() + "/ringmaster/__init__.py")) GTEST_SKIP() << "no Python module here";
  if (test::shell("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null").code != 0) GTEST_SKIP() << "no matplotlib";
  const std::string page = test::read_file(std::string(RM_SOURCE_DIR) + "/docs/python.md");
  const auto a = page.find("```python\n");
  ASSERT_NE(a, std::string::npos);
  const auto b = page.find("```", a + 10);
  std::string code = page.substr(a + 10, b - a - 10);
  const std::string shared = RM_SHARED_DIR;  // itself ends in ../shared: replace left to right, once each
  for (std::size_t p = 0; (p = code.find("../shared", p)) != std::string::npos; p += shared.size())
    code.replace(p, 9, shared);
  const std::string dir = test::temp_dir();
  const std::string f = test::write_file(dir, "example.py", code);
  const auto r = test::shell("cd " + dir + " && PYTHONPATH=" + module_dir() + " /usr/bin/python3 " + f + " 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  for (const char* line : {"FewestGpuSecondsLeft: average JCT 21.7 h", "tiresias: average JCT 37.1 h"}) {
    EXPECT_NE(r.text.find(line), std::string::npos) << r.text;
    EXPECT_NE(page.find(std::string("`") + line + "`"), std::string::npos) << line;
  }
  EXPECT_TRUE(std::filesystem::exists(dir + "/jct_cdf.png"));
}

}  // namespace
}  // namespace rm
