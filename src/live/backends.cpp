#include "live/backends.h"

#include "core/error.h"
#include "core/suggest.h"
#include "live/fake/fake_backend.h"
#include "live/slurm/slurm_backend.h"

namespace rm::live {
namespace {

struct Entry {
  const char* name;
  std::unique_ptr<Backend> (*make)(const ServeOptions&);
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> v = {
      {"slurm", [](const ServeOptions& o) -> std::unique_ptr<Backend> { return std::make_unique<SlurmBackend>(o); }},
      {"fake", [](const ServeOptions& o) -> std::unique_ptr<Backend> { return std::make_unique<FakeBackend>(o); }},
      {"sim", [](const ServeOptions& o) -> std::unique_ptr<Backend> {
         return std::make_unique<FakeBackend>(o, wall_now, true);
       }},
  };
  return v;
}

}  // namespace

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    for (const auto& e : entries()) out.push_back(e.name);
    return out;
  }();
  return v;
}

std::unique_ptr<Backend> make_backend(const std::string& name, const ServeOptions& o) {
  for (const auto& e : entries())
    if (name == e.name) return e.make(o);
  std::string names;
  for (const auto& n : backend_names()) names += (names.empty() ? "" : ", ") + n;
  throw InputError("--backend", 0, name, "unknown backend" + did_you_mean(name, backend_names()) + " (available: " + names + ")");
}

}  // namespace rm::live
