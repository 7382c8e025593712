// Strict field parsing with file:line:field errors.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/read_file.h"
#include "core/time.h"

namespace rm {

std::vector<std::string> split_simple(const std::string& line, char sep);
// RFC-4180-style split: quoted fields may hold the separator and doubled quotes.
std::vector<std::string> split_csv(const std::string& line, char sep, const std::string& file, long ln);
std::string trim(const std::string& s);
// A field as RFC-4180 CSV writes it: quoted (inner quotes doubled) when it holds a comma, quote or newline.
std::string csv_field(const std::string& s);
double parse_double(const std::string& s, const std::string& file, long line, const std::string& field);
long long parse_int(const std::string& s, const std::string& file, long line, const std::string& field);
// An integer field held in an int: parse_int, then |v| <= limits::kMaxSmallInt, or an error naming the field.
int parse_int32(const std::string& s, const std::string& file, long line, const std::string& field);
// A number that must lie in [lo, hi]; the error names the field and the range.
double parse_in_range(const std::string& s, double lo, double hi, const std::string& file, long line,
                      const std::string& field);
// A submit time: the field x `mul` / `div` (in seconds) must lie in [0, limits::kMaxSubmitS].
Time parse_submit(const std::string& s, double mul, double div, const std::string& file, long line,
                  const std::string& field);
// The same checks, in seconds (a reader that keeps a peer's float seconds exact).
double parse_submit_s(const std::string& s, double mul, double div, const std::string& file, long line,
                      const std::string& field);
// Days since 1970-01-01 of a proleptic Gregorian date.
long long days_from_civil(long long y, unsigned m, unsigned d);
// "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DDTHH:MM:SS", an optional fraction of a second and a trailing Z, as UTC seconds
// since 1970; nullopt if `s` is not one (year 1970 or later).
std::optional<double> parse_datetime(const std::string& s);
// A double read elsewhere, narrowed to int: an error when it is not an integer in +-limits::kMaxSmallInt.
int to_int32(double v, const std::string& file, long line, const std::string& field);

// The rows of a small bundled data table (data/*.csv): blank lines and '#' comments skipped, fields split
// on ','. `row(fields, line, header)` sees the header (the first row) with header = true, then every row.
void for_each_table_row(const std::string& text,
                        const std::function<void(const std::vector<std::string>&, long, bool)>& row);

}  // namespace rm
