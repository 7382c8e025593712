#include "cluster/cluster_config.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/embedded_data.h"
#include "cluster/gpu_types.h"
#include "core/read_file.h"

namespace rm {
namespace {

long line_of(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

template <class T>
T get(const YAML::Node& map, const char* key, T dflt, const std::string& src, const std::string& path) {
  const YAML::Node n = map[key];
  if (!n) return dflt;
  const std::string text = n.IsScalar() ? n.Scalar() : std::string("<non-scalar>");
  if constexpr (std::is_floating_point_v<T>) {
    // Infinite where the docs say a value may be (intra_gbps: free all-reduce inside a server): YAML's .inf, or inf.
    std::string low = text;
    for (auto& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (std::string(key) == "intra_gbps" && (low == "inf" || low == ".inf" || low == "+inf" || low == "+.inf" ||
                                             low == "infinity"))
      return std::numeric_limits<T>::infinity();
  }
  try {
    const T v = n.as<T>();
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(v)) throw InputError(src, line_of(n), path + key, "'" + text + "' is not a number");
      if (std::isinf(v) && std::string(key) != "intra_gbps")
        throw InputError(src, line_of(n), path + key, "'" + text + "' is out of range (must be finite)");
      if (std::isfinite(v) && std::fabs(v) > 1e12) throw InputError(src, line_of(n), path + key, "'" + text + "' is out of range (at most 1e12)");
    }
    return v;
  } catch (const YAML::Exception&) {
    if constexpr (std::is_integral_v<T>) {
      try {  // a number, but not one that fits: say so
        const double d = n.as<double>();
        throw InputError(src, line_of(n), path + key,
                         "'" + text + "' is " + (d == std::floor(d) ? "out of range (too large)" : "not an integer"));
      } catch (const YAML::Exception&) {
      }
    }
    throw InputError(src, line_of(n), path + key,
                     "cannot read '" + text + "' as " + (std::is_same_v<T, std::string> ? "text" : "a number"));
  }
}

// Before yaml-cpp builds its node graph: aliases are shared nodes there, so an alias inside its own anchor
// (`servers: &s [*s]`) makes a cycle every walk follows forever, and nested aliases ("billion laughs") a graph
// whose walk is exponential. One pass over the parser's events counts the document's size with every alias
// expanded, refusing a cycle (naming the alias's line) and more than kMaxYamlNodes nodes.
constexpr std::size_t kMaxYamlNodes = 1'000'000;

class AliasCheck final : public YAML::EventHandler {
 public:
  explicit AliasCheck(std::string src) : src_(std::move(src)) {}
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t a) override { leaf(m, a); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t a, const std::string&) override { leaf(m, a); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t a) override {
    for (const auto& o : open_)
      if (o.anchor == a)
        throw InputError(src_, m.line + 1, "*" + name(a), "alias used inside its own anchor '&" + name(a) + "' (a cycle)");
    const auto it = size_.find(a);
    add(m, it == size_.end() ? 1 : it->second);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a, YAML::EmitterStyle::value) override {
    open(m, a);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a, YAML::EmitterStyle::value) override {
    open(m, a);
  }
  void OnMapEnd() override { close(); }
  void OnAnchor(const YAML::Mark&, const std::string& n) override { pending_name_ = n; }

