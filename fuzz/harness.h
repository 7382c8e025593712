// The fuzz targets (issue 15): every trace reader, the cluster YAML reader and the policy-string parser, each
// followed by a bounded simulation of what it accepted. An input is fine when it is rejected with an InputError
// (a clear file:line:field message) or simulated to the end; anything else (InvariantError, any other
// exception, a sanitizer report, a hang) is a bug. Used by libFuzzer (fuzz_main.cpp, clang) and by
// fuzz_replay (replay_main.cpp, any compiler), which runs the seed corpus and the regression cases in ctest.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rm::fuzz {

// The targets: trace_canonical, trace_philly, trace_tiresias, trace_gavel, trace_synergy, trace_wang2020,
// trace_pollux (--compat pollux), cluster_yaml, policy.
const std::vector<std::string>& targets();

// Runs one input through `target`. Returns normally when the input was rejected cleanly or simulated; throws
// (or the sanitizers abort) on a bug.
void run_one(const std::string& target, const std::uint8_t* data, std::size_t size);

}  // namespace rm::fuzz
