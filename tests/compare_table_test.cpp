// `ringmaster compare DIR...` (issue 29): one table across run folders, multi-policy folders and sweeps, with each
// row's execution model, perf model and policy, written as CSV and Markdown; mixed models said; two single runs also
// side by side per job.
#include <gtest/gtest.h>

#include <algorithm>

#include "test_util.h"

namespace rm {
namespace {

TEST(CompareTable, RunsPolicyFoldersAndSweepsInOneTable) {
  const std::string d = test::temp_dir();
  const std::string bin = RM_BINARY;
  ASSERT_EQ(test::shell(bin + " simulate --policy fifo --policy srsf -q --out " + d + "/multi").code, 0);
  ASSERT_EQ(test::shell(bin + " simulate --policy fifo-backfill -q --out " + d + "/one").code, 0);
  ASSERT_EQ(test::shell(bin + " sweep --policy fifo --load 0.5,1 -q --out " + d + "/sw 2>&1").code, 0);
  ASSERT_EQ(test::shell(bin + " simulate --cluster synergy128 --workload synergy-philly --max-jobs 100 --policy synergy-tune -q --out " + d +
                            "/round").code, 0);
  const auto r = test::shell("cd " + d + " && " + bin + " compare multi one sw round --out table 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string csv = test::read_file(d + "/table.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "run,load,policy,exec,perf_model,cluster,trace,jobs,offered_load,avg_jct_s,p50_jct_s,p99_jct_s,makespan_s,"
            "avg_queue_s,queue_p99_s,gpu_util,preemptions,gpu_time_inflation,stretch_p50,stretch_p99,ftf_rho_mean,"
            "ftf_rho_max,jain_user_gpu_share");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);  // header + 2 + 1 + 2 + 1
  EXPECT_NE(csv.find("\nmulti/srsf,,srsf,rate,analytic,tiny,builtin:demo,60,"), std::string::npos) << csv;
  // --load 1 on the demo: offered load 1 (issue 41; it was the arrival multiplier x1, 6575.78 s under spread-ok).
  // The CSV keeps every digit (issue 46); the text and Markdown tables plain decimals (2580, 969.74, 0.732), no exponent.
  EXPECT_NE(csv.find("\nsw:00001,1,fifo,rate,analytic,tiny,builtin:demo,60,0.9999999999704341,2580.3022589000007,"),
            std::string::npos) << csv;
  EXPECT_NE(csv.find("\nround,,synergy-tune,round,synergy-profiles,synergy128,workload:synergy-philly,"), std::string::npos) << csv;
  const std::string md = test::read_file(d + "/table.md");
  EXPECT_NE(md.find("| sw:00001 | 1 | fifo | rate | analytic | tiny | builtin:demo | 60 | 1.000 | 2580 | 2290 |"), std::string::npos)
      << md;
  EXPECT_EQ(md.find("e+"), std::string::npos) << md;
  EXPECT_NE(r.text.find(" 0.732 "), std::string::npos) << r.text;
  EXPECT_EQ(md.rfind("| run | load | policy | exec | perf_model |", 0), 0u) << md;
  EXPECT_NE(md.find("These rows mix execution models rate, round; performance models analytic, synergy-profiles"),
            std::string::npos) << md;
  EXPECT_NE(r.text.find("note: these rows mix execution models rate, round"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("jobs in both"), std::string::npos);  // not two single runs
  // Two single runs: the table, then the jobs side by side; no mixed-model note.
  const auto two = test::shell("cd " + d + " && " + bin + " compare one multi/fifo 2>&1");
  ASSERT_EQ(two.code, 0) << two.text;
  EXPECT_NE(two.text.find("jobs in both: 60 (only in A: 0, only in B: 0)"), std::string::npos) << two.text;
  EXPECT_EQ(two.text.find("note: these rows mix"), std::string::npos) << two.text;
  EXPECT_TRUE(std::filesystem::exists(d + "/compare.csv"));
  // simulate's own table says when its rows mix models.
  const auto mix = test::shell(bin + " simulate --cluster synergy128 --trace " + std::string(RM_SHARED_DIR) +
                               "/traces/tiresias/60_job.csv --policy fifo --policy synergy-tune -q --out " + d + "/mix 2>&1");
  ASSERT_EQ(mix.code, 0) << mix.text;
  EXPECT_NE(mix.text.find("note: these rows mix execution / performance models (rate / analytic, round / "
                          "synergy-profiles)"),
            std::string::npos) << mix.text;
  const auto bad = test::shell(bin + " compare " + d + "/nothing 2>&1");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.text.find("nothing: not a folder"), std::string::npos) << bad.text;
}

}  // namespace
}  // namespace rm
