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
  EXPECT_NE(r.text.find("NoKey: is not a queue order"), std::string::npos) << r.text;
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

// The contract's command, against the package in the build tree.
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
  for (const char* line : {"FewestGpuSecondsLeft: average JCT 18.8 h", "tiresias: average JCT 36.5 h"}) {
    EXPECT_NE(r.text.find(line), std::string::npos) << r.text;
    EXPECT_NE(page.find(std::string("`") + line + "`"), std::string::npos) << line;
  }
  EXPECT_TRUE(std::filesystem::exists(dir + "/jct_cdf.png"));
}

}  // namespace
}  // namespace rm