 private:
  struct Open {
    YAML::anchor_t anchor;
    std::size_t size;
  };
  std::string name(YAML::anchor_t a) const {
    const auto it = names_.find(a);
    return it == names_.end() ? std::to_string(a) : it->second;
  }
  void named(YAML::anchor_t a) {
    if (a != YAML::NullAnchor && !pending_name_.empty()) names_[a] = pending_name_;
    pending_name_.clear();
  }
  void add(const YAML::Mark& m, std::size_t n) {
    total_ += n;
    if (total_ > kMaxYamlNodes)
      throw InputError(src_, m.line + 1, "", "the document expands to more than " + std::to_string(kMaxYamlNodes) +
                                                 " nodes through its aliases");
    if (!open_.empty()) open_.back().size += n;
  }
  void leaf(const YAML::Mark& m, YAML::anchor_t a) {
    named(a);
    if (a != YAML::NullAnchor) size_[a] = 1;
    add(m, 1);
  }
  void open(const YAML::Mark& m, YAML::anchor_t a) {
    named(a);
    add(m, 1);
    open_.push_back({a, 1});
  }
  void close() {
    const Open o = open_.back();
    open_.pop_back();
    if (o.anchor != YAML::NullAnchor) size_[o.anchor] = o.size;
    if (!open_.empty()) open_.back().size += o.size - 1;  // its 1 was counted when it opened
  }
  std::string src_;
  std::vector<Open> open_;
  std::map<YAML::anchor_t, std::size_t> size_;
  std::map<YAML::anchor_t, std::string> names_;
  std::string pending_name_;
  std::size_t total_ = 0;
};

void check_aliases(const std::string& text, const std::string& src) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  AliasCheck check(src);
  while (parser.HandleNextDocument(check)) {
  }
}

// yaml-cpp keeps the first of two equal keys in a mapping and drops the other silently: refuse them.
void check_unique_keys(const YAML::Node& n, const std::string& src) {
  if (n.IsMap()) {
    std::set<std::string> seen;
    for (const auto& kv : n) {
      const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "<non-scalar key>";
      if (!seen.insert(k).second) throw InputError(src, line_of(kv.first), k, "duplicate key");
      check_unique_keys(kv.second, src);
    }
  } else if (n.IsSequence()) {
    for (const auto& e : n) check_unique_keys(e, src);
  }
}

void check_keys(const YAML::Node& map, const std::set<std::string>& known, const std::string& src,
                const std::string& path, const std::string& what = "unknown field") {
  for (const auto& kv : map) {
    const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "<non-scalar key>";
    if (!known.count(k)) throw InputError(src, line_of(kv.first), path + k, what);
  }
}

void require_nonneg(double v, const YAML::Node& map, const char* key, const std::string& src,
                    const std::string& path) {
  if (!(v >= 0) || std::isnan(v))
    throw InputError(src, line_of(map[key]), path + key, "must be >= 0, got " + std::to_string(v));
}

constexpr int kMaxServers = 1'000'000;
constexpr long long kMaxGpus = 4'194'304;  // 4M GPUs: 40x the largest scale bench (100k GPUs, docs/performance.md)

const std::set<std::string> kServerKeys = {"count",     "gpus",       "gpu_mem_gb", "cpus",
                                           "dram_gb",   "storage_mbps", "nic_gbps", "intra_gbps",
                                           "gpu_type",  "gpu_speed",  "rack",       "servers_per_rack"};

ClusterSpec parse_cluster_yaml_checked(const std::string& text, const std::string& src);

}  // namespace

// Any yaml-cpp exception the checks above did not turn into a field's message is still an input error.
ClusterSpec parse_cluster_yaml(const std::string& text, const std::string& src) {
  try {
    return parse_cluster_yaml_checked(text, src);
  } catch (const YAML::Exception& e) {
    throw InputError(src, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "bad YAML: " + e.msg);
  }
}

