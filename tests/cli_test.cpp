// The `ringmaster` command end to end: outputs, determinism, exit codes and messages.
#include <sys/wait.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace rm::test {
namespace {

using Out = ShellOut;
Out sh(const std::string& args) { return shell(std::string(RM_BINARY) + " " + args); }

std::string without_wall(const std::string& json) {
  auto j = nlohmann::ordered_json::parse(json);
  for (const char* k : {"wall_s", "engine_s", "events_per_s", "timing"}) j.erase(k);
  return j.dump();
}

TEST(Cli, SimulateWritesTheThreeFilesWithTheContractKeys) {
  const std::string d = temp_dir();
  auto r = sh("simulate --cluster tiny --trace builtin:demo --policy srsf --out " + d);
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("avg_jct_s"), std::string::npos);  // the summary table
  auto j = nlohmann::json::parse(read_file(d + "/summary.json"));
  for (const char* k : {"jobs", "avg_jct_s", "p50_jct_s", "p95_jct_s", "p99_jct_s", "makespan_s", "avg_queue_s",
                        "gpu_util", "preemptions", "events", "wall_s"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["jobs"], 60);
  EXPECT_GT(j["gpu_util"].get<double>(), 0.0);
  EXPECT_LE(j["gpu_util"].get<double>(), 1.0);
  const std::string jobs = read_file(d + "/jobs.csv");
  EXPECT_EQ(std::count(jobs.begin(), jobs.end(), '\n'), 61);
  EXPECT_EQ(read_file(d + "/timeseries.csv").rfind("time_s,queued,running,busy_gpus,gpu_util\n", 0), 0u);
}

TEST(Cli, VersionPrintsTheGitDescribeOfTheBuild) {
  const Out v = sh("--version");
  EXPECT_EQ(v.code, 0) << v.text;
  EXPECT_EQ(v.text.rfind("ringmaster ", 0), 0u) << v.text;
  EXPECT_GT(v.text.size(), std::string("ringmaster \n").size()) << v.text;
}

// main builds only the subcommand argv[1] names (start-up, issue 47); help and unknown names still see them all.
TEST(Cli, HelpListsEverySubcommandAndEachKeepsItsOwnOptions) {
  const char* names[] = {"simulate", "generate", "list-policies", "list-clusters", "list-models", "validate", "serve",
                         "status", "replay", "payload", "compare", "plot", "sweep", "calibrate"};
  const Out help = sh("--help");
  EXPECT_EQ(help.code, 0) << help.text;
  for (const char* n : names) EXPECT_NE(help.text.find(std::string("\n  ") + n + " "), std::string::npos) << n;
  for (const char* n : names) {
    const Out h = sh(std::string(n) + " --help");
    EXPECT_EQ(h.code, 0) << n << ": " << h.text;
    EXPECT_NE(h.text.find(std::string(" ") + n), std::string::npos) << n << ": " << h.text;
  }
  EXPECT_NE(sh("simulate --help").text.find("--policy"), std::string::npos);
  EXPECT_NE(sh("generate --help").text.find("--jobs"), std::string::npos);
  const Out typo = sh("simulat --cluster tiny");
  EXPECT_EQ(typo.code, 2) << typo.text;
  EXPECT_NE(typo.text.find("did you mean `ringmaster simulate`"), std::string::npos) << typo.text;
  const Out two = sh("list-models simulate");  // a second subcommand is an extra argument, named or not
  EXPECT_EQ(two.code, 2) << two.text;
}

TEST(Cli, PolicyLabelsNameFoldersSummariesAndCompare) {
  // Issue 46: --policy LABEL=SPEC names the run's folder, summary.json's policy_label and compare's policy column; a
  // Python part from a file shows its class name, never its path; the same spec under two labels runs twice.
  const std::string d = temp_dir();
  const std::string py = write_file(d, "mine.py", "import ringmaster\nclass Mine(ringmaster.Policy):\n    def key(self, job):\n        return job.submit_s\n");
  // The interpreter keeps its objects to the end of the process: no leak check under ASan (as python_test.cpp).
  const Out r = shell("ASAN_OPTIONS=detect_leaks=0 " + std::string(RM_BINARY) + " simulate --policy fast=srsf --policy srsf --policy py:" +
                      py + ":Mine -q --out " + d + "/o");
  ASSERT_EQ(r.code, 0) << r.text;
  for (const char* f : {"/o/fast/summary.json", "/o/srsf/summary.json", "/o/Mine/summary.json"})
    EXPECT_TRUE(std::filesystem::exists(d + f)) << f;
  const std::string fast = read_file(d + "/o/fast/summary.json"), mine = read_file(d + "/o/Mine/summary.json");
  EXPECT_NE(fast.find("\"policy_label\": \"fast\""), std::string::npos) << fast;
  EXPECT_NE(fast.find("\"policy\": \"srsf\""), std::string::npos) << fast;
  EXPECT_NE(mine.find("\"policy_label\": \"Mine\""), std::string::npos) << mine;
  EXPECT_EQ(read_file(d + "/o/srsf/summary.json").find("policy_label"), std::string::npos);
  const Out c = sh("compare " + d + "/o");
  EXPECT_EQ(c.code, 0) << c.text;
  EXPECT_NE(c.text.find(" fast "), std::string::npos) << c.text;
  EXPECT_NE(c.text.find(" Mine "), std::string::npos) << c.text;
  EXPECT_EQ(c.text.find(d + "/mine.py"), std::string::npos) << c.text;
  const Out bad = sh("simulate --policy 'a b=srsf' -q --out " + d + "/bad");
  EXPECT_EQ(bad.code, 2) << bad.text;
  EXPECT_NE(bad.text.find("may hold letters, digits"), std::string::npos) << bad.text;
}

TEST(Cli, SynergyContract) {
  // Issue 6's contract: the static replay and the generator, with the authors' statistics in summary.json.
  const std::string golden = std::string(RM_SHARED_DIR) + "/goldens/synergy/static_100job.csv";
  const std::string d1 = temp_dir(), d2 = temp_dir();
  auto r = sh("simulate --cluster synergy32 --trace " + golden +
              " --format synergy --static --exec round --compat synergy --policy fifo+tune --out " + d1);
  ASSERT_EQ(r.code, 0) << r.text;
  auto j = nlohmann::json::parse(read_file(d1 + "/summary.json"));
  EXPECT_EQ(j["avg_jct_h"].get<double>(), 5.0827640277777775);
  EXPECT_EQ(j["p99_jct_h"].get<double>(), 10.587751136111114);
  EXPECT_TRUE(j.contains("p999_jct_h"));
  EXPECT_EQ(j["jobs"], 100);
  r = sh("simulate --cluster synergy128 --workload synergy-philly --load 9 --split 20,70,10 --seed 42 "
         "--measure-ids 4000:4999 --exec round --compat synergy --policy fifo+tune --out " + d2);
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("avg_jct_h=21.876600555555555"), std::string::npos) << r.text;  // full precision
  j = nlohmann::json::parse(read_file(d2 + "/summary.json"));
  EXPECT_EQ(j["avg_jct_h"].get<double>(), 21.876600555555555);
  EXPECT_EQ(j["p99_jct_h"].get<double>(), 156.93307777777775);
  EXPECT_EQ(j["p999_jct_h"].get<double>(), 170.61199750000023);
  EXPECT_EQ(j["jobs"], 1000);
  EXPECT_EQ(read_file(d2 + "/summary.json").find("21.876600555555555") == std::string::npos, false);
  r = sh("simulate --cluster synergy32 --trace " + golden + " --exec round --policy fifo+tune+spread --out " + d1);
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("unknown policy or plugin 'spread'"), std::string::npos) << r.text;
  r = sh("simulate --cluster synergy32 --trace " + golden + " --exec round --policy fifo+tune+random --out " + d1);
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("first-fit or consolidated (the default; first-fit under --compat synergy)"), std::string::npos) << r.text;
}

