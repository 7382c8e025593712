// Gavel traces (shared/traces/philly-gavel-vc): tab-separated, no header, 7 columns
// job_type, command, num_steps_arg, needs_data_dir, total_steps, arrival_time (s), scale_factor (#GPUs), or Gavel's
// own 10 (physical_cluster/*.trace).
// job_type is "<Model> (batch size <B>)"; models resolve to the catalogue's gavel: rows.
#include "core/error.h"
#include "workload/limits.h"
#include "workload/parse_util.h"
#include "workload/table_reader.h"
#include "workload/trace.h"

namespace rm {

void read_gavel(TableReader& t, Workload& w) {
  std::vector<std::string> row;
  while (t.next(row)) per_row(w, [&] {
    // 10 columns (Gavel's utils.parse_trace: job_type, command, working_directory, num_steps_arg, needs_data_dir,
    // total_steps, scale_factor, priority_weight, SLO, arrival_time) or the msr traces' 7.
    const bool ten = row.size() == 10;
    if (!ten)
      t.check_fields(row, {"job_type", "command", "num_steps_arg", "needs_data_dir", "total_steps", "arrival_time",
                           "scale_factor"}, "tab");
    JobSpec j;
    const std::string& type = row[0];
    const auto paren = type.find(" (batch size ");
    j.model = trim(type.substr(0, paren));
    if (j.model.empty()) throw InputError(t.file(), t.line(), "job_type", "empty");
    if (paren != std::string::npos) {
      const auto close = type.find(')', paren);
      j.batch_size = parse_int32(type.substr(paren + 13, close - paren - 13), t.file(), t.line(), "job_type.batch_size");
    }
    j.iterations = parse_in_range(row[ten ? 5 : 4], 0, limits::kMaxIterations, t.file(), t.line(), "total_steps");
    if (j.iterations <= 0) throw InputError(t.file(), t.line(), "total_steps", "must be > 0");
    j.submit = parse_submit(row[ten ? 9 : 5], 1.0, 1.0, t.file(), t.line(), "arrival_time");
    j.num_gpus = parse_int32(row[6], t.file(), t.line(), "scale_factor");
    // Gavel counts every worker's steps (its simulator splits a micro-task's steps over the job's workers, G10 of
    // shared/goldens/peers/gavel): an iteration, one step of every worker, is scale_factor of them.
    if (j.num_gpus > 0) j.iterations /= j.num_gpus;
    add_job(w, std::move(j), RawTimes{}, "gavel", t);
  });
}

}  // namespace rm
