// Issue 42's first contract item: the peers' policies are listed (`list-policies --compat tiresias|gavel`) and a
// misspelt one gets a "did you mean", from one table per peer that parsing and listing share.
#include <gtest/gtest.h>

#include "peers/gavel/gavel_sim.h"
#include "peers/tiresias/tiresias_sim.h"
#include "run/peer_registry.h"
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

namespace rm {
namespace {

// Goal 2: one reader per trace format. Gavel's format is read by workload/trace_gavel.h for our models and for the
// peer: a bad row is refused alike, naming the same file, line and field.
TEST(PeerRegistry, GavelsTraceFormatHasOneReaderForOurModelsAndThePeer) {
  const std::string shared = RM_SHARED_DIR;
  const std::string dir = test::temp_dir();
  const std::string trace = test::write_file(dir, "bad.trace",
                   "ResNet-18 (batch size 64)\tcmd\twd\t--num_steps\t1\t1000\t1\t1\t-1\t0\n"
                   "ResNet-18 (batch size 64)\tcmd\twd\t--num_steps\t1\t1000\t0\t1\t-1\t10\n");
  for (const std::string compat : {"", "--compat gavel "}) {
    const auto r = test::shell(std::string(RM_BINARY) + " simulate " + compat + "--cluster gavel:16:0:0 --trace " +
                               trace + " --format gavel --policy fifo --data-dir " + shared + "/traces --out " + dir +
                               "/o");
    EXPECT_EQ(r.code, 2) << compat << r.text;
    EXPECT_NE(r.text.find(trace + ":2:scale_factor: must be >= 1 (GPUs)"), std::string::npos) << compat << r.text;
  }
}

// Every peer has one registry entry that the run plan, simulate and list-policies read.
TEST(PeerRegistry, EveryPeerHasOneEntryThatParsesItsOwnListedPolicies) {
  ASSERT_EQ(peer_registry().size(), 4u);  // tiresias, gavel, pollux, sia
  for (const auto& p : peer_registry()) {
    EXPECT_EQ(find_peer(p.name), &p);
    EXPECT_EQ(find_peer(p.compat), &p);
    ASSERT_FALSE(p.policies().empty()) << p.name;
    for (const auto& [name, help] : p.policies()) {
      if (name.find("-N") != std::string::npos) continue;  // a family (dlas-gpu-N), not a name
      const std::string text = p.compat == Compat::Tiresias ? name.substr(0, name.find('+')) + "+count" : name;
      EXPECT_NO_THROW(p.parse_policy(text)) << p.name << " " << text;
    }
  }
  EXPECT_EQ(find_peer(Compat::Synergy), nullptr);  // runs the registry's policies on our models
  EXPECT_EQ(find_peer("tiresia"), nullptr);
}

}  // namespace
}  // namespace rm
