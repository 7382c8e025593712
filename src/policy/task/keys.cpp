// Priority keys of spec A.6.1 and the link count c of A.6.4.
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

double TJob::key(Key k) const {
  switch (k) {
    case Key::SSF: return static_cast<double>(n) * static_cast<double>(iters) * (fw + bw);
    case Key::SRSF: return rem_service;
    case Key::SRTF: return rem_time;
    case Key::STF: return static_cast<double>(iters) * (fw + bw);
    case Key::SF: return n;
  }
  return 0;
}

int busiest_link(const TJob& j, const TaskView& v) {
  int c = 0;
  for (int s : j.servers) c = std::max(c, static_cast<int>(v.server_flows(s).size()));
  return c;
}

}  // namespace rm::task
