// Tiresias CSV (shared/traces/tiresias): job_id,num_gpu,submit_time,iterations,model_name,duration,interval
// in seconds; Muri CSV (shared/traces/muri-philly) adds batch_size, iteration_time, ... in milliseconds
// (recognised by its iteration_time column). The trace's duration / iterations is the job's own
// isolated per-iteration time.
#include "core/error.h"
#include "workload/parse_util.h"
#include "workload/table_reader.h"
#include "workload/trace.h"

namespace rm {

void read_tiresias(TableReader& t, Workload& w) {
  std::vector<std::string> row;
  if (!t.next(row)) throw InputError(t.file(), 0, "", "empty file");
  t.set_header(row);
  for (const char* need : {"job_id", "num_gpu", "submit_time", "model_name"})
    if (!t.column(need)) throw InputError(t.file(), t.line(), need, "required column missing");
  const bool muri = t.column("iteration_time").has_value();
  const double unit = muri ? 1e-3 : 1.0;  // Muri writes milliseconds
  auto num = [&](const char* col) {
    const std::string s = t.get(row, col);
    return s.empty() ? 0.0 : parse_double(s, t.file(), t.line(), col);
  };
  while (t.next(row)) per_row(w, [&] {
    JobSpec j;
    RawTimes raw;
    j.name = t.require(row, "job_id");
    j.num_gpus = static_cast<int>(parse_int(t.require(row, "num_gpu"), t.file(), t.line(), "num_gpu"));
    j.submit = from_seconds(parse_double(t.require(row, "submit_time"), t.file(), t.line(), "submit_time") * unit);
    j.model = t.require(row, "model_name");
    j.iterations = num("iterations");
    j.duration_s = num("duration") * unit;
    j.batch_size = static_cast<int>(num("batch_size"));
    if (muri && num("iteration_time") > 0) raw.iter_time_s = num("iteration_time") * 1e-3;
    else if (j.iterations > 0 && j.duration_s > 0) raw.iter_time_s = j.duration_s / j.iterations;
    add_job(w, std::move(j), raw, "", t);
  });
}

}  // namespace rm
