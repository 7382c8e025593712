// `ringmaster compare A B`: two runs' jobs.csv side by side (a simulation and a live replay of the same
// trace, or any two runs): per-job JCT difference, the averages, and whether the jobs started in the same order.
#pragma once
#include <string>

namespace rm {

// The report as text; throws InputError naming the file when a jobs.csv is missing or malformed.
std::string compare_runs(const std::string& dir_a, const std::string& dir_b);

}  // namespace rm