namespace {

// network: {contention_a, latency_us, beta_ms_per_mb, eta_ms_per_mb}
void parse_network(const YAML::Node& root, ClusterSpec& spec, const std::string& src) {
  if (const YAML::Node net = root["network"]) {
    if (!net.IsMap()) throw InputError(src, line_of(net), "network", "expected a mapping");
    check_keys(net, {"contention_a", "latency_us", "beta_ms_per_mb", "eta_ms_per_mb"}, src, "network.");
    spec.network.contention_a = get<double>(net, "contention_a", 0.0, src, "network.");
    require_nonneg(spec.network.contention_a, net, "contention_a", src, "network.");
    spec.network.latency_us = get<double>(net, "latency_us", 0.0, src, "network.");
    require_nonneg(spec.network.latency_us, net, "latency_us", src, "network.");
    spec.network.beta_ms_per_mb = get<double>(net, "beta_ms_per_mb", 0.0, src, "network.");
    require_nonneg(spec.network.beta_ms_per_mb, net, "beta_ms_per_mb", src, "network.");
    spec.network.eta_ms_per_mb = get<double>(net, "eta_ms_per_mb", 0.0, src, "network.");
    require_nonneg(spec.network.eta_ms_per_mb, net, "eta_ms_per_mb", src, "network.");
  }
}

// racks: [{name, oversubscription}]; their index by name.
std::map<std::string, int> parse_racks(const YAML::Node& root, ClusterSpec& spec, const std::string& src) {
  std::map<std::string, int> rack_index;
  if (const YAML::Node racks = root["racks"]) {
    if (!racks.IsSequence()) throw InputError(src, line_of(racks), "racks", "expected a list");
    for (std::size_t i = 0; i < racks.size(); ++i) {
      const std::string p = "racks[" + std::to_string(i) + "].";
      if (!racks[i].IsMap()) throw InputError(src, line_of(racks[i]), p, "expected a mapping");
      check_keys(racks[i], {"name", "oversubscription"}, src, p);
      RackSpec r;
      r.name = get<std::string>(racks[i], "name", "rack" + std::to_string(i), src, p);
      r.oversubscription = get<double>(racks[i], "oversubscription", 1.0, src, p);
      if (!(r.oversubscription >= 1.0))
        throw InputError(src, line_of(racks[i]), p + "oversubscription", "must be >= 1");
      if (rack_index.count(r.name)) throw InputError(src, line_of(racks[i]), p + "name", "duplicate rack '" + r.name + "'");
      rack_index[r.name] = static_cast<int>(spec.racks.size());
      spec.racks.push_back(r);
    }
  }
  return rack_index;
}

// One server group: its server, count and rack (by name or servers_per_rack, returned in per_rack).
ServerSpec parse_server_group(const YAML::Node& g, const std::string& p, const std::string& src,
                              const std::map<std::string, int>& rack_index, int& count, int& per_rack) {
  ServerSpec s;
  count = get<int>(g, "count", 1, src, p);
  if (count < 1) throw InputError(src, line_of(g["count"]), p + "count", "must be >= 1");
  if (count > kMaxServers) throw InputError(src, line_of(g["count"]), p + "count", "is out of range (at most 1,000,000)");
  s.gpus = get<int>(g, "gpus", 0, src, p);
  if (!g["gpus"]) throw InputError(src, line_of(g), p + "gpus", "missing");
  if (s.gpus < 1) throw InputError(src, line_of(g["gpus"]), p + "gpus", "must be >= 1");
  if (s.gpus > 1024) throw InputError(src, line_of(g["gpus"]), p + "gpus", "is out of range (at most 1024 per server)");
  s.gpu_mem_gb = get<double>(g, "gpu_mem_gb", 32.0, src, p);
  s.cpus = get<int>(g, "cpus", 0, src, p);
  s.dram_gb = get<double>(g, "dram_gb", 0.0, src, p);
  s.storage_mbps = get<double>(g, "storage_mbps", 0.0, src, p);
  s.nic_gbps = get<double>(g, "nic_gbps", 10.0, src, p);
  s.intra_gbps = get<double>(g, "intra_gbps", std::numeric_limits<double>::infinity(), src, p);
  const std::string type = get<std::string>(g, "gpu_type", "default", src, p);
  const KnownGpuType* known = find_gpu_type(type);
  if (!known)
    throw InputError(src, line_of(g["gpu_type"]), p + "gpu_type",
                     "unknown GPU type '" + type + "' (known: " + known_gpu_type_list() + "; docs/perf-model.md)");
  s.gpu_type = known->name;
  s.gpu_speed = get<double>(g, "gpu_speed", known->speed, src, p);  // the type's measured speed unless given
  for (const char* k : {"gpu_mem_gb", "dram_gb", "storage_mbps"})
    require_nonneg(get<double>(g, k, 0.0, src, p), g, k, src, p);
  if (s.cpus < 0) throw InputError(src, line_of(g["cpus"]), p + "cpus", "must be >= 0");
  if (g["gpu_mem_gb"] && !(s.gpu_mem_gb > 0))
    throw InputError(src, line_of(g["gpu_mem_gb"]), p + "gpu_mem_gb", "must be > 0 (GPU memory per GPU)");
  if (!(s.nic_gbps > 0)) throw InputError(src, line_of(g["nic_gbps"]), p + "nic_gbps", "must be > 0");
  if (!(s.intra_gbps > 0)) throw InputError(src, line_of(g["intra_gbps"]), p + "intra_gbps", "must be > 0");
  if (!(s.gpu_speed > 0)) throw InputError(src, line_of(g["gpu_speed"]), p + "gpu_speed", "must be > 0");
  per_rack = get<int>(g, "servers_per_rack", 0, src, p);
  if (g["servers_per_rack"] && per_rack < 1)
    throw InputError(src, line_of(g["servers_per_rack"]), p + "servers_per_rack", "must be >= 1");
  if (g["servers_per_rack"] && g["rack"])
    throw InputError(src, line_of(g["rack"]), p + "rack", "give either rack or servers_per_rack, not both");
  s.rack = 0;
  if (g["rack"]) {
    const auto name = get<std::string>(g, "rack", "", src, p);
    auto it = rack_index.find(name);
    if (it == rack_index.end()) throw InputError(src, line_of(g["rack"]), p + "rack", "unknown rack '" + name + "'");
    s.rack = it->second;
  }
  return s;
}

ClusterSpec parse_cluster_yaml_checked(const std::string& text, const std::string& src) {
  YAML::Node root;
  try {
    check_aliases(text, src);
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(src, e.mark.line + 1, "", "bad YAML: " + e.msg);
  }
  if (!root.IsMap()) throw InputError(src, line_of(root), "", "expected a mapping with 'servers'");
  check_unique_keys(root, src);
  check_keys(root, {"name", "network", "racks", "servers"}, src, "");
  ClusterSpec spec;
  spec.name = get<std::string>(root, "name", std::filesystem::path(src).stem().string(), src, "");
  parse_network(root, spec, src);
  const std::map<std::string, int> rack_index = parse_racks(root, spec, src);
  const YAML::Node servers = root["servers"];
  if (!servers) throw InputError(src, line_of(root), "servers", "missing (a list of server groups)");
  if (!servers.IsSequence() || servers.size() == 0)
    throw InputError(src, line_of(servers), "servers", "expected a non-empty list");
  long long total_gpus = 0;
  for (std::size_t i = 0; i < servers.size(); ++i) {
    const YAML::Node g = servers[i];
    const std::string p = "servers[" + std::to_string(i) + "].";
    if (!g.IsMap()) throw InputError(src, line_of(g), p, "expected a mapping");
    check_keys(g, kServerKeys, src, p, "unknown server field");
    int count = 1, per_rack = 0;
    const ServerSpec s = parse_server_group(g, p, src, rack_index, count, per_rack);
    if (spec.servers.size() + static_cast<std::size_t>(count) > static_cast<std::size_t>(kMaxServers))
      throw InputError(src, line_of(g), p + "count", "the cluster is out of range (at most 1,000,000 servers)");
    // Per-GPU state is kept for every GPU of the cluster: a total past kMaxGpus (1M servers x 1024 GPUs asked for
    // more than 9 GB before anything was checked) is refused here, naming the group that passes it.
    total_gpus += static_cast<long long>(count) * s.gpus;
    if (total_gpus > kMaxGpus)
      throw InputError(src, line_of(g), p + "count", "the cluster is out of range (at most " +
                                                          std::to_string(kMaxGpus) + " GPUs in all)");
    for (int c = 0; c < count; ++c) {
      ServerSpec copy = s;
      copy.rack = per_rack > 0 ? static_cast<int>(spec.servers.size()) / per_rack : s.rack;
      spec.servers.push_back(copy);
    }
  }
  return spec;
}

}  // namespace

