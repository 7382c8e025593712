#include "workload/parse_util.h"

#include <fstream>

#include <filesystem>

#include <cstdio>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "core/error.h"
#include "workload/limits.h"

namespace rm {

std::vector<std::string> split_simple(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::vector<std::string> split_csv(const std::string& line, char sep, const std::string& file, long ln) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"' && trim(cur).empty()) {
      quoted = true;
      cur.clear();
    } else if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  if (quoted) throw InputError(file, ln, "", "unterminated quoted field");
  out.push_back(cur);
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

namespace {
// A plain number with nothing around it (a trace's every field, nearly) read by std::from_chars: correctly rounded as
// strtod is (the same double) and without its locale or a trimmed copy. False for anything else (blanks, a '+', hex,
// inf, out of range), which the callers read the long way, with its errors.
template <class T>
bool read_plain(const std::string& raw, T& v) {
  const char* end = raw.data() + raw.size();
  const auto [p, ec] = std::from_chars(raw.data(), end, v);
  return ec == std::errc() && p == end;
}
}  // namespace

double parse_double(const std::string& raw, const std::string& file, long line, const std::string& field) {
  if (double v = 0; read_plain(raw, v) && std::isfinite(v)) return v;
  const std::string s = trim(raw);
  if (s.empty()) throw InputError(file, line, field, "empty, expected a number");
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v))  // an overflow reads as inf (ERANGE); an underflow as 0
    throw InputError(file, line, field,
                     end == s.c_str() + s.size() ? "'" + s + "' is out of range (too large for a number)"
                                                 : "'" + s + "' is not a number");
  return v;
}

long long parse_int(const std::string& raw, const std::string& file, long line, const std::string& field) {
  if (long long v = 0; read_plain(raw, v)) return v;
  const std::string s = trim(raw);
  if (s.empty()) throw InputError(file, line, field, "empty, expected an integer");
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (end == s.c_str() + s.size() && errno == 0) return v;
  // Accept integral floats such as "4.0" (several public traces write them).
  const double d = parse_double(s, file, line, field);
  if (d != std::floor(d)) throw InputError(file, line, field, "'" + s + "' is not an integer");
  if (std::fabs(d) > 9e15) throw InputError(file, line, field, "'" + s + "' is out of range (too large an integer)");
  return static_cast<long long>(d);
}

int parse_int32(const std::string& raw, const std::string& file, long line, const std::string& field) {
  const long long v = parse_int(raw, file, line, field);
  if (v > limits::kMaxSmallInt || v < -limits::kMaxSmallInt)
    throw InputError(file, line, field, "'" + trim(raw) + "' is out of range (at most 1e9)");
  return static_cast<int>(v);
}

double parse_in_range(const std::string& raw, double lo, double hi, const std::string& file, long line,
                      const std::string& field) {
  const double v = parse_double(raw, file, line, field);
  if (v < lo || v > hi)
    throw InputError(file, line, field, fmt::format("'{}' is out of range [{:g}, {:g}]", trim(raw), lo, hi));
  return v;
}

Time parse_submit(const std::string& raw, double mul, double div, const std::string& file, long line,
                  const std::string& field) {
  return from_seconds(parse_submit_s(raw, mul, div, file, line, field));
}

double parse_submit_s(const std::string& raw, double mul, double div, const std::string& file, long line,
                      const std::string& field) {
  const double s = parse_double(raw, file, line, field) * mul / div;
  if (s < 0) throw InputError(file, line, field, "'" + trim(raw) + "': a submit time must be >= 0");
  if (s > limits::kMaxSubmitS)
    throw InputError(file, line, field, fmt::format("'{}' is out of range (at most {:g} s, 317 years)", trim(raw),
                                                    limits::kMaxSubmitS));
  return s;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

long long days_from_civil(long long y, unsigned m, unsigned d) {  // H. Hinnant's civil-days algorithm
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

std::optional<double> parse_datetime(const std::string& raw) {
  const std::string s = trim(raw);
  int y, mo, d, h, mi, n = 0;
  char sep;
  double se;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2d%c%2d:%2d:%lf%n", &y, &mo, &d, &sep, &h, &mi, &se, &n) != 7 ||
      (sep != ' ' && sep != 'T'))
    return std::nullopt;
  const std::string rest = s.substr(static_cast<std::size_t>(n));
  // A real day of a month (2020-02-31 is not one) of the years 1970-2200 (a span the submit range holds).
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (!(rest.empty() || rest == "Z") || y < 1970 || y > 2200 || mo < 1 || mo > 12 || d < 1 ||
      d > kDays[mo - 1] + (mo == 2 && leap) || h < 0 || h > 23 || mi < 0 || mi > 59 || !(se >= 0 && se < 61))
    return std::nullopt;
  return static_cast<double>(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60) + se;
}

int to_int32(double v, const std::string& file, long line, const std::string& field) {
  if (!(std::fabs(v) <= static_cast<double>(limits::kMaxSmallInt)) || v != std::floor(v))
    throw InputError(file, line, field, fmt::format("{:g} is not an integer in [-1e9, 1e9]", v));
  return static_cast<int>(v);
}

void for_each_table_row(const std::string& text,
                        const std::function<void(const std::vector<std::string>&, long, bool)>& row) {
  std::istringstream in(text);
  std::string line;
  long ln = 0;
  bool header = true;
  while (std::getline(in, line)) {
    ++ln;
    if (line.empty() || line[0] == '#') continue;
    row(split_simple(line, ','), ln, header);
    header = false;
  }
}

}  // namespace rm
