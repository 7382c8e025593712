// Parameters of a plugin, written in a policy string as name:key=value;key=value.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace rm {

// One part of a policy string, "name[:key=value;key=value]" (no alias resolution).
struct PolicyPart {
  std::string name;
  std::map<std::string, std::string> kv;
};
PolicyPart parse_policy_part(const std::string& token);

class PluginParams {
 public:
  PluginParams(std::string plugin, std::map<std::string, std::string> kv, std::uint64_t seed)
      : plugin_(std::move(plugin)), kv_(std::move(kv)), seed_(seed) {}
  std::uint64_t seed() const { return seed_; }
  // A number in [lo, hi] (every parameter has a documented range: docs/policies.md); anything else, NaN and
  // infinities included, is an error naming plugin:key and the range, raised when the policy string is read
  // (so `validate` refuses it as `simulate` does).
  double get_double(const std::string& key, double dflt, double lo, double hi);
  // An integer parameter in [lo, hi]; anything else (1.5, 1e300) is an error naming plugin:key.
  int get_int(const std::string& key, int dflt, int lo, int hi);
  std::string get_string(const std::string& key, const std::string& dflt);
  // A comma-separated list of numbers, each in [lo, hi].
  std::vector<double> get_list(const std::string& key, std::vector<double> dflt, double lo, double hi);
  // The keys not asked for so far, marked used (a plugin that hands them on: a Python class's keywords).
  std::map<std::string, std::string> rest();
  // Throws InputError if a given key was never asked for (a typo).
  void check_all_used() const;

 private:
  std::string plugin_;
  std::map<std::string, std::string> kv_;
  std::set<std::string> used_;
  std::uint64_t seed_;
};

}  // namespace rm