const std::vector<ClusterPreset>& cluster_presets() {
  static const std::vector<ClusterPreset> presets = [] {
    std::vector<ClusterPreset> v;
    for (const auto& f : embedded::files())
      if (f.path.rfind("clusters/", 0) == 0)
        v.push_back({std::filesystem::path(f.path).stem().string(), std::string(f.text)});
    return v;
  }();
  return presets;
}

// pollux:N[:G]: the Pollux simulator's cluster (--min-nodes N, --num-gpus G, default 4): N nodes of G T4 GPUs
// (the GPUs its traces were measured on, shared/traces/pollux/README.md).
ClusterSpec pollux_cluster(const std::string& arg) {
  const std::string usage = "expected pollux:N[:G] (N nodes of G T4 GPUs, 1 <= G <= 4)";
  const std::string body = arg.substr(arg.find(':') + 1);
  const auto colon = body.find(':');
  auto num = [&](const std::string& x) {
    if (x.empty() || x.size() > 4 || x.find_first_not_of("0123456789") != std::string::npos)
      throw InputError("--cluster", 0, arg, usage);
    return std::stol(x);
  };
  const long n = num(body.substr(0, colon));
  const long g = colon == std::string::npos ? 4 : num(body.substr(colon + 1));
  if (n < 1 || g < 1 || g > 4) throw InputError("--cluster", 0, arg, usage);
  const std::string yaml = "name: \"" + arg + "\"\nservers:\n  - {count: " + std::to_string(n) + ", gpus: " +
                           std::to_string(g) + ", gpu_type: t4, gpu_mem_gb: 16, cpus: " + std::to_string(8 * g) +
                           ", dram_gb: " + std::to_string(64 * g) + "}\n";
  return parse_cluster_yaml(yaml, arg);
}

