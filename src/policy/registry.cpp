#include "policy/registry.h"

#include <functional>
#include <map>

#include "core/error.h"
#include "core/suggest.h"
#include "policy/a_srpt.h"
#include "policy/allocating_scheduler.h"
#include "policy/allocation/allocations.h"
#include "policy/composed_scheduler.h"
#include "policy/order/orders.h"
#include "policy/placement/placements.h"
#include "policy/planner/sjf_bco_online.h"
#include "workload/parse_util.h"

namespace rm {
namespace {

using OrderFactory = std::function<std::unique_ptr<QueueOrder>(PluginParams&)>;
using PlacementFactory = std::function<std::unique_ptr<Placement>(PluginParams&)>;

struct OrderEntry { const char* name; OrderFactory make; const char* help; };
struct PlacementEntry { const char* name; PlacementFactory make; const char* help; };
struct PresetEntry { const char* name; const char* expands_to; const char* help; };

const std::vector<OrderEntry>& orders() {
  static const std::vector<OrderEntry> v = {
      {"fifo", make_fifo, "first come, first served (non-preemptive, no backfill by default)"},
      {"sjf", make_sjf, "fewest GPUs first (non-preemptive)"},
      {"shortest", make_shortest, "shortest total duration first (non-preemptive)"},
      {"srtf", make_srtf, "shortest remaining time first (preemptive, backfill)"},
      {"srsf", make_srsf, "smallest remaining service = remaining time x GPUs first (preemptive, backfill)"},
      {"2d-las", make_las2d,
       "Tiresias 2D-LAS: queues by attained GPU-seconds, FIFO within a queue; thresholds=3600,36000 (preemptive)"},
      {"las", make_las, "least attained GPU-seconds first, continuous (Synergy's LAS; preemptive)"},
      {"ftf", make_ftf, "finish-time fairness: (waited + remaining time) / total time, ascending as Synergy (preemptive)"},
      {"drf", make_drf, "smallest dominant share of GPUs, CPUs, DRAM first (best-case demand where known)"},
      {"tetris", make_tetris, "smallest (GPU + CPU + DRAM share) x remaining time first (preemptive)"},
  };
  return v;
}

const std::vector<PlacementEntry>& placements() {
  static const std::vector<PlacementEntry> v = {
      {"first-fit", make_first_fit, "servers in index order, lowest free GPUs first (default)"},
      {"consolidated", make_consolidated, "fewest servers: best-fit single server, else largest free first"},
      {"random", make_random, "uniform over free GPUs, seeded by --seed"},
  };
  return v;
}

const std::vector<PresetEntry>& presets() {
  static const std::vector<PresetEntry> v = {
      {"fifo-backfill", "fifo+first-fit+backfill", "FIFO that lets smaller jobs past a blocked head"},
      {"tiresias", "2d-las+consolidated", "Tiresias-style 2D-LAS with consolidated placement"},
      {"srsf-consolidated", "srsf+consolidated", "preemptive SRSF with consolidated placement"},
      {"synergy-proportional", "fifo+fair", "Synergy's baseline: FIFO, GPU-proportional CPUs and DRAM"},
      {"synergy-greedy", "fifo+greedy", "FIFO with Synergy-GREEDY allocation"},
      {"synergy-tune", "fifo+tune", "FIFO with Synergy-TUNE allocation (the authors' headline)"},
      {"synergy-opt", "fifo+opt", "FIFO with Synergy-OPT allocation (ILP)"},
  };
  return v;
}

struct AllocationEntry { const char* name; const char* help; };

// CPU and DRAM allocation (the Synergy mechanisms, src/synergy/<name>.cpp). They need an execution model
// that books CPUs and memory: the job-level engines (fair, greedy, tune; src/policy/allocation) and the round
// model (all four; src/synergy).
const std::vector<AllocationEntry>& allocations() {
  static const std::vector<AllocationEntry> v = {
      {"fair", "GPU-proportional CPUs and DRAM (the default; alias proportional)"},
      {"greedy", "Synergy-GREEDY: best-case CPUs and DRAM if they fit, else the proportional share"},
      {"tune", "Synergy-TUNE: best case, else degrade to what fits, shrinking peers above their share"},
      {"opt", "Synergy-OPT: an ILP (COIN-OR Cbc) sizes the jobs of a round (round model) or of a pass (job level), TUNE places them; matrix speed"},
  };
  return v;
}

bool is_allocation(const std::string& name) {
  for (const auto& a : allocations())
    if (name == a.name) return true;
  return false;
}

// The job-level engine's allocation plugins (the round model runs its own, pass-wide, in src/synergy).
std::unique_ptr<Allocation> make_allocation(const std::string& name, std::uint64_t seed) {
  PluginParams none(name, {}, seed);
  if (name == "fair") return make_fair_allocation(none);
  if (name == "greedy") return make_greedy_allocation(none);
  if (name == "opt") return make_opt_allocation(none);
  return make_tune_allocation(none);
}

const std::map<std::string, std::string> kAliases = {
    {"dlas", "2d-las"}, {"proportional", "fair"}, {"ff", "first-fit"}, {"firstfit", "first-fit"},
    {"consolidate", "consolidated"}, {"pack", "consolidated"}};

PolicyPart parse_part(const std::string& token) {
  PolicyPart p = parse_policy_part(token);
  auto a = kAliases.find(p.name);
  if (a != kAliases.end()) p.name = a->second;
  return p;
}

}  // namespace

const std::vector<PolicyInfo>& policy_catalogue() {
  static const std::vector<PolicyInfo> v = [] {
    std::vector<PolicyInfo> out;
    for (const auto& o : orders()) out.push_back({"order", o.name, o.help});
    for (const auto& p : placements()) out.push_back({"placement", p.name, p.help});
    out.push_back({"flag", "preempt", "make the order preemptive"});
    out.push_back({"flag", "no-preempt", "make the order non-preemptive"});
    out.push_back({"flag", "backfill", "let later jobs start when an earlier one cannot"});
    out.push_back({"flag", "no-backfill", "strict order: stop at the first job that cannot start"});
    out.push_back({"flag", "full-sort",
                   "decide by keying and sorting every active job at every pass instead of the indexes (the same "
                   "decisions, slower: the indexes' reference)"});
    for (const auto& a : allocations()) out.push_back({"allocation", a.name, a.help});
    for (const auto& p : presets()) out.push_back({"preset", p.name, std::string(p.help) + " = " + p.expands_to});
    out.push_back({"scheduler", "sjf-bco-online",
                   "ours: SJF-BCO re-planned around the running jobs at every arrival and finish (kappa=, lambda=, u=)"});
    out.push_back({"scheduler", "a-srpt",
                   "A-SRPT (reconstruction): virtual single-machine SRPT on n N^ alpha^max / M, jobs started in "
                   "virtual-completion order with MAP (predictor=rf|median|mean|global|oracle, backfill=easy|off, "
                   "placement=map|first-fit, refine=2; rf: trees=, depth=, first=, growth=)"});
    out.push_back({"scheduler", "a-srpt-p",
                   "A-SRPT-P: preemptive, by predicted remaining work, greedy MAP, re-decided every event and delta=300 s"});
    return out;
  }();
  return v;
}

PolicyParts parse_policy(const std::string& spec, std::uint64_t seed) {
  PolicyParts out;
  // A preset may stand for the whole policy or for its first parts ("tiresias+tune").
  std::string expanded;
  for (const auto& token : split_simple(spec, '+')) {
    std::string t = token;
    for (const auto& p : presets())
      if (token == p.name) t = p.expands_to;
    expanded += (expanded.empty() ? "" : "+") + t;
  }
  for (const auto& token : split_simple(expanded, '+')) {
    PolicyPart part = parse_part(token);
    if (part.name.empty()) throw InputError("--policy", 0, spec, "empty part in policy '" + spec + "'");
    if (is_scheduler_policy(part.name))
      throw InputError("--policy", 0, part.name, part.name + " is a whole scheduler: give it alone, with parameters");
    PluginParams params(part.name, part.kv, seed);
    bool found = false;
    for (const auto& o : orders())
      if (part.name == o.name) {
        if (out.order) throw InputError("--policy", 0, part.name, "a second queue order in '" + spec + "'");
        out.order = o.make(params);
        found = true;
      }
    for (const auto& p : placements())
      if (part.name == p.name) {
        if (out.placement) throw InputError("--policy", 0, part.name, "a second placement in '" + spec + "'");
        out.placement = p.make(params);
        found = true;
      }
    for (const auto& a : allocations())
      if (part.name == a.name) {
        if (!out.allocation.empty())
          throw InputError("--policy", 0, part.name, "a second CPU/memory allocation in '" + spec + "'");
        out.allocation = a.name;
        found = true;
      }
    if (part.name == "preempt" || part.name == "no-preempt") out.preempt = part.name == "preempt", found = true;
    if (part.name == "backfill" || part.name == "no-backfill") out.backfill = part.name == "backfill", found = true;
    if (part.name == "full-sort") out.full_sort = found = true;
    if (!found)
      throw InputError("--policy", 0, part.name,
                       "unknown policy or plugin '" + part.name + "'" + [&] {
                         std::vector<std::string> names;
                         for (const auto& c : policy_catalogue()) names.push_back(c.name);
                         return did_you_mean(part.name, names);
                       }() + " (see `ringmaster list-policies`)");
    params.check_all_used();
  }
  if (!out.order) throw InputError("--policy", 0, spec, "no queue order in '" + spec + "' (e.g. fifo, srsf)");
  if (!out.placement) {
    PluginParams none("first-fit", {}, seed);
    out.placement = make_first_fit(none);
  }
  return out;
}

const std::vector<ExecSupport>& exec_support() {
  static const std::string task_only = "the task model runs its own policies (ada-srsf, srsf1, ...: task-key, task-place, task-admit)";
  static const std::string round_parts = "the round model runs order[+first-fit|consolidated][+allocation] policies";
  static const std::string planner_offline = "the planners plan an offline job set with the ring all-reduce law of the rate model";
  static const std::string task_law = "needs the task model's per-task DAGs and contended flows";
  static const std::vector<ExecSupport> v = [] {
    std::vector<ExecSupport> out;
    for (const auto& o : orders())
      out.push_back({o.name, "order", {"", "", task_only, ""}});
    out.push_back({"tiresias", "preset", {"", "", task_only, ""}});
    out.push_back({"fifo+consolidated", "placement", {"", "", task_only, ""}});
    out.push_back({"fifo+random", "placement", {"", "", task_only,
                   "the round model places with FIRST_FIT over GPUs, CPUs and DRAM (first-fit or consolidated)"}});
    out.push_back({"fifo+preempt", "flag", {"", "", task_only,
                   "the round model re-allocates every job at each boundary: preempt/backfill do not apply"}});
    for (const char* a : {"fair", "greedy", "tune"})
      out.push_back({std::string("srsf+") + a, "allocation", {"", "", task_only, ""}});
    out.push_back({"srsf+opt", "allocation", {"", "", task_only, ""}});
    for (const char* s : {"sjf-bco-online", "a-srpt", "a-srpt-p", "a-srpt-p+tune", "a-srpt-p+opt", "sjf-bco-online+tune"})
      out.push_back({s, "scheduler", {"", "", task_only, round_parts + ", not whole schedulers"}});
    for (const char* s : {"sjf-bco", "ls", "ff", "rand"})
      out.push_back({s, "planner", {"", planner_offline, planner_offline, planner_offline}});
    for (const char* s : {"ada-srsf", "srsf1", "srsf2"})
      out.push_back({s, "task", {task_law, task_law, "", task_law}});
    return out;
  }();
  return v;
}

std::unique_ptr<QueueOrder> make_order(const std::string& token, std::uint64_t seed) {
  const PolicyPart part = parse_part(token);
  for (const auto& o : orders())
    if (part.name == o.name) {
      PluginParams params(part.name, part.kv, seed);
      auto order = o.make(params);
      params.check_all_used();
      return order;
    }
  std::string names;
  for (const auto& o : orders()) names += std::string(names.empty() ? "" : ", ") + o.name;
  throw InputError("--policy", 0, part.name, "unknown queue order '" + part.name + "' (available: " + names + ")");
}

bool is_scheduler_policy(const std::string& name) { return is_a_srpt(name) || name == "sjf-bco-online"; }

std::unique_ptr<Scheduler> make_scheduler(const std::string& spec, std::uint64_t seed) {
  if (const auto parts = split_simple(spec, '+'); is_scheduler_policy(parse_part(parts.front()).name)) {
    const PolicyPart first = parse_part(parts.front());
    if (parts.size() > 2 || (parts.size() == 2 && !is_allocation(parse_part(parts[1]).name)))
      throw InputError("--policy", 0, spec,
                       first.name + " takes parameters and at most a CPU/memory allocation (+fair|greedy|tune|opt), not other parts");
    PluginParams params(first.name, first.kv, seed);
    std::unique_ptr<Scheduler> s =
        is_a_srpt(first.name) ? make_a_srpt(first.name, params) : plan::make_sjf_bco_online(params);
    params.check_all_used();
    if (parts.size() == 2) {
      const std::string a = parse_part(parts[1]).name;
      auto alloc = make_allocation(a, seed);
      if (alloc->may_refuse())
        throw InputError("--policy", 0, a,
                         first.name + " assumes the jobs it starts do start; " + a +
                             " may leave one waiting for CPUs (use +tune or +fair)");
      s = std::make_unique<AllocatingScheduler>(std::move(s), std::move(alloc));
    }
    return s;
  }
  PolicyParts parts = parse_policy(spec, seed);
  std::unique_ptr<Allocation> allocation;
  if (!parts.allocation.empty()) allocation = make_allocation(parts.allocation, seed);
  auto order = std::move(parts.order);
  auto placement = std::move(parts.placement);
  const int preempt = parts.preempt, backfill = parts.backfill;
  ComposedOptions opt;
  opt.preemptive = preempt >= 0 ? preempt == 1 : order->default_preemptive();
  opt.backfill = backfill >= 0 ? backfill == 1 : order->default_preemptive();
  opt.full_sort = parts.full_sort;
  std::string name = order->name() + "+" + placement->name() + (opt.preemptive ? "+preempt" : "") +
                     (opt.backfill ? "+backfill" : "") + (allocation ? "+" + allocation->name() : "") +
                     (opt.full_sort ? "+full-sort" : "");
  return std::make_unique<ComposedScheduler>(name, std::move(order), std::move(placement), opt, std::move(allocation));
}

}  // namespace rm
