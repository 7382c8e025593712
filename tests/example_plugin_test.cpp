// The "write your own policy" example of docs/policies.md, compiled and tested as shown there.
#include <gtest/gtest.h>

#include "policy/composed_scheduler.h"
#include "policy/order/orders.h"
#include "policy/placement/placements.h"
#include "test_util.h"

namespace rm {
// Widest first: the job asking for the most GPUs runs first (ties: submit time, then id). Non-preemptive.
class WidestFirst final : public QueueOrder {
 public:
  std::string name() const override { return "widest-first"; }
  double key(const JobState& j, Time /*now*/) const override { return -j.spec->num_gpus; }
};

std::unique_ptr<Scheduler> make_widest_first() {
  PluginParams none("first-fit", {}, 1);
  return std::make_unique<ComposedScheduler>("widest-first", std::make_unique<WidestFirst>(),
                                             make_first_fit(none), ComposedOptions{false, true});
}
}  // namespace rm

namespace rm {
namespace {

TEST(ExamplePlugin, WidestFirstRunsTheWidestWaitingJob) {
  const auto c = test::cluster(1, 4);
  const auto specs = test::jobs(c, {"a,0,4,1000,100", "b,10,1,1000,100", "c,10,4,1000,100"});
  auto sched = make_widest_first();
  Engine e(c, specs, *sched, make_rate_model(c));
  e.run();
  EXPECT_DOUBLE_EQ(to_seconds(e.jobs()[2].finish), 200);  // c: 100 .. 200
  EXPECT_DOUBLE_EQ(to_seconds(e.jobs()[1].finish), 300);  // b: 200 .. 300
}

TEST(ExamplePlugin, FifoWithBackfillWouldRunTheNarrowOneFirst) {  // the same case under fifo-backfill
  const auto c = test::cluster(1, 4);
  auto r = test::run(c, {"a,0,4,1000,100", "b,10,1,1000,100", "c,10,4,1000,100"}, "fifo-backfill");
  EXPECT_DOUBLE_EQ(r->finish("b"), 200);
  EXPECT_DOUBLE_EQ(r->finish("c"), 300);
}

}  // namespace
}  // namespace rm
