#include "policy/params.h"

#include <fmt/format.h>

#include <cmath>

#include "core/error.h"
#include "workload/parse_util.h"

namespace rm {

namespace {
// 1e+09 -> 1e9, 1e-06 -> 1e-6: ranges as a user writes them.
std::string num(double v) {
  std::string s = fmt::format("{:g}", v);
  const auto e = s.find('e');
  if (e == std::string::npos) return s;
  std::string exp = s.substr(e + 1);
  const bool neg = exp[0] == '-';
  exp = exp.substr(1);
  while (exp.size() > 1 && exp[0] == '0') exp.erase(0, 1);
  return s.substr(0, e + 1) + (neg ? "-" : "") + exp;
}
void check_range(double v, double lo, double hi, const std::string& field, const std::string& text) {
  if (!(v >= lo && v <= hi))
    throw InputError("--policy", 0, field, "'" + text + "' is out of range: must be in [" + num(lo) + ", " + num(hi) + "]");
}
}  // namespace

double PluginParams::get_double(const std::string& key, double dflt, double lo, double hi) {
  used_.insert(key);
  auto it = kv_.find(key);
  if (it == kv_.end()) return dflt;
  const double v = parse_double(it->second, "--policy", 0, plugin_ + ":" + key);
  check_range(v, lo, hi, plugin_ + ":" + key, it->second);
  return v;
}

int PluginParams::get_int(const std::string& key, int dflt, int lo, int hi) {
  const double v = get_double(key, dflt, -1e300, 1e300);
  if (!(v >= lo && v <= hi) || v != std::floor(v))
    throw InputError("--policy", 0, plugin_ + ":" + key,
                     "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return static_cast<int>(v);
}

std::string PluginParams::get_string(const std::string& key, const std::string& dflt) {
  used_.insert(key);
  auto it = kv_.find(key);
  return it == kv_.end() ? dflt : it->second;
}

PolicyPart parse_policy_part(const std::string& token) {
  PolicyPart p;
  const auto colon = token.find(':');
  p.name = trim(token.substr(0, colon));
  // A Python class's short form, py:FILE:CLASS (docs/python.md): no key=value in it.
  if (p.name == "py" && colon != std::string::npos && token.find('=') == std::string::npos) {
    const std::string rest = token.substr(colon + 1);
    const auto last = rest.rfind(':');
    if (last == std::string::npos || last == 0 || last + 1 == rest.size())
      throw InputError("--policy", 0, "py", "a Python part is py:file=PATH;class=NAME or py:PATH:NAME, not '" + token + "'");
    p.kv["file"] = trim(rest.substr(0, last));
    p.kv["class"] = trim(rest.substr(last + 1));
    return p;
  }
  if (colon != std::string::npos)
    for (const auto& kv : split_simple(token.substr(colon + 1), ';')) {
      const auto eq = kv.find('=');
      if (eq == std::string::npos) throw InputError("--policy", 0, p.name, "parameter '" + kv + "' is not key=value");
      const std::string key = trim(kv.substr(0, eq));
      if (p.kv.count(key)) throw InputError("--policy", 0, p.name + ":" + key, "given twice in '" + token + "'");
      p.kv[key] = trim(kv.substr(eq + 1));
    }
  return p;
}

std::vector<double> PluginParams::get_list(const std::string& key, std::vector<double> dflt, double lo, double hi) {
  used_.insert(key);
  auto it = kv_.find(key);
  if (it == kv_.end()) return dflt;
  std::vector<double> out;
  for (const auto& s : split_simple(it->second, ',')) {
    out.push_back(parse_double(s, "--policy", 0, plugin_ + ":" + key));
    check_range(out.back(), lo, hi, plugin_ + ":" + key, s);
  }
  return out;
}

std::map<std::string, std::string> PluginParams::rest() {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : kv_)
    if (used_.insert(k).second) out[k] = v;
  return out;
}

void PluginParams::check_all_used() const {
  for (const auto& [k, v] : kv_)
    if (!used_.count(k)) throw InputError("--policy", 0, plugin_ + ":" + k, "unknown parameter of " + plugin_);
}

}  // namespace rm
