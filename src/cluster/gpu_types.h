// GPU types: the known ones (data/gpu_types.csv: each type's measured speed relative to a V100 and its name
// in the measured tables), and a cluster's own types (which servers hold which, fastest first).
#pragma once
#include <string>
#include <vector>

namespace rm {

struct ClusterSpec;

struct KnownGpuType {
  std::string name;                    // canonical, e.g. "t4"
  std::vector<std::string> aliases;    // normalised
  double speed = 1.0;                  // relative to a V100 (gpu_speed's default)
  std::string sia, gavel, elasticflow; // this type in those tables ("" = none)
};

const std::vector<KnownGpuType>& known_gpu_types();
// By name, case-insensitively ignoring '-', '_' and spaces (aliases too); null if unknown.
const KnownGpuType* find_gpu_type(const std::string& name);
// "default, v100, a100, ..." for error messages.
std::string known_gpu_type_list();

// A cluster's GPU types: names in order of first appearance, each server's type index, and the order in
// which a job that pins no type tries them (fastest gpu_speed first, ties by first appearance).
struct GpuTypes {
  std::vector<std::string> names;
  std::vector<int> of_server;
  std::vector<int> by_speed;
  int count() const { return static_cast<int>(names.size()); }
  int index(const std::string& name) const;  // -1 if the cluster has no such type
};
GpuTypes gpu_types_of(const ClusterSpec& c);

}  // namespace rm
