#include "workload/model_catalogue.h"

#include <cctype>

#include "core/error.h"
#include "core/suggest.h"
#include "core/embedded_data.h"
#include "workload/parse_util.h"

namespace rm {

std::string ModelCatalogue::normalise(const std::string& name) { return normalise_name(name); }

ModelCatalogue ModelCatalogue::parse(const std::string& text, const std::string& file) {
  ModelCatalogue cat;
  for_each_table_row(text, [&](std::vector<std::string> f, long ln, bool header) {
    if (header) {
      if (f.size() < 9 || f[0] != "name") throw InputError(file, ln, "", "expected the catalogue header");
      return;
    }
    if (f.size() < 9) throw InputError(file, ln, "", "expected 9 fields, got " + std::to_string(f.size()));
    ModelProfile p;
    p.name = f[0];
    p.batch = static_cast<int>(parse_int(f[2], file, ln, "batch"));
    p.compute_ms = parse_double(f[3], file, ln, "compute_ms");
    p.grad_mb = parse_double(f[4], file, ln, "grad_mb");
    p.gpu_mem_mb = parse_double(f[5], file, ln, "gpu_mem_mb");
    p.cpu_per_gpu = parse_double(f[6], file, ln, "cpu_per_gpu");
    p.mem_gb_per_gpu = parse_double(f[7], file, ln, "mem_gb_per_gpu");
    for (std::size_t i = 9; i < f.size(); ++i) f[8] += "," + f[i];
    p.source = f[8];
    if (p.compute_ms < 0 || p.grad_mb < 0 || p.gpu_mem_mb < 0 || p.batch < 0)
      throw InputError(file, ln, "", "negative value");
    std::vector<std::string> keys{normalise(p.name)};
    for (const auto& a : split_simple(f[1], ';'))
      if (!a.empty()) {
        const auto colon = p.name.find(':');
        keys.push_back((colon == std::string::npos ? "" : normalise(p.name.substr(0, colon + 1))) + normalise(a));
      }
    for (const auto& k : keys)
      if (auto& r = cat.rows_of_[k]; r.empty() || r.back() != cat.rows_.size()) r.push_back(cat.rows_.size());
    cat.rows_.push_back(p);
  });
  return cat;
}

const ModelCatalogue& ModelCatalogue::builtin() {
  static const ModelCatalogue cat = parse(std::string(embedded::get("models.csv")), "data/models.csv");
  return cat;
}

std::optional<ModelProfile> ModelCatalogue::find_exact(const std::string& key, int batch) const {
  const ModelProfile* first = nullptr;
  const auto it = rows_of_.find(key);
  if (it == rows_of_.end()) return std::nullopt;
  for (const std::size_t i : it->second) {  // the rows that key names, in catalogue order
    if (batch > 0 && rows_[i].batch == batch) return rows_[i];
    if (!first) first = &rows_[i];
  }
  if (!first) return std::nullopt;
  ModelProfile p = *first;
  if (batch > 0 && p.batch > 0 && batch != p.batch) {
    p.compute_ms *= static_cast<double>(batch) / p.batch;
    p.batch = batch;
  }
  return p;
}

std::optional<ModelProfile> ModelCatalogue::find(const std::string& name, int batch,
                                                 const std::string& qualifier) const {
  const std::string key = normalise(name);
  if (!qualifier.empty())
    if (auto p = find_exact(normalise(qualifier) + ":" + key, batch)) return p;
  return find_exact(key, batch);
}

}  // namespace rm
