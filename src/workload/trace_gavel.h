// Gavel's trace format, one reader for both of its users: ours (--format gavel: read_gavel in workload/trace.h,
// the catalogue's models) and Gavel's simulator reproduced (peers/gavel: its throughput keys, exact float seconds).
// Tab-separated, no header: Gavel's own 10 columns (utils.parse_trace, utils.py:500-521: job_type, command,
// working_directory, num_steps_arg, needs_data_dir, total_steps, scale_factor, priority_weight, SLO,
// arrival_time) or the msr traces' 7 (job_type, command, num_steps_arg, needs_data_dir, total_steps,
// arrival_time, scale_factor).
#pragma once
#include <string>
#include <vector>

#include "workload/table_reader.h"

namespace rm {

struct GavelRow {
  std::string job_type;        // "<Model> (batch size <B>)", Gavel's key
  std::string model;           // the part before " (batch size "
  int batch_size = 0;          // 0: not given
  double total_steps = 0;      // every worker's steps, > 0
  int scale_factor = 1;        // GPUs, >= 1
  double priority_weight = 1;  // > 0 (the 7-column traces: 1)
  double arrival_s = 0;        // seconds in [0, 1e10], as written
};

// The row `t` has just read, checked; InputError naming the file, line and field.
GavelRow read_gavel_row(const TableReader& t, const std::vector<std::string>& row);

}  // namespace rm
