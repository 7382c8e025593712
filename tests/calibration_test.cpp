// `ringmaster calibrate` (issue 26 goal 6): the analytic law's communication constants fitted on Pollux's and
// Gavel's tables, checked on Sia's, and its contention term on DeepShare's (run/calibration.h).
#include <gtest/gtest.h>

#include <cmath>

#include "run/calibration.h"
#include "test_util.h"

namespace rm {
namespace {

const std::string kData = std::string(RM_SHARED_DIR) + "/traces";

const CalibrationReport& report() {
  static const CalibrationReport r = calibrate(kData);
  return r;
}

const ErrorRow& total(const std::string& source, const std::string& type) {
  for (const auto& t : report().totals)
    if (t.source == source && t.type == type) return t;
  throw std::runtime_error("no total " + source + " " + type);
}

// Hand-checked from pollux/traces/cifar10/placements.csv: placement 22 (two T4 nodes, 2 GPUs each) at local batch
// 64 measured 0.1699998 s; placement 1 at 64: 0.05983336 s. The law: that plus a ring all-reduce of ResNet-18's
// 44.7 MB over 4 GPUs on the network: 2 x 3/4 x 44.7e6 x 8 bit / (net Gb/s) + 2 x 3 steps x latency.
TEST(Calibration, APointIsItsOneGpuStepPlusTheRingOverTheNetwork) {
  const auto& r = report();
  const CalibrationPoint* p = nullptr;
  for (const auto& x : r.points)
    if (x.m.source == "pollux" && x.m.app == "cifar10" && x.m.shape == std::vector<int>{2, 2} && x.m.local_bsz == 64) p = &x;
  ASSERT_NE(p, nullptr);
  EXPECT_NEAR(p->m.step_s, 0.1699998140335083, 1e-12);
  EXPECT_NEAR(p->m.single_s, 0.05983335971832275, 1e-12);
  EXPECT_DOUBLE_EQ(p->grad_mb, 44.7);
  const double expect = 0.05983335971832275 + 1.5 * 44.7 * 8e6 / (r.fitted.net_gbps * 1e9) + 6 * r.fitted.latency_us * 1e-6;
  EXPECT_NEAR(p->predicted_s, expect, 1e-12);
  EXPECT_TRUE(p->spread());
}

// The fit is worth having: on the tables it was fitted on, the law is closer than "no communication" (perfect
// scaling), and its constants are finite networks; Sia's types are checked, not refitted (A100 nodes' network is
// far faster than the fitted one, so the law over-predicts there).
TEST(Calibration, TheLawBeatsPerfectScalingWhereFittedAndIsCheckedOnSia) {
  const auto& r = report();
  EXPECT_GT(r.fitted.net_gbps, 1);
  EXPECT_LT(r.fitted.net_gbps, 400);
  for (const char* s : {"pollux", "gavel"}) {
    const ErrorRow& t = total(s, "all");
    EXPECT_GT(t.points, 300) << s;
    EXPECT_LT(t.median_abs, t.median_abs_no_comm) << s;
    EXPECT_LT(t.median_abs, 0.25) << s;
  }
  for (const char* type : {"t4", "v100", "a100", "rtx2080ti", "quadro-rtx6000"}) EXPECT_GT(total("sia", type).points, 100) << type;
  EXPECT_GT(total("sia", "a100").median, 0.5);  // over-predicted: a faster network than the fitted one
  EXPECT_EQ(r.refit.size(), 5u);
  for (const auto& s : r.skipped) EXPECT_EQ(s.find("sia:gpt_pmp"), std::string::npos);  // not loaded at all
}

// DeepShare: 6 models x 3 test configurations x 36 co-runners; g in [0, 1] per model.
TEST(Calibration, ContentionIsFittedOnHalfAndTestedOnTheOther) {
  const auto& r = report();
  ASSERT_EQ(r.contention.size(), 6u);
  for (const auto& c : r.contention) {
    EXPECT_EQ(c.test_pairs, 108) << c.model;
    EXPECT_GE(c.g, 0) << c.model;
    EXPECT_LE(c.g, 1) << c.model;
  }
  EXPECT_EQ(r.contention_total.test_pairs, 648);
  EXPECT_LT(r.contention_total.median_abs, r.contention_total.median_abs_no_contention);
}

TEST(Calibration, TheCommandWritesItsFilesAndNamesAMissingFolder) {
  const std::string dir = test::temp_dir();
  auto out = test::shell(std::string(RM_BINARY) + " calibrate --data-dir " + kData + " --out " + dir + " 2>&1");
  ASSERT_EQ(out.code, 0) << out.text;
  EXPECT_NE(out.text.find("Constants fitted on Pollux's and Gavel's tables"), std::string::npos);
  EXPECT_NE(test::read_file(dir + "/calibration.json").find("\"net_gbps\""), std::string::npos);
  EXPECT_EQ(test::read_file(dir + "/points.csv").rfind("source,gpu_type,app,placement,", 0), 0u);
  out = test::shell(std::string(RM_BINARY) + " calibrate --data-dir " + dir + "/nowhere 2>&1");
  EXPECT_EQ(out.code, 2) << out.text;
  EXPECT_NE(out.text.find("--data-dir"), std::string::npos) << out.text;
}

}  // namespace
}  // namespace rm
