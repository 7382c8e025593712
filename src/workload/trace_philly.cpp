// The Philly job list (shared/traces/philly-jobs): timestamp,duration,num_gpus,gpu_time,cluster.
// Submit times are made relative to the earliest timestamp. No model: resolve_workload assigns one.
#include <algorithm>
#include <cstdio>

#include "core/error.h"
#include "workload/limits.h"
#include "workload/parse_util.h"
#include "workload/table_reader.h"
#include "workload/trace.h"

namespace rm {
namespace {

// The digits of s[at, at + n) as a number, or -1 if any is not a digit.
int digits(const std::string& s, std::size_t at, std::size_t n) {
  int v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

long long parse_timestamp(const std::string& s, const TableReader& t) {
  int y = -1, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  char tail;
  // The list's own form, YYYY-MM-DD HH:MM:SS, read digit by digit (issue 47: sscanf per row was most of reading the
  // list); anything else (fewer digits, spaces) as sscanf reads it, with the same checks after.
  const bool canonical = s.size() == 19 && s[4] == '-' && s[7] == '-' && s[10] == ' ' && s[13] == ':' &&
                         s[16] == ':' && (y = digits(s, 0, 4)) >= 0 && (mo = digits(s, 5, 2)) >= 0 &&
                         (d = digits(s, 8, 2)) >= 0 && (h = digits(s, 11, 2)) >= 0 && (mi = digits(s, 14, 2)) >= 0 &&
                         (se = digits(s, 17, 2)) >= 0;
  if (!canonical && std::sscanf(s.c_str(), "%4d-%2d-%2d %2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &se, &tail) != 6) y = -1;
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 60)
    throw InputError(t.file(), t.line(), "timestamp", "'" + s + "' is not YYYY-MM-DD HH:MM:SS (year 1970 or later)");
  return days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
}

}  // namespace

void read_philly(TableReader& t, Workload& w) {
  std::vector<std::string> row;
  if (!t.next(row)) throw InputError(t.file(), 0, "", "empty file");
  t.set_header(row);
  for (const char* need : {"timestamp", "duration", "num_gpus"})
    if (!t.column(need)) throw InputError(t.file(), t.line(), need, "required column missing");
  const std::size_t first = w.jobs.size();
  long long t0 = 0;
  long row_index = 0;
  while (t.next(row)) per_row(w, [&] {
    t.check_width(row);
    JobSpec j;
    j.name = std::to_string(row_index++);  // Philly rows have no id: the data-row index
    const long long ts = parse_timestamp(t.require(row, "timestamp"), t);
    if (w.jobs.size() == first || ts < t0) t0 = ts;
    j.submit = ts * kUsPerS;  // absolute for now, made relative below
    j.duration_s = parse_in_range(t.require(row, "duration"), 0, limits::kMaxDurationS, t.file(), t.line(), "duration");
    if (j.duration_s <= 0) throw InputError(t.file(), t.line(), "duration", "must be > 0");
    j.num_gpus = parse_int32(t.require(row, "num_gpus"), t.file(), t.line(), "num_gpus");
    j.user = t.get(row, "cluster");
    j.recurrence_key = j.user + "/" + std::to_string(j.num_gpus);
    add_job(w, std::move(j), RawTimes{}, "", t);
  });
  for (std::size_t i = first; i < w.jobs.size(); ++i) w.jobs[i].submit -= t0 * kUsPerS;
}

}  // namespace rm
