// --compat sia (issue 44 goal 4): all eight Philly workloads of Sia's artifact under sia and gavel, job by job and
// round by round against the shim-run authors' simulator (tests/data/sia), and Sia and Gavel on the 10 Saturn workloads.
// Philly workload 1 runs in the main suite too.
#include "../sia_golden_check.h"

namespace {

class SiaGoldens : public ::testing::TestWithParam<std::string> {};

TEST_P(SiaGoldens, SiaAndGavelOnAllPhillyWorkloads) {
  for (int w = 1; w <= 8; ++w) rm::sia_golden::check(GetParam(), "philly/workload-" + std::to_string(w));
}

INSTANTIATE_TEST_SUITE_P(Policies, SiaGoldens, ::testing::Values("sia", "gavel"));

// Runs of the shim-run simulator made after --compat sia was written (never used to develop it): Gavel on the 10
// Helios-Saturn workloads (1,600 jobs), Sia on newtrace workload 1 (960 jobs, 48 h, fractional arrival times).
TEST(SiaGoldensHeldOut, GavelOnAllSaturnWorkloads) {
  for (int w = 1; w <= 10; ++w) rm::sia_golden::check("gavel", "saturn/workload-" + std::to_string(w));
}

// Sia on the 10 Saturn workloads (1,600 jobs), run with the authors' simulator in session 20, held out likewise.
TEST(SiaGoldensHeldOut, SiaOnAllSaturnWorkloads) {
  for (int w = 1; w <= 10; ++w) rm::sia_golden::check("sia", "saturn/workload-" + std::to_string(w));
}

TEST(SiaGoldensHeldOut, SiaOnNewtraceWorkloadOne) { rm::sia_golden::check("sia", "newtrace/workload-1"); }

}  // namespace
