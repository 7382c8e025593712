// Gavel traces (shared/traces/philly-gavel-vc): the format in workload/trace_gavel.h.
#include "workload/trace_gavel.h"

#include <cmath>

#include "core/error.h"
#include "workload/limits.h"
#include "workload/parse_util.h"
#include "workload/trace.h"

namespace rm {

GavelRow read_gavel_row(const TableReader& t, const std::vector<std::string>& row) {
  const bool ten = row.size() == 10;
  if (!ten)
    t.check_fields(row, {"job_type", "command", "num_steps_arg", "needs_data_dir", "total_steps", "arrival_time",
                         "scale_factor"}, "tab");
  GavelRow g;
  g.job_type = row[0];
  const auto paren = g.job_type.find(" (batch size ");
  g.model = trim(g.job_type.substr(0, paren));
  if (g.model.empty()) throw InputError(t.file(), t.line(), "job_type", "empty");
  if (paren != std::string::npos) {
    const auto close = g.job_type.find(')', paren);
    g.batch_size = parse_int32(g.job_type.substr(paren + 13, close - paren - 13), t.file(), t.line(), "job_type.batch_size");
  }
  g.total_steps = parse_in_range(row[ten ? 5 : 4], 0, limits::kMaxIterations, t.file(), t.line(), "total_steps");
  if (g.total_steps <= 0) throw InputError(t.file(), t.line(), "total_steps", "must be > 0");
  g.scale_factor = parse_int32(row[6], t.file(), t.line(), "scale_factor");
  if (g.scale_factor < 1) throw InputError(t.file(), t.line(), "scale_factor", "must be >= 1 (GPUs)");
  if (ten) g.priority_weight = parse_double(row[7], t.file(), t.line(), "priority_weight");
  if (!(g.priority_weight > 0) || !std::isfinite(g.priority_weight))
    throw InputError(t.file(), t.line(), "priority_weight", "must be a positive number");
  g.arrival_s = parse_submit_s(row[ten ? 9 : 5], 1.0, 1.0, t.file(), t.line(), "arrival_time");
  return g;
}

// job_type resolves to the catalogue's gavel: rows.
void read_gavel(TableReader& t, Workload& w) {
  std::vector<std::string> row;
  while (t.next(row)) per_row(w, [&] {
    const GavelRow g = read_gavel_row(t, row);
    JobSpec j;
    j.model = g.model;
    j.batch_size = g.batch_size;
    j.submit = from_seconds(g.arrival_s);
    j.num_gpus = g.scale_factor;
    // Gavel counts every worker's steps (its simulator splits a micro-task's steps over the job's workers, G10 of
    // shared/goldens/peers/gavel): an iteration, one step of every worker, is scale_factor of them.
    j.iterations = g.total_steps / j.num_gpus;
    add_job(w, std::move(j), RawTimes{}, "gavel", t);
  });
}

}  // namespace rm
