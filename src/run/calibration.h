// The analytic law checked against measurements (issue 26 goal 6; docs/perf-model.md "Validation"):
//   1. its communication constants (intra-server and network bandwidth, per-step latency) fitted on Pollux's and
//      Gavel's multi-GPU step times, each step predicted as the same local batch's one-GPU step (the tables'
//      own compute, so only the communication is the law's) plus the ring all-reduce of the job's gradient
//      (the catalogue's grad_mb) over its placement (exec/comm_model.h);
//   2. the same constants, not refitted, against Sia's tables on every GPU type Sia measured;
//   3. the contention term against DeepShare's pairwise throughput ratios: the law slows a job sharing a NIC
//      with one other split job to 1 / (1 + f (1 + a)) of its speed (f: its communication share alone, a: the
//      contention constant); DeepShare gives neither f nor a, so g = f (1 + a) is fitted per model on half the
//      configurations and the error reported on the other half.
// `ringmaster calibrate` prints the tables and writes them under --out.
#pragma once
#include <string>
#include <vector>

#include "exec/perf_model.h"

namespace rm {

struct LawConstants {
  double intra_gbps = 0, net_gbps = 0, latency_us = 0;  // intra_gbps infinite: free inside a server
};

struct CalibrationPoint {
  MeasuredStep m;
  double grad_mb = 0;
  double predicted_s = 0;  // under the fitted constants
  bool spread() const { return m.shape.size() > 1; }
  double error() const { return predicted_s / m.step_s - 1; }
};

// Relative errors of one group (source, type, application, packed or spread).
struct ErrorRow {
  std::string source, type, app, placement;  // placement: "packed" (one server) or "spread"
  int points = 0;
  double median_abs = 0, p90_abs = 0, median = 0;  // |predicted / measured - 1|, and its signed median
  double median_abs_no_comm = 0;                   // the same for "no communication" (the one-GPU step)
};

struct ContentionRow {
  std::string model;
  double g = 0;                  // fitted on the calibration half
  int test_pairs = 0;
  double median_abs = 0, p90_abs = 0;  // on the test half
  double median_abs_no_contention = 0;
};

struct CalibrationReport {
  LawConstants fitted;
  std::vector<CalibrationPoint> points;  // calibration (pollux, gavel) then validation (sia)
  std::vector<ErrorRow> rows;            // per group
  std::vector<ErrorRow> totals;          // per source (sia: per type too), app "all"
  // Diagnosis, not the law's constants: each Sia type refitted on its own steps (in sample), to tell an error of
  // the constants (another network) from one of the law's form.
  std::vector<std::pair<LawConstants, ErrorRow>> refit;
  std::vector<ContentionRow> contention;
  ContentionRow contention_total;
  std::vector<std::string> skipped;      // applications without a gradient size, and why
};

// Reads every table under data_dir (InputError naming the file where one is missing or malformed).
CalibrationReport calibrate(const std::string& data_dir);

}  // namespace rm
