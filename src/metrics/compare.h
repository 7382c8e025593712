// `ringmaster compare A B`: two runs' jobs.csv side by side (a simulation and a live replay of the same
// trace, or any two runs): per-job JCT difference, the averages, and whether the jobs started in the same order.
#pragma once
#include <string>
#include <vector>

namespace rm {

// The report as text; throws InputError naming the file when a jobs.csv is missing or malformed.
std::string compare_runs(const std::string& dir_a, const std::string& dir_b);

}  // namespace rm

namespace rm {

// `ringmaster compare DIR...`: one row per run of any number of run folders (simulate, replay, serve), multi-policy
// simulate folders (one row per policy) and sweeps (one row per complete run, with its parameters): the execution
// model, performance model and policy of each, and the figures papers report. `text` is the table to print, `csv`
// and `markdown` the same rows; `mixed` names what the rows mix (execution or performance models), or "".
struct CompareTable {
  std::string text, csv, markdown, mixed;
  int rows = 0;
};
CompareTable compare_table(const std::vector<std::string>& dirs);

}  // namespace rm