TEST(Cli, TaskModelContract) {
  // Issue 3's contract: the authors' configuration strings with --exec task [--compat wang2020].
  const std::string golden = std::string(RM_SHARED_DIR) + "/goldens/p1-ada-srsf/jobs_seed1.csv";
  for (const std::string compat : {"", " --compat wang2020"}) {
    const std::string d = temp_dir();
    auto r = sh("simulate --cluster wang2020 --trace " + golden +
                " --format wang2020 --exec task --policy ssf-lwf2-srsf-1-true" + compat + " --out " + d);
    ASSERT_EQ(r.code, 0) << r.text;
    auto j = nlohmann::json::parse(read_file(d + "/summary.json"));
    ASSERT_TRUE(j.contains("avg_jct_ms") && j.contains("makespan_ms")) << j.dump();
    EXPECT_EQ(j["jobs"], 160);
    if (!compat.empty()) {
      EXPECT_NEAR(j["avg_jct_ms"].get<double>(), 12313.2, 0.05);
      EXPECT_EQ(j["makespan_ms"].get<double>(), 73573.0);
    }
  }
  // A generated workload round-trips through `generate` and --trace.
  const std::string d = temp_dir();
  ASSERT_EQ(sh("generate --workload wang2020 --seed 9 --out " + d + "/g.csv").code, 0);
  auto a = sh("simulate --cluster wang2020 --workload wang2020 --seed 9 --policy srsf2 -q --out " + d + "/a");
  auto b = sh("simulate --cluster wang2020 --trace " + d + "/g.csv --seed 9 --policy srsf2 -q --out " + d + "/b");
  ASSERT_EQ(a.code, 0) << a.text;
  ASSERT_EQ(b.code, 0) << b.text;
  EXPECT_EQ(read_file(d + "/a/jobs.csv"), read_file(d + "/b/jobs.csv"));
  auto bad = sh("simulate --cluster wang2020 --workload wang2020 --policy ada-srsf+lwf:kappa=x --out " + d + "/c");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.text.find("lwf:kappa"), std::string::npos) << bad.text;
}