ClusterSpec gavel_cluster(const std::string& arg) {
  const std::string body = arg.substr(arg.find(':') + 1);
  std::vector<long> n;
  std::string cur;
  for (std::size_t i = 0; i <= body.size(); ++i) {
    if (i == body.size() || body[i] == ':') {
      if (cur.empty() || cur.size() > 7 || cur.find_first_not_of("0123456789") != std::string::npos)
        throw InputError("--cluster", 0, arg, "expected gavel:V:P:K[:G] (V100, P100, K80 GPUs; G GPUs per server)");
      n.push_back(std::stol(cur));
      cur.clear();
    } else {
      cur += body[i];
    }
  }
  if (n.size() != 3 && n.size() != 4)
    throw InputError("--cluster", 0, arg, "expected gavel:V:P:K[:G] (V100, P100, K80 GPUs; G GPUs per server)");
  const long g = n.size() == 4 ? n[3] : 1;
  if (g < 1 || g > 64) throw InputError("--cluster", 0, arg, "G, the GPUs per server, must be 1..64");
  static const char* const rows[] = {"gpu_type: v100, gpu_mem_gb: 16", "gpu_type: p100, gpu_mem_gb: 16",
                                     "gpu_type: k80, gpu_mem_gb: 12"};
  std::string yaml = "name: \"" + arg + "\"\nnetwork: {contention_a: 0.2745}\nservers:\n";
  bool any = false;
  for (int t = 0; t < 3; ++t) {
    if (n[t] / g == 0) continue;
    any = true;
    yaml += "  - {count: " + std::to_string(n[t] / g) + ", gpus: " + std::to_string(g) + ", " + rows[t] +
            ", cpus: " + std::to_string(8 * g) + ", dram_gb: " + std::to_string(64 * g) +
            ", nic_gbps: 12.7, intra_gbps: 51}\n";
  }
  if (!any) throw InputError("--cluster", 0, arg, "no whole server of any type: every count is below G");
  return parse_cluster_yaml(yaml, arg);
}

ClusterSpec load_cluster(const std::string& arg) {
  if (arg.rfind("gavel:", 0) == 0) return gavel_cluster(arg);
  if (arg.rfind("pollux:", 0) == 0) return pollux_cluster(arg);
  for (const auto& p : cluster_presets())
    if (p.name == arg) return parse_cluster_yaml(p.yaml, "preset:" + p.name);
  std::error_code ec;
  if (!std::filesystem::exists(arg, ec)) {
    std::string names;
    for (const auto& p : cluster_presets()) names += (names.empty() ? "" : ", ") + p.name;
    throw InputError(arg, 0, "", "no such cluster file or preset (presets: " + names + ")");
  }
  return parse_cluster_yaml(read_input_file(arg, kMaxConfigBytes, "cluster"), arg);
}

}  // namespace rm
