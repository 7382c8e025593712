// The model catalogue: per-model compute, gradient size and memory (data/models.csv).
#pragma once
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace rm {

struct ModelProfile {
  std::string name;
  int batch = 0;
  double compute_ms = 0;
  double grad_mb = 0;
  double gpu_mem_mb = 0;
  double cpu_per_gpu = 0;
  double mem_gb_per_gpu = 0;
  std::string source;
};

class ModelCatalogue {
 public:
  // Parse catalogue CSV text; `file` names it in errors.
  static ModelCatalogue parse(const std::string& text, const std::string& file);
  static const ModelCatalogue& builtin();

  // Lookup by name (case-insensitive, ignoring '-', '_', ' ') and batch: the exact batch row, else
  // the model's first row with compute scaled by batch / row batch (when both are > 0).
  // `qualifier` ("gavel") is tried first as "gavel:<name>".
  std::optional<ModelProfile> find(const std::string& name, int batch = 0,
                                   const std::string& qualifier = "") const;
  const std::vector<ModelProfile>& rows() const { return rows_; }
  static std::string normalise(const std::string& name);

 private:
  std::optional<ModelProfile> find_exact(const std::string& key, int batch) const;
  std::vector<ModelProfile> rows_;
  std::unordered_map<std::string, std::vector<std::size_t>> rows_of_;  // key -> the rows it names, ascending
};

}  // namespace rm
