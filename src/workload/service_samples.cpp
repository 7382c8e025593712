#include "workload/service_samples.h"

#include <cmath>

#include "core/error.h"
#include "workload/parse_util.h"
#include "workload/table_reader.h"

namespace rm {

std::vector<double> read_service_samples(const std::string& path, bool whole, std::size_t min_samples) {
  const std::string text = TableReader::load(path);
  TableReader t(path, ',', &text);
  std::vector<std::string> row;
  if (!t.next(row)) throw InputError(path, 0, "", "empty distribution file");
  t.set_header(row);
  if (!t.column("duration")) throw InputError(path, t.line(), "duration", "required column missing");
  std::vector<double> d;
  while (t.next(row)) {
    const std::string f = t.require(row, "duration");
    const double v = whole ? parse_int32(f, path, t.line(), "duration") : parse_double(f, path, t.line(), "duration");
    if (!(v > 0) || !std::isfinite(v))
      throw InputError(path, t.line(), "duration", whole ? "must be a positive integer" : "must be a positive number");
    d.push_back(v);
  }
  if (d.size() < min_samples)
    throw InputError(path, t.line(), "duration", "needs at least " + std::to_string(min_samples) + " sample(s)");
  return d;
}

}  // namespace rm
