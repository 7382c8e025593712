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
struct CompareOptions {
  bool ci = false;                   // pool the runs that differ only in their seed: mean ± 95 % CI (t)
  std::string baseline;              // paired ratios against this policy (its label), seed by seed
  std::vector<std::string> metrics;  // the baseline's ratios of these summary.json numbers (default: avg, p50, p99 JCT)
};
// With a baseline, `paired_text` and `paired_csv` are the paired table (appended to `markdown`), `paired_caption`
// says what it holds; `notes` are lines to print under the tables.
struct CompareTable {
  std::string text, csv, markdown, mixed;
  std::string paired_text, paired_csv, paired_caption;
  std::vector<std::string> notes;
  int rows = 0;
};
CompareTable compare_table(const std::vector<std::string>& dirs, const CompareOptions& opt = {});

}  // namespace rm
