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
  auto num = [&](const char* col) {  // a column the header has must be filled in
    return t.column(col) ? parse_double(t.require(row, col), t.file(), t.line(), col) : 0.0;
  };
  while (t.next(row)) per_row(w, [&] {
    t.check_width(row);
    JobSpec j;
    RawTimes raw;
    j.name = t.require(row, "job_id");
    j.num_gpus = parse_int32(t.require(row, "num_gpu"), t.file(), t.line(), "num_gpu");
    j.submit = parse_submit(t.require(row, "submit_time"), unit, 1.0, t.file(), t.line(), "submit_time");
    j.model = t.require(row, "model_name");
    j.iterations = num("iterations");
    j.duration_s = num("duration") * unit;
    j.batch_size = to_int32(num("batch_size"), t.file(), t.line(), "batch_size");
    if (muri && num("iteration_time") > 0) raw.iter_time_s = num("iteration_time") * 1e-3;
    else if (j.iterations > 0 && j.duration_s > 0) raw.iter_time_s = j.duration_s / j.iterations;
    add_job(w, std::move(j), raw, "", t);
  });
}

}  // namespace rm
