// `ringmaster compare DIR...` (issue 29): one table across run folders, multi-policy folders and sweeps, with each
// row's execution model, perf model and policy, written as CSV and Markdown; mixed models said; two single runs also
// side by side per job.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

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

TEST(CompareTable, SeedsPooledWithConfidenceIntervalsAndPairedAgainstABaseline) {
  // Issue 46: --ci pools the runs that differ only in their seed (mean, 95 % CI by Student's t); --baseline pairs
  // each run with the baseline's run of the same seed: per-seed ratios, their mean and CI. Checked against the
  // numbers of the runs' own summary.json, computed here.
  const std::string d = test::temp_dir();
  const std::string bin = RM_BINARY;
  ASSERT_EQ(test::shell(bin + " sweep --cluster luo128 --workload luo2025 --jobs 200 --policy fifo --policy srtf --load 0.8 "
                              "--seeds 1-3 -q --out " + d + "/sw 2>&1").code, 0);
  // The grid: policy-major, then seed (fifo 1..3, srtf 1..3).
  const auto jct = [&](int index) {
    return nlohmann::json::parse(test::read_file(d + "/sw/runs/" + fmt::format("{:05d}", index) + "/summary.json"))["avg_jct_s"]
        .get<double>();
  };
  std::vector<double> fifo, srtf, ratio;
  for (int i = 0; i < 3; ++i) {
    fifo.push_back(jct(i));
    srtf.push_back(jct(3 + i));
    ratio.push_back(srtf.back() / fifo.back());
  }
  const auto mean = [](const std::vector<double>& v) { return (v[0] + v[1] + v[2]) / 3; };
  const auto half = [&](const std::vector<double>& v) {  // t(0.975, 2) = 4.303
    double ss = 0;
    for (double x : v) ss += (x - mean(v)) * (x - mean(v));
    return 4.303 * std::sqrt(ss / 2) / std::sqrt(3.0);
  };
  ASSERT_NE(fifo[0], fifo[1]);  // the seed changes the workload: a spread to have an interval of
  const auto r = test::shell("cd " + d + " && " + bin + " compare sw --ci --baseline fifo --out t 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string csv = test::read_file(d + "/t.csv");
  EXPECT_EQ(csv.substr(0, csv.find(",jobs,")), "source,policy,exec,perf_model,cluster,trace,seeds") << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;  // header + fifo + srtf
  // A CSV's value in the row that starts with row_start, under the header's column (no quoted fields here).
  const auto field = [](const std::string& text, const std::string& row_start, const std::string& column) {
    const auto head = text.substr(0, text.find('\n'));
    std::vector<std::string> h, v;
    for (std::string x; const char c : head + ",") c == ',' ? (h.push_back(x), x.clear()) : void(x += c);
    const auto at = text.find("\n" + row_start);
    if (at == std::string::npos) return std::nan("");
    const auto line = text.substr(at + 1, text.find('\n', at + 1) - at - 1);
    for (std::string x; const char c : line + ",") c == ',' ? (v.push_back(x), x.clear()) : void(x += c);
    const auto k = std::find(h.begin(), h.end(), column) - h.begin();
    return k < static_cast<long>(v.size()) && !v[k].empty() ? std::stod(v[k]) : std::nan("");
  };
  const std::string sw = d + "/sw";
  EXPECT_NEAR(field(csv, "sw,srtf,", "avg_jct_s"), mean(srtf), 1e-6 * mean(srtf)) << csv;
  EXPECT_NEAR(field(csv, "sw,srtf,", "avg_jct_s_ci95"), half(srtf), 1e-3 * half(srtf)) << csv;
  EXPECT_NEAR(field(csv, "sw,fifo,", "avg_jct_s_ci95"), half(fifo), 1e-3 * half(fifo)) << csv;
  EXPECT_NE(r.text.find(" ± "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("95 % confidence interval (Student's t)"), std::string::npos) << r.text;
  const std::string paired = test::read_file(d + "/t.paired.csv");
  EXPECT_EQ(std::count(paired.begin(), paired.end(), '\n'), 2) << paired;  // header + srtf (fifo is the baseline)
  EXPECT_NEAR(field(paired, "sw,srtf,", "avg_jct_s_ratio"), mean(ratio), 1e-9) << paired;
  EXPECT_NEAR(field(paired, "sw,srtf,", "avg_jct_s_ratio_ci95"), half(ratio), 1e-3 * half(ratio)) << paired;
  EXPECT_EQ(field(paired, "sw,srtf,", "avg_jct_s_below_1"),
            std::count_if(ratio.begin(), ratio.end(), [](double x) { return x < 1; })) << paired;
  EXPECT_NE(test::read_file(d + "/t.md").find("against fifo: each run's metric over fifo's"), std::string::npos);
  // A baseline no folder holds names the policies there; --metrics without a baseline is refused.
  const auto bad = test::shell(bin + " compare " + sw + " --baseline srsf --out " + d + "/x 2>&1");
  EXPECT_EQ(bad.code, 2) << bad.text;
  EXPECT_NE(bad.text.find("no run of this policy in these folders (their policies: fifo, srtf)"), std::string::npos)
      << bad.text;
  EXPECT_EQ(test::shell(bin + " compare " + sw + " --metrics p99_jct_s --out " + d + "/x 2>&1").code, 2);
  const auto nokey = test::shell(bin + " compare " + sw + " --baseline fifo --metrics nokey --out " + d + "/x 2>&1");
  EXPECT_EQ(nokey.code, 2) << nokey.text;
  EXPECT_NE(nokey.text.find("no run's summary.json has this number"), std::string::npos) << nokey.text;
}

}  // namespace
}  // namespace rm
