#include "core/pandas_float.h"

#include <array>
#include <cmath>
#include <string>

namespace rm {
namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }
bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

const std::array<double, 309>& powers() {
  static const std::array<double, 309> p = [] {
    std::array<double, 309> a{};
    for (int i = 0; i <= 308; ++i) a[static_cast<std::size_t>(i)] = std::stod("1e" + std::to_string(i));
    return a;
  }();
  return p;
}

}  // namespace

std::optional<double> pandas_float(std::string_view s) {
  constexpr int kMaxDigits = 17;
  std::size_t i = 0;
  while (i < s.size() && space(s[i])) ++i;
  bool negative = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  double number = 0;
  int exponent = 0, digits = 0;
  for (; i < s.size() && digit(s[i]); ++i) {
    if (digits < kMaxDigits) {
      number = number * 10. + (s[i] - '0');
      ++digits;
    } else {
      ++exponent;
    }
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    int decimals = 0;
    for (; digits < kMaxDigits && i < s.size() && digit(s[i]); ++i, ++digits, ++decimals)
      number = number * 10. + (s[i] - '0');
    while (i < s.size() && digit(s[i])) ++i;  // digits past the 17th are dropped
    exponent -= decimals;
  }
  if (digits == 0) return std::nullopt;
  if (negative) number = -number;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool neg = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    int n = 0, nd = 0;
    for (; nd < kMaxDigits && i < s.size() && digit(s[i]); ++i, ++nd) n = n * 10 + (s[i] - '0');
    if (nd == 0) return std::nullopt;
    exponent += neg ? -n : n;
  }
  while (i < s.size() && space(s[i])) ++i;
  if (i != s.size()) return std::nullopt;
  const auto& e = powers();
  if (exponent > 308) return std::nullopt;
  if (exponent > 0) {
    number *= e[static_cast<std::size_t>(exponent)];
  } else if (exponent < -308) {
    if (exponent < -616) return 0.0;
    number /= e[static_cast<std::size_t>(-308 - exponent)];
    number /= e[308];
  } else {
    number /= e[static_cast<std::size_t>(-exponent)];
  }
  return number;
}

}  // namespace rm
