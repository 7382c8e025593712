// peers/common/artifact_workload.h: the artifacts' workload CSV.
#include "peers/common/artifact_workload.h"

#include <cmath>

#include "core/error.h"
#include "core/pandas_float.h"
#include "workload/table_reader.h"

namespace rm {

std::vector<ArtifactRow> read_artifact_workload(const InputSpec& in, const std::string& compat, bool whole_times,
                                                std::vector<JobSpec>& specs) {
  if (in.format != "auto" && in.format != "pollux")
    throw InputError("--format", 0, in.format, "--compat " + compat + " reads the artifact's workloads: --format pollux (or auto)");
  const std::string text = TableReader::load(in.trace);
  TableReader t(in.trace, ',', &text);
  std::vector<std::string> row;
  if (!t.next(row)) throw InputError(in.trace, 0, "", "empty workload");
  t.set_header(row);
  for (const char* c : {"name", "time", "application", "num_replicas", "batch_size"})
    if (!t.column(c)) throw InputError(in.trace, t.line(), c, "required column missing (the artifact's workload CSV)");
  const bool has_category = t.column("category").has_value();
  auto number = [&](const std::string& field, double lo, bool whole) {
    const auto x = pandas_float(t.require(row, field));
    if (!x || !std::isfinite(*x) || (whole && *x != std::floor(*x)) || *x < lo || *x > 1e9)
      throw InputError(t.file(), t.line(), field,
                       whole ? "must be a whole number >= " + std::to_string(static_cast<long>(lo))
                             : "must be a number of seconds >= 0");
    return *x;
  };
  std::vector<ArtifactRow> out;
  while (t.next(row)) {
    if (in.max_jobs > 0 && static_cast<long>(out.size()) >= in.max_jobs) break;
    t.check_width(row);
    ArtifactRow a;
    a.time = number("time", 0, whole_times);
    a.replicas = static_cast<int>(number("num_replicas", 1, true));
    a.batch = static_cast<int>(number("batch_size", 1, true));
    a.app = t.require(row, "application");
    if (has_category) a.category = t.require(row, "category");
    a.file = t.file();
    a.line = t.line();
    JobSpec s;
    s.id = static_cast<JobId>(specs.size());
    s.name = t.require(row, "name");
    s.submit = from_seconds(a.time);
    s.num_gpus = a.replicas;
    s.model = a.app;
    s.file = a.file;
    s.line = a.line;
    if (!specs.empty() && s.submit < specs.back().submit)
      throw InputError(t.file(), t.line(), "time", "submit times go back: the workload must be in time order");
    specs.push_back(std::move(s));
    out.push_back(std::move(a));
  }
  if (out.empty()) throw InputError(in.trace, 0, "", "no jobs in the workload");
  return out;
}

}  // namespace rm
