// The one policy grammar (policy/policy_spec.h), the one registry and the typed run plan (run/run_plan.h).
#include <filesystem>

#include "run/run_plan.h"
#include "policy/registry.h"
#include "test_util.h"

namespace rm {
namespace {

std::string parts_of(const PolicySpec& s) {
  static const char* const kPoint[] = {"order", "placement", "allocation", "flag", "scheduler",
                                       "planner", "task-key", "task-place", "task-admit"};
  std::string out;
  for (const auto& p : s.parts) {
    out += std::string(out.empty() ? "" : " ") + kPoint[static_cast<int>(p.point)] + ":" + p.name;
    for (const auto& [k, v] : p.kv) out += "[" + k + "=" + v + "]";
  }
  return out;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PolicySpec, FamiliesPresetsAliasesAndDefaults) {
  const PolicySpec t = parse_policy_spec("tiresias+tune");
  EXPECT_EQ(t.family, PolicyFamily::Composed);
  EXPECT_EQ(parts_of(t), "order:2d-las placement:consolidated allocation:tune");
  EXPECT_EQ(t.presets, std::vector<std::string>{"tiresias"});
  EXPECT_EQ(parts_of(parse_policy_spec("dlas:thresholds=10,20+backfill")),
            "order:2d-las[thresholds=10,20] flag:backfill placement:consolidated");  // the default
  EXPECT_TRUE(parse_policy_spec("fifo").part(Point::Placement)->defaulted);
  EXPECT_FALSE(parse_policy_spec("fifo+first-fit").part(Point::Placement)->defaulted);
  EXPECT_EQ(parts_of(parse_policy_spec("fifo-backfill")), "order:fifo flag:easy-backfill placement:consolidated");
  EXPECT_EQ(parts_of(parse_policy_spec("srsf+pack+proportional")), "order:srsf placement:consolidated allocation:fair");

  const PolicySpec a = parse_policy_spec("a-srpt-p:delta=60+tune");
  EXPECT_EQ(a.family, PolicyFamily::Scheduler);
  EXPECT_EQ(parts_of(a), "scheduler:a-srpt-p[delta=60] allocation:tune");

  EXPECT_EQ(parse_policy_spec("ff").family, PolicyFamily::Planner);
  EXPECT_EQ(parts_of(parse_policy_spec("sjf-bco:kappa=3")), "planner:sjf-bco[kappa=3]");

  const PolicySpec w = parse_policy_spec("ssf-lwf2-srsf-1-true");
  EXPECT_EQ(w.family, PolicyFamily::Task);
  EXPECT_EQ(parts_of(w), "task-key:queue[key=ssf] task-place:lwf[kappa=2] task-key:keys[key=srsf] task-admit:adadual");
  // A task part first: Ada-SRSF's defaults, then the part.
  EXPECT_EQ(parts_of(parse_policy_spec("lwf8+srsf-n:n=2")),
            "task-key:queue[key=ssf] task-place:lwf[kappa=2] task-key:keys[key=srsf] task-admit:adadual "
            "task-place:lwf[kappa=8] task-admit:srsf-n[n=2]");
}

TEST(PolicySpec, BadPoliciesNameThePart) {
  EXPECT_EQ(error_of([] { parse_policy_spec("fifo+telepathy"); }),
            "--policy:telepathy: unknown policy or plugin 'telepathy' (see `ringmaster list-policies`)");
  EXPECT_NE(error_of([] { parse_policy_spec("srfs"); }).find("did you mean 'srsf'"), std::string::npos);
  EXPECT_NE(error_of([] { parse_policy_spec("fifo+srsf"); }).find("a second queue order"), std::string::npos);
  EXPECT_NE(error_of([] { parse_policy_spec("fifo+random+consolidated"); }).find("a second placement"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_policy_spec("fifo+a-srpt"); }).find("whole scheduler"), std::string::npos);
  EXPECT_NE(error_of([] { parse_policy_spec("fifo+sjf-bco"); }).find("is a planner"), std::string::npos);
  EXPECT_NE(error_of([] { parse_policy_spec("sjf-bco+tune"); }).find("is a planner"), std::string::npos);
  EXPECT_NE(error_of([] { parse_policy_spec("a-srpt+first-fit"); }).find("at most a CPU/memory allocation"),
            std::string::npos);
  EXPECT_EQ(error_of([] { parse_policy_spec("a-srpt-p+tune:x=1"); }), "--policy:tune:x: unknown parameter of tune");
  EXPECT_EQ(error_of([] { parse_policy_spec("fifo+backfill:x=1"); }), "--policy:backfill:x: unknown parameter of backfill");
  EXPECT_NE(error_of([] { parse_policy_spec("ada-srsf+queue=fastest"); }), "");
  EXPECT_NE(error_of([] { parse_policy_spec("ada-srsf+nosuch"); }).find("unknown task-model plugin"), std::string::npos);
  EXPECT_NE(error_of([] { parse_policy_spec("   "); }), "");
  EXPECT_NE(error_of([] { parse_policy_spec("fifo+"); }).find("empty part"), std::string::npos);
  // A threshold past what the microsecond clock holds (the fuzzer's 3.4e26 hung the run) is refused by name.
  EXPECT_EQ(error_of([] { make_order(parse_policy_spec("2d-las:thresholds=3.4e26").parts.at(0), 1); }),
            "--policy:2d-las:thresholds: '3.4e26' is out of range: must be in [1e-6, 1e12]");
  // Every numeric parameter has a range, checked when the policy string is read (issue 45): a quantum that would
  // take a billion rounds, or a parameter given twice, is refused by name.
  EXPECT_EQ(error_of([] { make_scheduler("a-srpt-p:delta=1e-6", 1); }),
            "--policy:a-srpt-p:delta: '1e-6' is out of range: must be in [1, 1e9]");
  EXPECT_EQ(error_of([] { make_scheduler("gavel-las:round=1e-9", 1); }),
            "--policy:gavel-las:round: '1e-9' is out of range: must be in [1, 1e6]");
  EXPECT_EQ(error_of([] { make_scheduler("gavel-las:reset=1e18", 1); }),
            "--policy:gavel-las:reset: '1e18' is out of range: must be in [0, 1e9]");
  EXPECT_EQ(error_of([] { make_scheduler("sjf-bco-online:u=1e-9", 1); }),
            "--policy:sjf-bco-online:u: '1e-9' is out of range: must be in [1, 1e6]");
  EXPECT_EQ(error_of([] { make_scheduler("a-srpt:first=1;trees=1e10", 1); }),
            "--policy:a-srpt:trees: must be an integer in [1, 10000]");
  EXPECT_EQ(error_of([] { parse_policy_spec("srsf:x=1;x=2"); }), "--policy:srsf:x: given twice in 'srsf:x=1;x=2'");
}

TEST(PolicySpec, EveryCatalogueNameParsesAtItsPoint) {
  int checked = 0;
  for (const auto& c : policy_catalogue()) {
    if (c.name.find_first_of("<|") != std::string::npos) continue;
    if (c.name == "py") continue;  // a Python class names its file: tests/python_test.cpp, with the binary
    std::string text = c.name;
    if (c.point == "placement" || c.point == "flag" || c.point == "allocation") text = "fifo+" + c.name;
    if (c.point == "task-place" || c.point == "task-admit") text = "ada-srsf+" + c.name;
    EXPECT_EQ(error_of([&] { parse_policy_spec(text); }), "") << text;
    ++checked;
  }
  EXPECT_GE(checked, 35);
}

// The plan: --exec auto decided from the policy, refusals from the one rule, options checked before any file.
TEST(RunPlan, ResolvesTheExecutionModelAndRefusesWithTheMatrixReason) {
  SimConfig c;
  const auto exec_of = [&](const std::string& policy, const std::string& workload = "") {
    c.policy = policy;
    c.workload = workload;
    return make_run_plan(c).exec;
  };
  EXPECT_EQ(exec_of("srsf"), ExecModel::Rate);
  EXPECT_EQ(exec_of("a-srpt"), ExecModel::Graph);
  EXPECT_EQ(exec_of("srsf1"), ExecModel::Task);
  EXPECT_EQ(exec_of("synergy-tune"), ExecModel::Round);
  EXPECT_EQ(exec_of("fifo+opt"), ExecModel::Round);
  EXPECT_EQ(exec_of("a-srpt-p+opt"), ExecModel::Graph);
  EXPECT_EQ(exec_of("sjf-bco"), ExecModel::Rate);
  EXPECT_EQ(exec_of("fifo", "synergy-philly"), ExecModel::Round);
  c.workload.clear();
  c.data_dir = std::string(RM_SHARED_DIR) + "/traces";  // the Gittins orders' distribution
  for (const auto& row : exec_support())
    for (std::size_t m = 0; m < kExecModelList.size(); ++m) {
      c.policy = row.policy;
      c.exec = exec_name(kExecModelList[m]);
      const std::string err = error_of([&] { make_run_plan(c); });
      if (row.why_not[m].empty()) EXPECT_EQ(err, "") << row.policy << " --exec " << c.exec;
      else EXPECT_NE(err.find(row.why_not[m]), std::string::npos) << row.policy << " --exec " << c.exec << ": " << err;
    }
  c.exec = "auto";
  c.policy = "srsf";
  c.split = "1,2";
  EXPECT_NE(error_of([&] { make_run_plan(c); }).find("--split"), std::string::npos);
  c.split = "20,70,10";
  c.compat = "wang2021";
  EXPECT_NE(error_of([&] { make_run_plan(c); }).find("unknown compatibility mode"), std::string::npos);
  c.compat = "";
  c.policy = "2d-las:thresholdz=5";  // parameters are checked when the plan is made, before any input is read
  c.trace = "/nonexistent/trace.csv";
  EXPECT_EQ(error_of([&] { make_run_plan(c); }), "--policy:2d-las:thresholdz: unknown parameter of 2d-las");
}

TEST(RunPlan, SimulateRefusesABadPolicyBeforeAnyRun) {
  const std::string d = test::temp_dir() + "/out";
  const auto r = test::shell(std::string(RM_BINARY) + " simulate --cluster tiny --trace builtin:demo --policy fifo "
                             "--policy srsf:typo=1 --out " + d);
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("srsf:typo"), std::string::npos) << r.text;
  EXPECT_FALSE(std::filesystem::exists(d + "/fifo/jobs.csv"));
}

}  // namespace
}  // namespace rm
