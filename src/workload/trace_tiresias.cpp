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
  // Each column's place, found once (checked against every row's width below).
  const std::size_t c_id = *t.column("job_id"), c_gpu = *t.column("num_gpu"), c_submit = *t.column("submit_time"),
                    c_model = *t.column("model_name");
  const auto c_iter = t.column("iterations"), c_dur = t.column("duration"), c_bs = t.column("batch_size"),
             c_it = t.column("iteration_time");
  auto at = [&](std::size_t c, const char* col) -> const std::string& {  // a header naming a column twice: rows short
    if (c >= row.size())
      throw InputError(t.file(), t.line(), col, "row has " + std::to_string(row.size()) + " fields, fewer than the header's");
    return row[c];
  };
  auto num = [&](const std::optional<std::size_t>& c, const char* col) {  // a column the header has must be filled in
    return c ? parse_double(at(*c, col), t.file(), t.line(), col) : 0.0;
  };
  while (t.next(row)) per_row(w, [&] {
    t.check_width(row);
    JobSpec j;
    RawTimes raw;
    j.name = at(c_id, "job_id");
    j.num_gpus = parse_int32(at(c_gpu, "num_gpu"), t.file(), t.line(), "num_gpu");
    j.submit = parse_submit(at(c_submit, "submit_time"), unit, 1.0, t.file(), t.line(), "submit_time");
    j.model = at(c_model, "model_name");
    j.iterations = num(c_iter, "iterations");
    j.duration_s = num(c_dur, "duration") * unit;
    j.batch_size = to_int32(num(c_bs, "batch_size"), t.file(), t.line(), "batch_size");
    const double iteration_time = muri ? num(c_it, "iteration_time") : 0.0;
    if (muri && iteration_time > 0) raw.iter_time_s = iteration_time * 1e-3;
    else if (j.iterations > 0 && j.duration_s > 0) raw.iter_time_s = j.duration_s / j.iterations;
    add_job(w, std::move(j), raw, "", t);
  });
}

}  // namespace rm
