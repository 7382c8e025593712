#include "cluster/gpu_types.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "cluster/cluster.h"
#include "core/embedded_data.h"
#include "core/suggest.h"

namespace rm {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

// data/gpu_types.csv, bundled (a bad row is a build-time mistake: the tests read every row).
std::vector<KnownGpuType> parse_known() {
  std::vector<KnownGpuType> v;
  std::istringstream in{std::string(embedded::get("gpu_types.csv"))};
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    const auto f = split(line, ',');
    if (f.size() < 7) throw std::logic_error("data/gpu_types.csv: bad row '" + line + "'");
    KnownGpuType t;
    t.name = f[0];
    for (const auto& a : split(f[1], ';'))
      if (!a.empty()) t.aliases.push_back(normalise_name(a));
    t.speed = std::stod(f[2]);
    t.sia = f[3], t.gavel = f[4], t.elasticflow = f[5];
    v.push_back(std::move(t));
  }
  return v;
}

}  // namespace

const std::vector<KnownGpuType>& known_gpu_types() {
  static const std::vector<KnownGpuType> v = parse_known();
  return v;
}

const KnownGpuType* find_gpu_type(const std::string& name) {
  const std::string k = normalise_name(name);
  for (const auto& t : known_gpu_types())
    if (normalise_name(t.name) == k || std::find(t.aliases.begin(), t.aliases.end(), k) != t.aliases.end()) return &t;
  return nullptr;
}

std::string known_gpu_type_list() {
  std::string s;
  for (const auto& t : known_gpu_types()) s += (s.empty() ? "" : ", ") + t.name;
  return s;
}

int GpuTypes::index(const std::string& name) const {
  for (int i = 0; i < count(); ++i)
    if (names[static_cast<std::size_t>(i)] == name) return i;
  return -1;
}

GpuTypes gpu_types_of(const ClusterSpec& c) {
  GpuTypes t;
  std::vector<double> speed;
  t.of_server.reserve(c.servers.size());
  for (const auto& s : c.servers) {
    int i = t.index(s.gpu_type);
    if (i < 0) {
      i = t.count();
      t.names.push_back(s.gpu_type);
      speed.push_back(s.gpu_speed);
    }
    speed[static_cast<std::size_t>(i)] = std::max(speed[static_cast<std::size_t>(i)], s.gpu_speed);
    t.of_server.push_back(i);
  }
  for (int i = 0; i < t.count(); ++i) t.by_speed.push_back(i);
  std::stable_sort(t.by_speed.begin(), t.by_speed.end(),
                   [&](int a, int b) { return speed[static_cast<std::size_t>(a)] > speed[static_cast<std::size_t>(b)]; });
  return t;
}

}  // namespace rm
