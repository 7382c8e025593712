// Strict field parsing with file:line:field errors.
#pragma once
#include <string>
#include <vector>

namespace rm {

std::vector<std::string> split_simple(const std::string& line, char sep);
// RFC-4180-style split: quoted fields may hold the separator and doubled quotes.
std::vector<std::string> split_csv(const std::string& line, char sep, const std::string& file, long ln);
std::string trim(const std::string& s);
double parse_double(const std::string& s, const std::string& file, long line, const std::string& field);
long long parse_int(const std::string& s, const std::string& file, long line, const std::string& field);

}  // namespace rm
