// Synergy replay CSV (shared/goldens/synergy): no header, job_id,model_name,arrival_s,total_iterations,gpu_demand.
// Models resolve to the catalogue's synergy: rows.
#include "core/error.h"
#include "workload/limits.h"
#include "workload/parse_util.h"
#include "workload/table_reader.h"
#include "workload/trace.h"

namespace rm {

void read_synergy(TableReader& t, Workload& w) {
  std::vector<std::string> row;
  while (t.next(row)) per_row(w, [&] {
    t.check_fields(row, {"job_id", "model_name", "arrival_s", "total_iterations", "gpu_demand"}, "comma");
    JobSpec j;
    RawTimes raw;
    j.name = std::to_string(parse_int(row[0], t.file(), t.line(), "job_id"));  // integers (the round model's ids)
    j.model = row[1];
    if (j.model.empty()) throw InputError(t.file(), t.line(), "model_name", "empty");
    raw.submit_s = parse_in_range(row[2], 0, limits::kMaxSubmitS, t.file(), t.line(), "arrival_s");
    j.submit = from_seconds(raw.submit_s);
    j.iterations = static_cast<double>(parse_int(row[3], t.file(), t.line(), "total_iterations"));
    if (j.iterations <= 0) throw InputError(t.file(), t.line(), "total_iterations", "must be > 0");
    if (j.iterations > limits::kMaxIterations)
      throw InputError(t.file(), t.line(), "total_iterations", "'" + row[3] + "' is out of range (at most 1e13)");
    j.num_gpus = parse_int32(row[4], t.file(), t.line(), "gpu_demand");
    add_job(w, std::move(j), raw, "synergy", t);
  });
}

}  // namespace rm
