// Building a ClusterSpec from YAML (a file or a built-in preset).
#pragma once
#include <string>
#include <vector>

#include "cluster/cluster.h"

namespace rm {

// Parse YAML text; `source` names the file in error messages (file:line:field).
ClusterSpec parse_cluster_yaml(const std::string& text, const std::string& source);
// `arg` is a preset name (see cluster_presets()), Gavel's spec `gavel:V:P:K[:G]` or a path to a YAML file.
ClusterSpec load_cluster(const std::string& arg);
// Gavel's cluster spec (its simulator's `-c V:P:K --num_gpus_per_server G:G:G`): V V100s, P P100s and K K80s in
// servers of G GPUs (default 1), as Gavel registers them: V // G servers of V100s, and so on (a remainder is not
// registered). The network and host figures are data/clusters/gavel-36-36-36.yaml's. Throws InputError("--cluster").
ClusterSpec gavel_cluster(const std::string& arg);

struct ClusterPreset {
  std::string name;
  std::string yaml;
};
const std::vector<ClusterPreset>& cluster_presets();

}  // namespace rm
