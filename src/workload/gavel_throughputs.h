// Gavel's oracle throughput table (simulation_throughputs.json, stanford-futuredata/gavel c4fa400,
// utils.read_all_throughputs_json_v2): per worker type (v100, p100, k80, and `<type>_unconsolidated`), per job type
// key ('<model> (batch size B)', GPUs), the steps/s alone (`null`) and, per other job type key, the two jobs' steps/s
// when packed on the same GPUs (`[this, other]`). Read with the file's own doubles (Python's float(): strtod).
#pragma once
#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace rm {

class GavelThroughputs {
 public:
  using Key = std::pair<std::string, int>;  // (job type, GPUs)
  // Throws InputError naming the file (and the key) when it is missing or malformed.
  static GavelThroughputs load(const std::string& path);
  const std::string& path() const { return path_; }
  bool has_type(const std::string& worker_type) const { return alone_.count(worker_type) > 0; }
  // Steps/s of `k` alone on `worker_type`; nullptr if the table has none.
  const double* isolated(const std::string& worker_type, const Key& k) const;
  // Every job type's steps/s alone on `worker_type` (nullptr if the table has no such worker type).
  const std::map<Key, double>* isolated_all(const std::string& worker_type) const;
  // Steps/s of (a, b) packed on `worker_type`, a's first; nullptr if the table has none.
  const std::array<double, 2>* packed(const std::string& worker_type, const Key& a, const Key& b) const;
  // "('ResNet-18 (batch size 128)', 4)", as the file spells the key.
  static std::string key_text(const Key& k);

 private:
  std::string path_;
  std::map<std::string, std::map<Key, double>> alone_;                                  // per worker type
  std::map<std::string, std::map<std::pair<Key, Key>, std::array<double, 2>>> packed_;  // per worker type
};

}  // namespace rm
