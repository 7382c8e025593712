// Synergy replay CSV (shared/goldens/synergy): no header, job_id,model_name,arrival_s,total_iterations,gpu_demand.
// Models resolve to the catalogue's synergy: rows.
#include "core/error.h"
#include "workload/parse_util.h"
#include "workload/table_reader.h"
#include "workload/trace.h"

namespace rm {

void read_synergy(TableReader& t, Workload& w) {
  std::vector<std::string> row;
  while (t.next(row)) per_row(w, [&] {
    if (row.size() != 5)
      throw InputError(t.file(), t.line(), "", "expected 5 fields (job_id,model,arrival_s,iterations,gpus), got " +
                                                   std::to_string(row.size()));
    JobSpec j;
    j.name = row[0];
    j.model = row[1];
    j.submit = from_seconds(parse_double(row[2], t.file(), t.line(), "arrival_s"));
    j.iterations = parse_double(row[3], t.file(), t.line(), "total_iterations");
    if (j.iterations <= 0) throw InputError(t.file(), t.line(), "total_iterations", "must be > 0");
    j.num_gpus = static_cast<int>(parse_int(row[4], t.file(), t.line(), "gpu_demand"));
    add_job(w, std::move(j), RawTimes{}, "synergy", t);
  });
}

}  // namespace rm
