// Issue 42's first contract item: the peers' policies are listed (`list-policies --compat tiresias|gavel`) and a
// misspelt one gets a "did you mean", from one table per peer that parsing and listing share.
#include <gtest/gtest.h>

#include "peers/gavel/gavel_sim.h"
#include "peers/tiresias/tiresias_sim.h"
#include "run/run_plan.h"
#include "test_util.h"

namespace rm {
namespace {

TEST(PeerRegistry, ListPoliciesCompatListsEachPeersOwnPolicies) {
  const auto t = test::shell(std::string(RM_BINARY) + " list-policies --compat tiresias");
  ASSERT_EQ(t.code, 0) << t.text;
  for (const auto& [name, help] : tiresias_policies()) EXPECT_NE(t.text.find(name), std::string::npos) << name;
  EXPECT_NE(t.text.find("dlas-gpu+yarn|count"), std::string::npos) << t.text;
  const auto g = test::shell(std::string(RM_BINARY) + " list-policies --compat gavel");
  ASSERT_EQ(g.code, 0) << g.text;
  EXPECT_EQ(gavel_policies().size(), 11u);
  for (const auto& [name, help] : gavel_policies()) EXPECT_NE(g.text.find("  " + name + " "), std::string::npos) << name;
  const auto bad = test::shell(std::string(RM_BINARY) + " list-policies --compat gavl");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.text.find("did you mean 'gavel'"), std::string::npos) << bad.text;
}

TEST(PeerRegistry, AMisspeltPeerPolicyGetsADidYouMean) {
  const std::string shared = RM_SHARED_DIR;
  const auto g = test::shell(std::string(RM_BINARY) + " simulate --compat gavel --cluster gavel:16:0:0 --trace " + shared +
                             "/traces/philly-gavel-vc/physical_cluster/max_min_fairness.trace --format gavel --policy "
                             "max_min_fairnes --data-dir " + shared + "/traces --out " + test::temp_dir() + "/g");
  EXPECT_EQ(g.code, 2);
  EXPECT_NE(g.text.find("did you mean 'max_min_fairness'"), std::string::npos) << g.text;
  EXPECT_THROW(parse_tiresias_policy("dlas-gpux+count"), InputError);
  try {
    parse_tiresias_policy("dlas-gpux+count");
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'dlas-gpu'"), std::string::npos) << e.what();
  }
  try {
    parse_tiresias_policy("dlas-gpu+cont");
    FAIL() << "a misspelt scheme";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'count'"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(parse_tiresias_policy("dlas-gpu-8+count"));  // the peer's starvation knob by name
  EXPECT_NO_THROW(parse_gavel_policy("max_min_fairness_perf"));
}

// Tiresias' parameters are checked when the policy string is parsed, not when the run reaches them.
TEST(PeerRegistry, TiresiasParametersAreCheckedAtParse) {
  EXPECT_NO_THROW(parse_tiresias_policy("dlas-gpu:limits=3250,7200;starvation=8+count"));
  for (const char* bad : {"dlas-gpu:limits=1+count", "dlas-gpu:limits=1.5,2+count", "dlas-gpu:starvation=-1+count",
                          "dlas-gpu:limit=3250,7200+count"}) {
    EXPECT_THROW(parse_tiresias_policy(bad), InputError) << bad;
    SimConfig cfg;
    cfg.compat = "tiresias";
    cfg.policy = bad;
    EXPECT_THROW(make_run_plan(cfg), InputError) << bad;  // before any input file is read
  }
}

}  // namespace
}  // namespace rm
