// Building a ClusterSpec from YAML (a file or a built-in preset).
#pragma once
#include <string>
#include <vector>

#include "cluster/cluster.h"

namespace rm {

// Parse YAML text; `source` names the file in error messages (file:line:field).
ClusterSpec parse_cluster_yaml(const std::string& text, const std::string& source);
// `arg` is a preset name (see cluster_presets()) or a path to a YAML file.
ClusterSpec load_cluster(const std::string& arg);

struct ClusterPreset {
  std::string name;
  std::string yaml;
};
const std::vector<ClusterPreset>& cluster_presets();

}  // namespace rm
