#include "workload/gavel_throughputs.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

#include "core/error.h"
#include "workload/strict_json.h"

namespace rm {
namespace {

// "('<job type>', <GPUs>)" (utils.parse_job_type_tuple's regex \('(.*)', (\d+)\)).
bool parse_key(const std::string& s, GavelThroughputs::Key& k) {
  if (s.size() < 7 || s.compare(0, 2, "('") != 0 || s.back() != ')') return false;
  const auto sep = s.rfind("', ");
  if (sep == std::string::npos || sep < 2) return false;
  const std::string digits = s.substr(sep + 3, s.size() - sep - 4);
  if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
  k = {s.substr(2, sep - 2), std::stoi(digits)};
  return true;
}

double number(const nlohmann::json& v, const std::string& path, const std::string& where) {
  if (!v.is_number()) throw InputError(path, 0, where, "expected a number of steps per second");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < 0) throw InputError(path, 0, where, "steps per second must be a finite number >= 0");
  // A step shorter than the clock's microsecond would finish every job at once (1e308 gave every JCT 0).
  if (x > 1e6) throw InputError(path, 0, where, "steps per second must be at most 1e6 (a step of at least 1 us)");
  return x;
}

}  // namespace

GavelThroughputs GavelThroughputs::load(const std::string& path) {
  const nlohmann::json j = parse_json_file(path, "Gavel throughput table");
  if (!j.is_object()) throw InputError(path, 0, "", "expected {worker type: {job type: {...}}}");
  GavelThroughputs t;
  t.path_ = path;
  for (const auto& [type, jobs] : j.items()) {
    if (!jobs.is_object()) throw InputError(path, 0, type, "expected {job type: {...}}");
    auto& alone = t.alone_[type];
    auto& packed = t.packed_[type];
    for (const auto& [ks, v] : jobs.items()) {
      Key k;
      if (!parse_key(ks, k)) throw InputError(path, 0, type + "." + ks, "expected a key ('<job type>', <GPUs>)");
      if (!v.is_object() || !v.contains("null"))
        throw InputError(path, 0, type + "." + ks, "expected an isolated (null) entry");
      for (const auto& [os, pv] : v.items()) {
        const std::string where = type + "." + ks + "." + os;
        if (os == "null") {
          alone[k] = number(pv, path, where);
          continue;
        }
        Key o;
        if (!parse_key(os, o)) throw InputError(path, 0, where, "expected a key ('<job type>', <GPUs>)");
        if (!pv.is_array() || pv.size() != 2) throw InputError(path, 0, where, "expected [steps/s, other's steps/s]");
        packed[{k, o}] = {number(pv[0], path, where), number(pv[1], path, where)};
      }
    }
  }
  return t;
}

const double* GavelThroughputs::isolated(const std::string& worker_type, const Key& k) const {
  const auto t = alone_.find(worker_type);
  if (t == alone_.end()) return nullptr;
  const auto e = t->second.find(k);
  return e == t->second.end() ? nullptr : &e->second;
}

const std::map<GavelThroughputs::Key, double>* GavelThroughputs::isolated_all(const std::string& worker_type) const {
  const auto t = alone_.find(worker_type);
  return t == alone_.end() ? nullptr : &t->second;
}

const std::array<double, 2>* GavelThroughputs::packed(const std::string& worker_type, const Key& a, const Key& b) const {
  const auto t = packed_.find(worker_type);
  if (t == packed_.end()) return nullptr;
  const auto w = t->second.find({a, b});
  return w == t->second.end() ? nullptr : &w->second;
}

std::string GavelThroughputs::key_text(const Key& k) { return "('" + k.first + "', " + std::to_string(k.second) + ")"; }

}  // namespace rm
