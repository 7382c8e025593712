// Data files compiled into the binary (data/: cluster presets, model catalogue, bundled traces).
#pragma once
#include <string_view>
#include <vector>

namespace rm::embedded {

struct File {
  std::string_view path;  // relative to data/
  std::string_view text;
};
const std::vector<File>& files();

inline std::string_view get(std::string_view path) {
  for (const auto& f : files())
    if (f.path == path) return f.text;
  return {};
}

}  // namespace rm::embedded
