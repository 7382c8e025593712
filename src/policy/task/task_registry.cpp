#include "policy/task/task_registry.h"

#include <cctype>

#include "core/error.h"
#include "core/suggest.h"
#include "policy/task/task_placements.h"
#include "workload/parse_util.h"

namespace rm::task {
namespace {

struct Preset { const char* name; const char* expands_to; const char* help; };

const std::vector<Preset>& presets() {
  static const std::vector<Preset> v = {
      {"ada-srsf", "queue=ssf+lwf:kappa=2+keys=srsf+adadual", "Ada-SRSF: SSF queue, LWF-2, SRSF keys, AdaDUAL"},
      {"srsf1", "queue=ssf+lwf:kappa=2+keys=srsf+srsf-n:n=1", "SRSF(1): never share a NIC (avoid contention)"},
      {"srsf2", "queue=ssf+lwf:kappa=2+keys=srsf+srsf-n:n=2", "SRSF(2): always accept two-way sharing"},
      {"srsf3", "queue=ssf+lwf:kappa=2+keys=srsf+srsf-n:n=3", "SRSF(3): accept up to three-way sharing"},
  };
  return v;
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// "lwf4" -> "lwf:kappa=4", "bp"/"ff" -> "first-fit".
std::string placement_alias(const std::string& name) {
  if (name == "bp" || name == "ff" || name == "firstfit") return "first-fit";
  if (name.size() > 3 && name.rfind("lwf", 0) == 0 && all_digits(name.substr(3))) return "lwf:kappa=" + name.substr(3);
  return "";
}

// The authors' "<queue>-<placement>-<key>-<thres>-<adaDual>", expanded to parts; empty if not one.
std::string expand_authors(const std::string& s) {
  const auto f = split_simple(s, '-');
  if (f.size() != 5 || !all_digits(f[3]) || f[3].size() > 6 || (f[4] != "true" && f[4] != "false")) return "";
  std::string placement = f[1] == "random" ? "random" : placement_alias(f[1]);
  if (all_digits(f[1])) placement = "lwf:kappa=" + f[1];
  if (placement.empty()) return "";
  const int thres = std::stoi(f[3]);
  const std::string admission =
      f[4] == "true" && thres == 1 ? "adadual" : "srsf-n:n=" + std::to_string(thres + 1);
  return "queue=" + f[0] + "+" + placement + "+keys=" + f[2] + "+" + admission;
}

std::string expand_base(const std::string& first) {
  for (const auto& p : presets())
    if (first == p.name) return p.expands_to;
  return expand_authors(first);
}

bool is_part_name(const std::string& token) {
  const std::string name = parse_policy_part(token).name;
  if (token.find('=') != std::string::npos && token.find(':') == std::string::npos) {
    const std::string k = token.substr(0, token.find('='));
    return k == "queue" || k == "comm" || k == "compute" || k == "keys";
  }
  return name == "lwf" || name == "adadual" || name == "srsf-n" || !placement_alias(name).empty();
}

}  // namespace

bool is_task_policy(const std::string& spec) {
  const std::string first = split_simple(spec, '+').front();
  return !expand_base(first).empty() || is_part_name(first);
}

TaskPolicy make_task_policy(const std::string& spec, std::uint64_t seed) {
  auto tokens = split_simple(spec, '+');
  std::vector<std::string> parts = split_simple(expand_base("ada-srsf"), '+');  // defaults
  if (!tokens.empty()) {
    const std::string base = expand_base(tokens.front());
    if (!base.empty()) {
      parts = split_simple(base, '+');
      tokens.erase(tokens.begin());
    }
  }
  parts.insert(parts.end(), tokens.begin(), tokens.end());
  TaskPolicy p;
  for (const auto& raw : parts) {
    const std::string token = trim(raw);
    if (token.empty()) throw InputError("--policy", 0, spec, "empty part in policy '" + spec + "'");
    const auto eq = token.find('=');
    if (eq != std::string::npos && token.find(':') == std::string::npos) {
      const std::string k = token.substr(0, eq), val = token.substr(eq + 1);
      const Key key = parse_key(val, k);
      if (k == "queue") p.queue = key;
      else if (k == "comm") p.comm = key;
      else if (k == "compute") p.compute = key;
      else if (k == "keys") p.comm = p.compute = key;
      else throw InputError("--policy", 0, k, "unknown key setting '" + k + "' (queue, comm, compute, keys)");
      continue;
    }
    PolicyPart part = parse_policy_part(token);
    if (const std::string a = placement_alias(part.name); !a.empty()) {
      PolicyPart aliased = parse_policy_part(a);
      for (auto& kv : part.kv) aliased.kv[kv.first] = kv.second;
      part = aliased;
    }
    PluginParams params(part.name, part.kv, seed);
    if (part.name == "first-fit") p.placement = make_task_first_fit(params);
    else if (part.name == "random") p.placement = make_task_random(params);
    else if (part.name == "lwf") p.placement = make_lwf(params);
    else if (part.name == "srsf-n") p.admission = make_srsf_n(params);
    else if (part.name == "adadual") p.admission = make_adadual(params);
    else
      throw InputError("--policy", 0, part.name,
                       "unknown task-model plugin '" + part.name + "'" + [&] {
                         std::vector<std::string> names;
                         for (const auto& c : task_policy_catalogue()) names.push_back(c.name);
                         return did_you_mean(part.name, names);
                       }() + " (see `ringmaster list-policies`)");
    params.check_all_used();
  }
  p.name = std::string("queue=") + key_name(p.queue) + "+" + p.placement->name() + "+comm=" + key_name(p.comm) +
           "+compute=" + key_name(p.compute) + "+" + p.admission->name();
  return p;
}

const std::vector<PolicyInfo>& task_policy_catalogue() {
  static const std::vector<PolicyInfo> v = [] {
    std::vector<PolicyInfo> out = {
        {"task-key", "queue=|comm=|compute=|keys=",
         "ssf (total service), srsf (remaining service), srtf (remaining time), stf (total time), sf (fewest GPUs)"},
        {"task-place", "first-fit", "first GPUs with enough free memory, server-major (alias bp, ff)"},
        {"task-place", "random", "uniform over GPUs with enough free memory, seeded by --seed"},
        {"task-place", "lwf", "LWF-kappa: least-workload GPUs, consolidated when > kappa GPUs; kappa=2 (alias lwfK)"},
        {"task-admit", "srsf-n", "SRSF(n) admission: start an all-reduce only if each NIC has < n flows; n=1"},
        {"task-admit", "adadual", "AdaDUAL: share one NIC only if it lowers the pair's total completion time"},
    };
    for (const auto& p : presets()) out.push_back({"task-preset", p.name, std::string(p.help) + " = " + p.expands_to});
    out.push_back({"task-preset", "<q>-<place>-<key>-<thres>-<ada>",
                   "the authors' config strings, e.g. ssf-lwf2-srsf-1-true (Ada-SRSF), ssf-bp-srsf-0-false"});
    return out;
  }();
  return v;
}

}  // namespace rm::task
