// Names of the priority keys of spec A.6.1 (the keys themselves are inline in task_plugin.h).
#include <algorithm>

#include "core/error.h"
#include "policy/task/task_plugin.h"

namespace rm::task {

Key parse_key(const std::string& name, const std::string& field) {
  if (name == "ssf") return Key::SSF;
  if (name == "srsf") return Key::SRSF;
  if (name == "srtf") return Key::SRTF;
  if (name == "stf") return Key::STF;
  if (name == "sf") return Key::SF;
  throw InputError("--policy", 0, field, "unknown key '" + name + "' (ssf, srsf, srtf, stf, sf)");
}

const char* key_name(Key k) {
  switch (k) {
    case Key::SSF: return "ssf";
    case Key::SRSF: return "srsf";
    case Key::SRTF: return "srtf";
    case Key::STF: return "stf";
    case Key::SF: return "sf";
  }
  return "?";
}

}  // namespace rm::task