TEST(Cli, PlannerContract) {
  // Issue 4's contract: generated cluster and jobs per seed, planned, executed, slots converted.
  for (const char* p : {"sjf-bco", "ls", "ff", "rand"}) {
    const std::string d = temp_dir() + "/" + p;
    auto r = sh(std::string("simulate --cluster yu2022 --workload yu2022 --seed 2 --policy ") + p + " --out " + d);
    ASSERT_EQ(r.code, 0) << r.text;
    auto j = nlohmann::json::parse(read_file(d + "/summary.json"));
    EXPECT_EQ(j["jobs"], 160);
    EXPECT_NEAR(j["makespan_s"].get<double>(), 10 * j["makespan_slots"].get<double>(), 1e-3);
    EXPECT_NEAR(j["avg_jct_s"].get<double>(), 10 * j["avg_jct_slots"].get<double>(), 1e-3);
  }
}

TEST(Cli, SameSeedGivesByteIdenticalOutputs) {
  const std::string a = temp_dir() + "/a", b = temp_dir() + "/b";
  for (const auto& d : {a, b})
    ASSERT_EQ(sh("simulate --trace builtin:demo --policy 2d-las+random --seed 42 --preempt-overhead 10 -q --out " + d).code,
              0);
  EXPECT_EQ(read_file(a + "/jobs.csv"), read_file(b + "/jobs.csv"));
  EXPECT_EQ(read_file(a + "/timeseries.csv"), read_file(b + "/timeseries.csv"));
  EXPECT_EQ(without_wall(read_file(a + "/summary.json")), without_wall(read_file(b + "/summary.json")));
  // A different seed changes the random placement, hence the schedule.
  const std::string c = temp_dir() + "/c";
  ASSERT_EQ(sh("simulate --trace builtin:demo --policy 2d-las+random --seed 43 --preempt-overhead 10 -q --out " + c).code, 0);
  EXPECT_NE(read_file(a + "/jobs.csv"), read_file(c + "/jobs.csv"));
}

TEST(Cli, SeveralPoliciesGiveATableAndOneFolderEach) {
  const std::string d = temp_dir();
  auto r = sh("simulate --policy fifo --policy tiresias --out " + d);
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_TRUE(std::filesystem::exists(d + "/fifo/summary.json"));
  EXPECT_TRUE(std::filesystem::exists(d + "/tiresias/summary.json"));
  const std::string table = read_file(d + "/summary.csv");
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 3);
}

TEST(Cli, BadInputExitsNonZeroWithLocation) {
  const std::string d = temp_dir();
  const auto bad = write_file(d, "bad.csv", "job_id,submit_s,num_gpus,model,iterations\na,0,1,resnet50,100\nb,0,x,resnet50,1\n");
  auto r = sh("simulate --trace " + bad + " --policy fifo --out " + d + "/o");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find(bad + ":3:num_gpus: 'x' is not"), std::string::npos) << r.text;
  auto p = sh("simulate --policy warp-drive --out " + d + "/o");
  EXPECT_EQ(p.code, 2);
  EXPECT_NE(p.text.find("unknown policy or plugin 'warp-drive'"), std::string::npos);
  auto c = sh("simulate --cluster /no/such.yaml --out " + d + "/o");
  EXPECT_EQ(c.code, 2);
  EXPECT_NE(c.text.find("/no/such.yaml: no such cluster file or preset"), std::string::npos);
  auto e = sh("simulate --exec warp --out " + d + "/o");
  EXPECT_EQ(e.code, 2);
}

TEST(Cli, ValidateReportsEveryProblem) {
  const std::string d = temp_dir();
  const auto bad = write_file(d, "bad.csv",
                              "job_id,submit_s,num_gpus,model,iterations\na,-1,1,resnet50,100\nb,0,1,resnet50,100\n"
                              "c,0,1,alexnet2,100\n");
  auto r = sh("validate " + bad);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find(bad + ":2:submit"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find(bad + ":4:model"), std::string::npos) << r.text;
  auto ok = sh("validate " + std::string(RM_SHARED_DIR) + "/traces/tiresias/60_job.csv");
  EXPECT_EQ(ok.code, 0) << ok.text;
  EXPECT_NE(ok.text.find("60 jobs OK"), std::string::npos);
}

TEST(Cli, ListsEveryPluginAndPreset) {
  auto r = sh("list-policies");
  ASSERT_EQ(r.code, 0);
  for (const char* p : {"fifo", "sjf", "shortest", "srtf", "srsf", "2d-las", "first-fit", "consolidated", "random",
                        "preempt", "backfill", "tiresias", "fifo-backfill"})
    EXPECT_NE(r.text.find(std::string(" ") + p + " "), std::string::npos) << p;
  auto c = sh("list-clusters");
  for (const char* p : {"wang2020", "synergy128", "synergy32", "philly2400", "tiny"})
    EXPECT_NE(c.text.find(p), std::string::npos) << p;
}

}  // namespace
}  // namespace rm::test
