// ringmaster's canonical CSV (docs/formats.md), and any CSV through --columns / --header / --time-unit (TraceOptions).
#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/error.h"
#include "workload/parse_util.h"
#include "workload/table_reader.h"
#include "workload/trace.h"

namespace rm {
namespace {

const std::vector<std::string>& canonical_columns() {
  static const std::vector<std::string> v = {"job_id", "submit_s", "num_gpus", "model", "iterations", "duration_s",
                                             "deadline_s", "batch_size", "global_batch", "user", "vc", "recurrence_key", "compute_ms",
                                             "grad_mb", "gpu_mem_mb", "dp", "pp", "tp", "gpu_type",
                                             "gpus_min", "gpus_max"};
  return v;
}

bool is_canonical(const std::string& c) {
  const auto& v = canonical_columns();
  return std::find(v.begin(), v.end(), c) != v.end();
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

// A canonical column's field of a row: the file's own column of that name, or the --columns expression.
class Fields {
 public:
  Fields(const TableReader& t, const TraceOptions& opt) : t_(t), opt_(opt) {}
  bool has(const std::string& c) const { return opt_.columns.count(c) || (t_.column(c) && !source_only(c)); }
  std::string get(const std::vector<std::string>& row, const std::string& c) const {
    const auto m = opt_.columns.find(c);
    if (m == opt_.columns.end()) return source_only(c) ? std::string() : t_.get(row, c);
    const ColumnExpr& e = m->second;
    // `submit_s=submit-time` on a file with a column named "submit-time": that column, not submit - time.
    if (e.op != 0 && t_.column(e.whole)) return t_.get(row, e.whole);
    const std::string a = t_.get(row, e.a);
    if (e.op == 0) return a;
    if (trim(a).empty()) return "";
    const double x = parse_double(a, t_.file(), t_.line(), e.a);
    // The right-hand side: a constant, or another column of the row (A-B, A/B, A*B).
    double y = e.k;
    if (!e.b.empty()) {
      const std::string b = t_.get(row, e.b);
      if (trim(b).empty()) return "";
      y = parse_double(b, t_.file(), t_.line(), e.b);
      if (e.op == '/' && y == 0) throw InputError(t_.file(), t_.line(), e.b, "0: cannot divide " + e.a + " by it");
    }
    double v = 0;
    if (e.op == '/') v = x / y;
    else if (e.op == '*') v = x * y;
    else v = x - y;
    return fmt::format("{:.17g}", v);
  }
  // A canonical name that the mapping took as another's source (`submit_s=duration_s` would hide the file's own).
  bool source_only(const std::string& c) const {
    for (const auto& [k, e] : opt_.columns)
      if (k != c && (e.a == c || e.b == c) && !opt_.columns.count(c)) return true;
    return false;
  }

 private:
  const TableReader& t_;
  const TraceOptions& opt_;
};

// The file's columns no canonical column takes (an error for the strict canonical format, listed with --columns), the
// required ones, and an ignored column that looks like an iteration count when the iterations come from a duration
// (Workload::iteration_column: the derived count is checked against it).
void check_columns(const TableReader& t, Workload& w, const Fields& f, const TraceOptions& opt,
                   const std::vector<std::string>& header) {
  const bool mapped = opt.mapped();
  for (const auto& h : header) {
    bool used = is_canonical(h) && !f.source_only(h);
    for (const auto& [name, e] : opt.columns) used = used || e.a == h || e.b == h || e.whole == h;
    if (used) continue;
    if (!mapped) throw InputError(t.file(), t.line(), h, "unknown column (map or ignore it with --columns: docs/formats.md)");
    w.ignored_columns.push_back(h);
  }
  for (const char* need : {"job_id", "submit_s", "num_gpus"})
    if (!f.has(need))
      throw InputError(t.file(), t.line(), need,
                       std::string("required column missing") + (mapped ? " (map it with --columns " + std::string(need) + "=COLUMN)" : ""));
  if (!f.has("model") && !mapped) throw InputError(t.file(), t.line(), "model", "required column missing");
  if (!f.has("iterations") && !f.has("duration_s"))
    throw InputError(t.file(), t.line(), "iterations", "need an iterations or a duration_s column");
  if (!f.has("iterations"))
    for (const auto& c : w.ignored_columns)
      if (c == "iteration" || c == "iterations" || c == "num_iteration" || c == "num_iterations" || c == "iters") {
        w.iteration_column = c;
        break;
      }
}

// batch_size is per worker, global_batch the whole job's; either gives the other (docs/formats.md).
void set_batch(JobSpec& j, double per, double global, const TableReader& t) {
  if (per < 0) throw InputError(t.file(), t.line(), "batch_size", "must be >= 0");
  if (global < 0) throw InputError(t.file(), t.line(), "global_batch", "must be >= 0");
  j.global_batch = to_int32(std::round(global), t.file(), t.line(), "global_batch");
  j.batch_size = to_int32(std::round(per > 0 || global == 0 || j.num_gpus <= 0 ? per : global / j.num_gpus), t.file(),
                          t.line(), "batch_size");
  if (per > 0 && global > 0 && std::abs(per * j.num_gpus - global) > 0.5)
    throw InputError(t.file(), t.line(), "global_batch",
                     fmt::format("{:g} is not batch_size {:g} x num_gpus {} (batch_size is per worker)", global, per,
                                 j.num_gpus));
}

}  // namespace

TraceOptions parse_trace_options(const std::string& columns, const std::string& header, const std::string& time_unit) {
  TraceOptions o;
  if (time_unit == "s" || time_unit.empty()) o.time_unit_s = 1;
  else if (time_unit == "ms") o.time_unit_s = 1e-3;
  else if (time_unit == "us") o.time_unit_s = 1e-6;
  else throw InputError("--time-unit", 0, time_unit, "must be s, ms or us");
  for (const auto& raw : split_simple(header, ','))
    if (!trim(raw).empty()) o.header.push_back(trim(raw));
  for (const auto& raw : split_simple(columns, ',')) {
    const std::string item = trim(raw);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw InputError("--columns", 0, item, "each mapping is CANONICAL=COLUMN (e.g. submit_s=submitted), not '" + item + "'");
    const std::string name = trim(item.substr(0, eq)), src = trim(item.substr(eq + 1));
    if (!is_canonical(name))
      throw InputError("--columns", 0, name, "not a canonical column (" + join(canonical_columns()) + ")");
    if (o.columns.count(name)) throw InputError("--columns", 0, name, "mapped twice");
    ColumnExpr e;
    e.whole = src;
    const auto op = src.find_first_of("/*-", 1);
    e.a = trim(src.substr(0, op));
    if (op != std::string::npos) {
      e.op = src[op];
      const std::string rhs = trim(src.substr(op + 1));
      char* end = nullptr;
      const double k = std::strtod(rhs.c_str(), &end);
      const bool number = !rhs.empty() && *end == '\0';
      if (e.op == '-' || !number) {  // another column: A-B, A/B, A*B (batch_size=batch_size/num_gpu)
        e.b = rhs;
      } else {
        e.k = k;
        if (!(e.k > 0) || !std::isfinite(e.k))
          throw InputError("--columns", 0, name, "'" + src + "': after " + std::string(1, e.op) + " a number > 0");
      }
      if (e.a.empty() || e.b.find_first_of("/*") != std::string::npos || (e.b.empty() && !number))
        throw InputError("--columns", 0, name, "'" + src + "' is not COLUMN, COLUMN/K, COLUMN*K, A-B, A/B or A*B");
    }
    o.columns[name] = e;
  }
  return o;
}

namespace {
// Dates made relative to the earliest submit t0: each dated job's submit (job index, its date) and deadline (job
// index, its line); a deadline before t0 is refused, never dropped.
void shift_dates(Workload& w, double t0, const std::vector<std::pair<std::size_t, double>>& submits,
                 const std::vector<std::pair<std::size_t, long>>& deadlines, const std::string& file) {
  for (const auto& [k, at] : submits)
    if (k < w.jobs.size()) w.jobs[k].submit = from_seconds(at - t0);
  for (const auto& [k, line] : deadlines)
    if (k < w.jobs.size()) {
      w.jobs[k].deadline_s -= t0;
      if (w.jobs[k].deadline_s < 0)  // before the trace's first submission: no run can meet it
        throw InputError(file, line, "deadline_s", "a date before the trace's first submission");
    }
}
}  // namespace

void read_canonical(TableReader& t, Workload& w, const TraceOptions& opt) {
  const bool mapped = opt.mapped();
  w.mapped = mapped;
  std::vector<std::string> row;
  bool pending = false;  // a headerless file: its first row is data
  if (!opt.header.empty()) {
    t.set_header(opt.header);
    pending = t.next(row);
    if (!pending) throw InputError(t.file(), 0, "", "empty file");
  } else {
    if (!t.next(row)) throw InputError(t.file(), 0, "", "empty file");
    t.set_header(row);
  }
  const std::vector<std::string> header = opt.header.empty() ? row : opt.header;
  for (const auto& [name, e] : opt.columns)
    for (const auto& src : {e.a, e.b})
      if (!src.empty() && !t.column(src) && !t.column(e.whole))
        throw InputError(t.file(), t.line(), "--columns",
                         name + "=" + src + ": no column '" + src + "' in the file (it has: " + join(header) + ")");
  Fields f(t, opt);
  check_columns(t, w, f, opt, header);
  auto num = [&](const std::string& col, double dflt) {
    const std::string s = f.get(row, col);
    return trim(s).empty() ? dflt : parse_double(s, t.file(), t.line(), col);
  };
  const std::string& iteration_column = w.iteration_column;
  auto num_raw = [&](const std::string& col) {
    const std::string s = t.get(row, col);
    return trim(s).empty() ? 0.0 : parse_double(s, t.file(), t.line(), col);
  };
  // Submit times (and deadlines) given as dates are made relative to the earliest submit, as the Philly reader does.
  const double unit = opt.time_unit_s;
  int dates = -1;  // unknown yet; 1: the submit column holds dates; 0: numbers
  double t0 = 0;
  std::vector<std::pair<std::size_t, double>> absolute;  // (job index, submit as a date) to shift by t0
  std::vector<std::pair<std::size_t, long>> dated_deadlines;  // (job index, its line)
  while (pending || t.next(row)) {
    pending = false;
    per_row(w, [&] {
      t.check_width(row);
      JobSpec j;
      RawTimes raw;
      j.name = trim(f.get(row, "job_id"));
      if (j.name.empty()) throw InputError(t.file(), t.line(), "job_id", "empty");
      const double gpus = num("num_gpus", 0);
      if (mapped && gpus == 0) {  // a cluster log's CPU-only job: not a GPU job; counted, said once by the caller
        ++w.cpu_only_skipped;
        return;
      }
      if (mapped && gpus > 0 && gpus != std::floor(gpus)) {  // a share of a GPU: the job holds a whole one here
        ++w.gpus_rounded_up;
        j.num_gpus = static_cast<int>(std::min(std::ceil(gpus), 2e9));
      } else {
        j.num_gpus = parse_int32(f.get(row, "num_gpus"), t.file(), t.line(), "num_gpus");
      }
      const std::string submit = f.get(row, "submit_s");
      const auto date = parse_datetime(submit);
      if (dates < 0) dates = date ? 1 : 0;
      if (dates == 1 && !date)
        throw InputError(t.file(), t.line(), "submit_s",
                         "'" + trim(submit) + "' is not a date like the rows before it (YYYY-MM-DD HH:MM:SS, a real day "
                         "of the years 1970-2200)");
      if (dates == 1) {
        if (absolute.empty() || *date < t0) t0 = *date;
      } else {
        j.submit = parse_submit(submit, unit, 1.0, t.file(), t.line(), "submit_s");
      }
      j.model = trim(f.get(row, "model"));
      if (j.model.empty()) {
        if (!mapped) throw InputError(t.file(), t.line(), "model", "empty");
        ++w.models_assigned;
      }
      j.iterations = num("iterations", 0);
      j.duration_s = num("duration_s", 0) * unit;
      const std::string deadline = f.get(row, "deadline_s");
      if (!trim(deadline).empty()) {
        if (const auto dd = parse_datetime(deadline)) {
          if (dates != 1)
            throw InputError(t.file(), t.line(), "deadline_s", "a date, but the submit times are numbers: give both alike");
          j.deadline_s = *dd;  // absolute until t0 is known
        } else {
          j.deadline_s = parse_double(deadline, t.file(), t.line(), "deadline_s") * unit;
          if (!(j.deadline_s >= 0)) throw InputError(t.file(), t.line(), "deadline_s", "must be >= 0");
        }
      }
      if (j.iterations > 0 && j.duration_s > 0) raw.iter_time_s = j.duration_s / j.iterations;
      set_batch(j, num("batch_size", 0), num("global_batch", 0), t);
      // The file's own iteration count where a column like it is left out (the derived count is checked against it).
      if (!iteration_column.empty()) j.trace_iterations = num_raw(iteration_column);
      j.user = f.get(row, "user");
      j.vc = trim(f.get(row, "vc"));
      j.recurrence_key = f.get(row, "recurrence_key");
      j.gpu_type = trim(f.get(row, "gpu_type"));
      raw.compute_s = num("compute_ms", 0) / 1000.0;
      raw.grad_mb = num("grad_mb", -1);
      raw.gpu_mem_mb = num("gpu_mem_mb", -1);
      j.dp = to_int32(num("dp", 0), t.file(), t.line(), "dp");
      j.pp = to_int32(num("pp", 1), t.file(), t.line(), "pp");
      j.tp = to_int32(num("tp", 1), t.file(), t.line(), "tp");
      if (j.pp < 1 || j.tp < 1 || j.dp < 0) throw InputError(t.file(), t.line(), "dp", "bad parallel config");
      // An elastic job (docs/elastic.md): either bound given; the other defaults to 1 and num_gpus.
      if (const std::string lo = f.get(row, "gpus_min"), hi = f.get(row, "gpus_max");
          !trim(lo).empty() || !trim(hi).empty()) {
        j.gpus_min = trim(lo).empty() ? 1 : parse_int32(lo, t.file(), t.line(), "gpus_min");
        j.gpus_max = trim(hi).empty() ? j.num_gpus : parse_int32(hi, t.file(), t.line(), "gpus_max");
        check_elastic(j, t.file(), t.line());
      }
      const bool dated_deadline = dates == 1 && j.deadline_s >= 0;
      const std::size_t k = w.jobs.size();
      add_job(w, std::move(j), raw, "", t);
      if (dates == 1) absolute.push_back({k, *date});
      if (dated_deadline) dated_deadlines.push_back({k, t.line()});
    });
  }
  shift_dates(w, t0, absolute, dated_deadlines, t.file());
}

}  // namespace rm
