// ringmaster's canonical CSV (docs/formats.md).
#include <set>

#include "core/error.h"
#include "workload/parse_util.h"
#include "workload/table_reader.h"
#include "workload/trace.h"

namespace rm {

void read_canonical(TableReader& t, Workload& w) {
  static const std::set<std::string> known = {"job_id", "submit_s", "num_gpus", "model", "iterations",
                                              "duration_s", "batch_size", "user", "recurrence_key",
                                              "compute_ms", "grad_mb", "gpu_mem_mb", "dp", "pp", "tp", "gpu_type"};
  std::vector<std::string> row;
  if (!t.next(row)) throw InputError(t.file(), 0, "", "empty file");
  for (const auto& h : row)
    if (!known.count(h)) throw InputError(t.file(), t.line(), h, "unknown column");
  t.set_header(row);
  for (const char* need : {"job_id", "submit_s", "num_gpus", "model"})
    if (!t.column(need)) throw InputError(t.file(), t.line(), need, "required column missing");
  if (!t.column("iterations") && !t.column("duration_s"))
    throw InputError(t.file(), t.line(), "iterations", "need an iterations or a duration_s column");
  auto num = [&](const std::string& col, double dflt) {
    const std::string s = t.get(row, col);
    return s.empty() ? dflt : parse_double(s, t.file(), t.line(), col);
  };
  while (t.next(row)) per_row(w, [&] {
    t.check_width(row);
    JobSpec j;
    RawTimes raw;
    j.name = t.require(row, "job_id");
    if (j.name.empty()) throw InputError(t.file(), t.line(), "job_id", "empty");
    j.submit = parse_submit(t.require(row, "submit_s"), 1.0, 1.0, t.file(), t.line(), "submit_s");
    j.num_gpus = parse_int32(t.require(row, "num_gpus"), t.file(), t.line(), "num_gpus");
    j.model = t.require(row, "model");
    j.iterations = num("iterations", 0);
    j.duration_s = num("duration_s", 0);
    if (j.iterations > 0 && j.duration_s > 0) raw.iter_time_s = j.duration_s / j.iterations;
    j.batch_size = to_int32(num("batch_size", 0), t.file(), t.line(), "batch_size");
    j.user = t.get(row, "user");
    j.recurrence_key = t.get(row, "recurrence_key");
    j.gpu_type = trim(t.get(row, "gpu_type"));
    raw.compute_s = num("compute_ms", 0) / 1000.0;
    raw.grad_mb = num("grad_mb", -1);
    raw.gpu_mem_mb = num("gpu_mem_mb", -1);
    j.dp = to_int32(num("dp", 0), t.file(), t.line(), "dp");
    j.pp = to_int32(num("pp", 1), t.file(), t.line(), "pp");
    j.tp = to_int32(num("tp", 1), t.file(), t.line(), "tp");
    if (j.pp < 1 || j.tp < 1 || j.dp < 0) throw InputError(t.file(), t.line(), "dp", "bad parallel config");
    add_job(w, std::move(j), raw, "", t);
  });
}

}  // namespace rm
