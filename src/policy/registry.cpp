#include "policy/registry.h"

#include <cctype>
#include <map>

#include "core/error.h"
#include "core/suggest.h"
#include "policy/a_srpt.h"
#include "policy/allocating_scheduler.h"
#include "policy/allocation/allocations.h"
#include "policy/composed_scheduler.h"
#include "policy/external.h"
#include "policy/elastic_policies.h"
#include "policy/gavel.h"
#include "policy/order/orders.h"
#include "policy/params.h"
#include "policy/placement/placements.h"
#include "policy/planner/sjf_bco_online.h"
#include "workload/parse_util.h"

namespace rm {
namespace {

using OrderFactory = std::unique_ptr<QueueOrder> (*)(PluginParams&);
using PlacementFactory = std::unique_ptr<Placement> (*)(PluginParams&);
using AllocationFactory = std::unique_ptr<Allocation> (*)(PluginParams&);

struct OrderEntry { const char* name; OrderFactory make; const char* help; };
struct PlacementEntry { const char* name; PlacementFactory make; const char* help; };
struct AllocationEntry { const char* name; AllocationFactory make; const char* help; };
struct NameEntry { const char* name; const char* help; };
struct PresetEntry { const char* name; const char* expands_to; const char* help; };

const std::vector<OrderEntry>& orders() {
  static const std::vector<OrderEntry> v = {
      {"fifo", make_fifo, "first come, first served (non-preemptive, no backfill by default)"},
      {"edf", make_edf, "earliest deadline first (the trace's deadline_s; jobs without one last; non-preemptive)"},
      {"sjf", make_sjf, "fewest GPUs first (non-preemptive)"},
      {"shortest", make_shortest, "shortest total duration first (non-preemptive)"},
      {"srtf", make_srtf, "shortest remaining time first (preemptive, backfill)"},
      {"srsf", make_srsf, "smallest remaining service = remaining time x GPUs first (preemptive, backfill)"},
      {"2d-las", make_las2d,
       "Tiresias 2D-LAS: queues by attained GPU-seconds, FIFO within a queue; thresholds=3600,36000 (preemptive)"},
      {"las", make_las, "least attained GPU-seconds first, continuous (Synergy's LAS; preemptive)"},
      {"ftf", make_ftf,
       "finish-time fairness rho = (waited + remaining time) / total time, ascending as Synergy's simulator sorts it "
       "(the least-wronged job first; direction=themis reverses it) (preemptive)"},
      {"themis", make_themis,
       "Themis' finish-time fairness: the largest rho = (waited + remaining time) / total time first (ftf:direction=themis; "
       "preemptive)"},
      {"drf", make_drf, "smallest dominant share of GPUs, CPUs, DRAM first (best-case demand where known)"},
      {"tetris", make_tetris, "smallest (GPU + CPU + DRAM share) x remaining time first (preemptive)"},
      {"gittins", make_gittins,
       "highest Gittins index of attained GPU-seconds first, continuous (sup over quanta); cdf=FILE|online "
       "(default Tiresias' yarn-gput1000.csv under --data-dir), window=1000 (preemptive)"},
      {"2d-gittins", make_gittins2d,
       "Tiresias' discretised 2D-Gittins: the index at whole quanta delta=3250 GPU-seconds; cdf= as gittins "
       "(preemptive)"},
      {"py", make_py_order,
       "a queue order written in Python: py:file=PATH;class=NAME or py:PATH:NAME, its key(job) and flags "
       "(docs/python.md)"},
  };
  return v;
}

const std::vector<PlacementEntry>& placements() {
  static const std::vector<PlacementEntry> v = {
      {"first-fit", make_first_fit, "servers in index order, lowest free GPUs first"},
      {"consolidated", make_consolidated,
       "keeps a job's shape (the default): one server if one holds it, else the fewest servers an idle cluster "
       "gives it, in one rack where it can; waits for that shape; relax=S takes the fewest servers free now after "
       "waiting S seconds (Philly's delay scheduling)"},
      {"spread-ok", make_spread_ok,
       "the fewest servers free now, whatever their number (consolidated:relax=0; the default before issue 41)"},
      {"random", make_random, "uniform over free GPUs, seeded by --seed"},
      {"py", make_py_placement,
       "a placement written in Python: py:file=PATH;class=NAME, its place(job, servers) or filter/score (docs/python.md)"},
  };
  return v;
}

const std::vector<NameEntry>& flags() {
  static const std::vector<NameEntry> v = {
      {"preempt", "make the order preemptive"},
      {"no-preempt", "make the order non-preemptive"},
      {"backfill", "let later jobs start when an earlier one cannot, without reservations (greedy backfill)"},
      {"easy-backfill",
       "EASY backfill (non-preemptive orders): the blocked head gets a reservation; later jobs start only if they "
       "do not delay it, by their expected run times"},
      {"conservative-backfill",
       "conservative backfill (non-preemptive orders): every blocked job gets a reservation (at most 100 a pass); "
       "later jobs start only if they delay none"},
      {"no-backfill", "strict order: stop at the first job that cannot start"},
      {"full-sort", "decide by keying and sorting every active job at every pass instead of the indexes (the same "
                    "decisions, slower: the indexes' reference)"},
  };
  return v;
}

// CPU and DRAM allocation (the Synergy mechanisms). The job-level engines run these plugins
// (src/policy/allocation): one plugin each, whose round_pass is the round model's pass-wide version.
const std::vector<AllocationEntry>& allocations() {
  static const std::vector<AllocationEntry> v = {
      {"fair", make_fair_allocation, "GPU-proportional CPUs and DRAM (the default; alias proportional)"},
      {"greedy", make_greedy_allocation,
       "Synergy-GREEDY: best-case CPUs and DRAM if they fit, else the proportional share"},
      {"tune", make_tune_allocation,
       "Synergy-TUNE: best case, else degrade to what fits, shrinking peers above their share"},
      {"opt", make_opt_allocation,
       "Synergy-OPT: an ILP (COIN-OR Cbc) sizes the jobs of a round (round model) or of a pass (job level), TUNE places them; matrix speed"},
      {"py", make_py_allocation,
       "a CPU/DRAM allocation written in Python: py:file=PATH;class=NAME, its allocate(job, servers) (docs/python.md)"},
  };
  return v;
}

const std::vector<PresetEntry>& presets() {
  static const std::vector<PresetEntry> v = {
      {"fifo-backfill", "fifo+easy-backfill", "FIFO with EASY backfill: smaller jobs pass a blocked head without delaying it"},
      {"tiresias", "2d-las+consolidated", "Tiresias-style 2D-LAS with consolidated placement"},
      {"srsf-consolidated", "srsf+consolidated", "preemptive SRSF with consolidated placement"},
      {"synergy-proportional", "fifo+fair", "Synergy's baseline: FIFO, GPU-proportional CPUs and DRAM"},
      {"synergy-greedy", "fifo+greedy", "FIFO with Synergy-GREEDY allocation"},
      {"synergy-tune", "fifo+tune", "FIFO with Synergy-TUNE allocation (the authors' headline)"},
      {"synergy-opt", "fifo+opt", "FIFO with Synergy-OPT allocation (ILP)"},
  };
  return v;
}

const std::vector<NameEntry>& schedulers() {
  static const std::vector<NameEntry> v = {
      {"sjf-bco-online",
       "ours: SJF-BCO re-planned around the running jobs at every arrival and finish (kappa=, lambda=, u=)"},
      {"a-srpt",
       "A-SRPT (reconstruction): virtual single-machine SRPT on n N^ alpha^max / M, jobs started in "
       "virtual-completion order with MAP (predictor=rf|median|mean|global|oracle, backfill=easy|off, "
       "placement=map|first-fit, refine=2; rf: trees=, depth=, first=, growth=)"},
      {"a-srpt-p", "A-SRPT-P: preemptive, by predicted remaining work, greedy MAP, re-decided every event and delta=300 s"},
      {"gavel-las", "Gavel's max-min fairness (LAS) by Clp, its round mechanism (round=360, reset=0 s)"},
      {"gavel-las-perf", "Gavel's LAS_perf: max-min fairness over the perf model's per-type throughputs (measured:*)"},
      {"gavel-ftf", "Gavel's finish-time fairness (bisection over Clp LPs), every type at the fastest type's speed"},
      {"gavel-ftf-perf", "Gavel's finish-time fairness over the perf model's per-type throughputs (measured:*)"},
      {"gavel-makespan", "Gavel's minimum total duration (its bisection over Clp LPs), heterogeneity-agnostic"},
      {"gavel-makespan-perf", "Gavel's minimum total duration over the perf model's per-type throughputs (measured:*)"},
      {"gavel-throughput", "Gavel's maximum total throughput, every type counted alike (allocated GPU time)"},
      {"gavel-throughput-perf", "Gavel's maximum total throughput over the perf model's per-type throughputs (measured:*)"},
      {"optimus", "elastic: Optimus+Oracle as Pollux's simulator runs it: each job its least GPUs, then GPU by GPU to "
                  "the largest drop in remaining time, reallocated every round (round=60 s; docs/elastic.md)"},
      {"pollux", "elastic: Pollux's policy (NSGA-II over jobs x servers, power-mean speedups with the restart penalty, "
                 "the --compat pollux search) with the run's performance model as its oracle, every round (round=60 s; "
                 "one GPU type; docs/elastic.md)"},
      {"sia", "elastic, heterogeneous: Sia's policy (goodput of every GPU type x count, normalised, restart-discounted, "
              "raised to p=-0.5; one configuration per job by Cbc's 0/1 program, the --compat sia one), weighing Sia's "
              "jobs by their own per-type models under --job-model sia, else the run's performance model, every round "
              "(round=60 s, lambda_n=1.1; docs/sia.md)"},
      {"py", "a whole scheduler written in Python: py:file=PATH;class=NAME, its schedule(view) -> decisions "
             "(docs/python.md)"},
  };
  return v;
}

// The task model's parts (Wang et al. 2020; src/policy/task): keys, placements, admissions, presets.
const std::vector<NameEntry>& task_placements() {
  static const std::vector<NameEntry> v = {
      {"first-fit", "first GPUs with enough free memory, server-major (alias bp, ff)"},
      {"random", "uniform over GPUs with enough free memory, seeded by --seed"},
      {"lwf", "LWF-kappa: least-workload GPUs, consolidated when > kappa GPUs; kappa=2 (alias lwfK)"},
  };
  return v;
}

const std::vector<NameEntry>& task_admissions() {
  static const std::vector<NameEntry> v = {
      {"srsf-n", "SRSF(n) admission: start an all-reduce only if each NIC has < n flows; n=1"},
      {"adadual", "AdaDUAL: share one NIC only if it lowers the pair's total completion time"},
  };
  return v;
}

const std::vector<PresetEntry>& task_presets() {
  static const std::vector<PresetEntry> v = {
      {"ada-srsf", "queue=ssf+lwf:kappa=2+keys=srsf+adadual", "Ada-SRSF: SSF queue, LWF-2, SRSF keys, AdaDUAL"},
      {"srsf1", "queue=ssf+lwf:kappa=2+keys=srsf+srsf-n:n=1", "SRSF(1): never share a NIC (avoid contention)"},
      {"srsf2", "queue=ssf+lwf:kappa=2+keys=srsf+srsf-n:n=2", "SRSF(2): always accept two-way sharing"},
      {"srsf3", "queue=ssf+lwf:kappa=2+keys=srsf+srsf-n:n=3", "SRSF(3): accept up to three-way sharing"},
  };
  return v;
}

const std::vector<NameEntry>& planners() {
  static const std::vector<NameEntry> v = {
      {"sjf-bco", "Yu et al.'s SJF-BCO: bisection on the load cap, kappa loop, FA-FFP / LBSGF "
                  "(kappa=, lambda=, horizon=1200, u=1, lbsgf=prefix|global)"},
      {"ls", "list scheduling: least-loaded GPUs under the cap, bisection (horizon=, u=)"},
      {"ff", "first-fit under the cap, bisection (horizon=, u=)"},
      {"rand", "random idle GPUs, no cap, seeded (horizon=)"},
  };
  return v;
}

const std::map<std::string, std::string> kAliases = {
    {"dlas", "2d-las"}, {"proportional", "fair"}, {"ff", "first-fit"}, {"firstfit", "first-fit"},
    {"consolidate", "consolidated"}, {"pack", "consolidated"}};

template <class Table>
bool in_table(const Table& t, const std::string& name) {
  for (const auto& e : t)
    if (name == e.name) return true;
  return false;
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

const std::vector<PolicyInfo>& policy_catalogue() {
  static const std::vector<PolicyInfo> v = [] {
    std::vector<PolicyInfo> out;
    for (const auto& o : orders()) out.push_back({"order", o.name, o.help});
    for (const auto& p : placements()) out.push_back({"placement", p.name, p.help});
    for (const auto& f : flags()) out.push_back({"flag", f.name, f.help});
    for (const auto& a : allocations()) out.push_back({"allocation", a.name, a.help});
    for (const auto& p : presets()) out.push_back({"preset", p.name, std::string(p.help) + " = " + p.expands_to});
    for (const auto& s : schedulers()) out.push_back({"scheduler", s.name, s.help});
    out.push_back({"task-key", "queue=|comm=|compute=|keys=",
                   "ssf (total service), srsf (remaining service), srtf (remaining time), stf (total time), sf (fewest GPUs)"});
    for (const auto& p : task_placements()) out.push_back({"task-place", p.name, p.help});
    for (const auto& a : task_admissions()) out.push_back({"task-admit", a.name, a.help});
    for (const auto& p : task_presets())
      out.push_back({"task-preset", p.name, std::string(p.help) + " = " + p.expands_to});
    out.push_back({"task-preset", "<q>-<place>-<key>-<thres>-<ada>",
                   "the authors' config strings, e.g. ssf-lwf2-srsf-1-true (Ada-SRSF), ssf-bp-srsf-0-false"});
    for (const auto& p : planners()) out.push_back({"planner", p.name, p.help});
    return out;
  }();
  return v;
}

const std::vector<std::string>& policy_names() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    for (const auto& c : policy_catalogue())
      if (c.name.find_first_of("<|") == std::string::npos) out.push_back(c.name);
    return out;
  }();
  return v;
}

bool is_name_at(Point p, const std::string& name) {
  switch (p) {
    case Point::Order: return in_table(orders(), name);
    case Point::Placement: return in_table(placements(), name);
    case Point::Allocation: return in_table(allocations(), name);
    case Point::Flag: return in_table(flags(), name);
    case Point::Scheduler: return in_table(schedulers(), name);
    case Point::Planner: return in_table(planners(), name);
    case Point::TaskKey: return name == "queue" || name == "comm" || name == "compute" || name == "keys";
    case Point::TaskPlacement: return in_table(task_placements(), name);
    case Point::TaskAdmission: return in_table(task_admissions(), name);
  }
  return false;
}

std::string resolve_alias(const std::string& name) {
  const auto a = kAliases.find(name);
  return a == kAliases.end() ? name : a->second;
}

const char* preset_expansion(const std::string& name) {
  for (const auto& p : presets())
    if (name == p.name) return p.expands_to;
  return nullptr;
}

std::string task_placement_alias(const std::string& name) {
  if (name == "bp" || name == "ff" || name == "firstfit") return "first-fit";
  if (name.size() > 3 && name.rfind("lwf", 0) == 0 && all_digits(name.substr(3))) return "lwf:kappa=" + name.substr(3);
  return "";
}

std::string task_base_expansion(const std::string& token) {
  for (const auto& p : task_presets())
    if (token == p.name) return p.expands_to;
  // The authors' "<queue>-<placement>-<key>-<thres>-<adaDual>" (spec A.6.5, A.11 item 25).
  const auto f = split_simple(token, '-');
  if (f.size() != 5 || !all_digits(f[3]) || f[3].size() > 6 || (f[4] != "true" && f[4] != "false")) return "";
  std::string placement = f[1] == "random" ? "random" : task_placement_alias(f[1]);
  if (all_digits(f[1])) placement = "lwf:kappa=" + f[1];
  if (placement.empty()) return "";
  const int thres = std::stoi(f[3]);
  const std::string admission = f[4] == "true" && thres == 1 ? "adadual" : "srsf-n:n=" + std::to_string(thres + 1);
  return "queue=" + f[0] + "+" + placement + "+keys=" + f[2] + "+" + admission;
}

bool is_task_part(const std::string& token) {
  if (token.find('=') != std::string::npos && token.find(':') == std::string::npos)
    return is_name_at(Point::TaskKey, token.substr(0, token.find('=')));
  const std::string name = parse_policy_part(token).name;
  return name == "lwf" || is_name_at(Point::TaskAdmission, name) || !task_placement_alias(name).empty();
}

namespace {

// The plugin `part` names, from the table of its extension point; its parameters checked.
template <class Entry>
auto make_from(const std::vector<Entry>& t, const PartSpec& part, std::uint64_t seed) {
  for (const auto& e : t)
    if (part.name == e.name) {
      PluginParams params(part.name, part.kv, seed);
      auto made = e.make(params);
      params.check_all_used();
      return made;
    }
  throw InvariantError("no plugin '" + part.name + "' at this extension point");
}

}  // namespace

std::unique_ptr<QueueOrder> make_order(const PartSpec& part, std::uint64_t seed) {
  return make_from(orders(), part, seed);
}
std::unique_ptr<Placement> make_placement(const PartSpec& part, std::uint64_t seed) {
  return make_from(placements(), part, seed);
}
std::unique_ptr<Allocation> make_allocation(const PartSpec& part, std::uint64_t seed) {
  return make_from(allocations(), part, seed);
}

std::unique_ptr<QueueOrder> make_order(const std::string& token, std::uint64_t seed) {
  PolicyPart p = parse_policy_part(token);
  p.name = resolve_alias(p.name);
  if (!is_name_at(Point::Order, p.name)) {
    std::string names;
    for (const auto& o : orders()) names += std::string(names.empty() ? "" : ", ") + o.name;
    throw InputError("--policy", 0, p.name, "unknown queue order '" + p.name + "' (available: " + names + ")");
  }
  return make_order(PartSpec{Point::Order, p.name, p.kv}, seed);
}

namespace {

// A whole scheduler, with an optional allocation after it.
std::unique_ptr<Scheduler> make_whole_scheduler(const PolicySpec& spec, std::uint64_t seed) {
  const PartSpec& first = spec.parts.front();
  PluginParams params(first.name, first.kv, seed);
  std::unique_ptr<Scheduler> s = first.name == "py"                ? python_policies().scheduler(params.rest(), seed)
                                 : is_a_srpt(first.name)          ? make_a_srpt(first.name, params)
                                 : is_gavel_scheduler(first.name) ? make_gavel_scheduler(first.name, params)
                                 : first.name == "optimus"        ? make_optimus(params)
                                 : first.name == "pollux"         ? make_pollux(params)
                                 : first.name == "sia"            ? make_sia(params)
                                                                  : plan::make_sjf_bco_online(params);
  params.check_all_used();
  if (const PartSpec* a = spec.part(Point::Allocation)) {
    auto alloc = make_allocation(*a, seed);
    if (alloc->may_refuse())
      throw InputError("--policy", 0, a->name,
                       first.name + " assumes the jobs it starts do start; " + a->name +
                           " may leave one waiting for CPUs (use +tune or +fair)");
    s = std::make_unique<AllocatingScheduler>(std::move(s), std::move(alloc));
  }
  return s;
}

}  // namespace

std::unique_ptr<Scheduler> make_scheduler(const PolicySpec& spec, std::uint64_t seed) {
  if (spec.family == PolicyFamily::Scheduler) return make_whole_scheduler(spec, seed);
  if (spec.family != PolicyFamily::Composed)
    throw InputError("--policy", 0, spec.text, exec_refusal(spec, ExecModel::Rate));
  std::unique_ptr<QueueOrder> order;
  std::unique_ptr<Placement> placement;
  std::unique_ptr<Allocation> allocation;
  int preempt = -1, backfill = -1;
  bool full_sort = false;
  Reservation reserve = Reservation::None;
  std::string preempt_flag, backfill_flag;  // contradictory flags are refused, not last-wins
  const auto one_of = [&](std::string& chosen, const std::string& flag) {
    if (!chosen.empty() && chosen != flag)
      throw InputError("--policy", 0, spec.text,
                       "'" + flag + "' contradicts '" + chosen + "' (a preset may bring one of them: list-policies)");
    chosen = flag;
  };
  for (const auto& part : spec.parts) {
    if (part.point == Point::Order) order = make_order(part, seed);
    if (part.point == Point::Placement) placement = make_placement(part, seed);
    if (part.point == Point::Allocation) allocation = make_allocation(part, seed);
    if (part.point != Point::Flag) continue;
    if (part.name == "preempt" || part.name == "no-preempt") one_of(preempt_flag, part.name);
    if (part.name == "backfill" || part.name == "no-backfill" || part.name == "easy-backfill" ||
        part.name == "conservative-backfill")
      one_of(backfill_flag, part.name);
    if (part.name == "preempt" || part.name == "no-preempt") preempt = part.name == "preempt";
    if (part.name == "backfill" || part.name == "no-backfill") backfill = part.name == "backfill";
    if (part.name == "easy-backfill" || part.name == "conservative-backfill") {
      backfill = 1;
      reserve = part.name == "easy-backfill" ? Reservation::Easy : Reservation::Conservative;
    }
    if (part.name == "full-sort") full_sort = true;
  }
  ComposedOptions opt;
  opt.preemptive = preempt >= 0 ? preempt == 1 : order->default_preemptive();
  opt.backfill = backfill >= 0 ? backfill == 1 : order->default_backfill();
  opt.full_sort = full_sort;
  opt.reserve = reserve;
  if (reserve != Reservation::None && opt.preemptive)
    throw InputError("--policy", 0, spec.text,
                     "easy-backfill and conservative-backfill reserve GPUs for waiting jobs of a non-preemptive order; " +
                         order->name() + " preempts (add +no-preempt, or use +backfill)");
  std::string name = order->name() + "+" + placement->name() + (opt.preemptive ? "+preempt" : "") +
                     (reserve == Reservation::Easy           ? "+easy-backfill"
                      : reserve == Reservation::Conservative ? "+conservative-backfill"
                      : opt.backfill                         ? "+backfill"
                                                             : "") + (allocation ? "+" + allocation->name() : "") +
                     (opt.full_sort ? "+full-sort" : "");
  return std::make_unique<ComposedScheduler>(name, std::move(order), std::move(placement), opt, std::move(allocation));
}

std::unique_ptr<Scheduler> make_scheduler(const std::string& text, std::uint64_t seed) {
  return make_scheduler(parse_policy_spec(text), seed);
}

std::string exec_refusal(const PolicySpec& spec, ExecModel exec) {
  static const std::string task_only =
      "the task model runs its own policies (ada-srsf, srsf1, ...: task-key, task-place, task-admit)";
  static const std::string round_parts = "the round model runs order[+first-fit|consolidated][+allocation] policies";
  static const std::string planner_offline =
      "the planners plan an offline job set with the ring all-reduce law of the rate model";
  static const std::string task_law = "needs the task model's per-task DAGs and contended flows";
  switch (spec.family) {
    case PolicyFamily::Planner: return exec == ExecModel::Rate ? "" : planner_offline;
    case PolicyFamily::Task: return exec == ExecModel::Task ? "" : task_law;
    case PolicyFamily::Scheduler:
      if (exec == ExecModel::Task) return task_only;
      return exec == ExecModel::Round ? round_parts + ", not whole schedulers" : "";
    case PolicyFamily::Composed: break;
    case PolicyFamily::Peer: return "a peer simulator's policy runs only under its --compat mode";
  }
  if (exec == ExecModel::Task) return task_only;
  if (exec != ExecModel::Round) return "";
  const PartSpec* place = spec.part(Point::Placement);
  if (place && place->name != "first-fit" && place->name != "consolidated")
    return "the round model places with FIRST_FIT over GPUs, CPUs and DRAM: first-fit or consolidated (the default; "
           "first-fit under --compat synergy)";
  for (const auto& part : spec.parts)
    if (part.point == Point::Flag && part.name != "full-sort")
      return "the round model re-allocates every job at each boundary: preempt/backfill do not apply";
  if (const PartSpec* a = spec.part(Point::Allocation); a && !make_allocation(*a, 0)->runs_in_rounds())
    return "allocation '" + a->name + "' has no round-model version (Allocation::round_allocate or round_pass)";
  return "";
}

const std::vector<ExecSupport>& exec_support() {
  static const std::vector<ExecSupport> v = [] {
    // One row per family, and per extension point whose support differs.
    std::vector<std::pair<std::string, std::string>> rows;
    for (const auto& o : orders())
      if (std::string(o.name) != "py") rows.push_back({o.name, "order"});  // needs a file: docs/python.md
    rows.push_back({"tiresias", "preset"});
    for (const auto& p : placements())
      if (std::string(p.name) != kDefaultPlacement && std::string(p.name) != "py") rows.push_back({std::string("fifo+") + p.name, "placement"});
    rows.push_back({"fifo+preempt", "flag"});
    for (const auto& a : allocations())
      if (std::string(a.name) != "py") rows.push_back({std::string("srsf+") + a.name, "allocation"});
    for (const char* s : {"sjf-bco-online", "a-srpt", "a-srpt-p", "a-srpt-p+tune", "a-srpt-p+opt", "sjf-bco-online+tune",
                          "gavel-las"})
      rows.push_back({s, "scheduler"});
    for (const auto& p : planners()) rows.push_back({p.name, "planner"});
    for (const char* s : {"ada-srsf", "srsf1", "srsf2"}) rows.push_back({s, "task"});
    std::vector<ExecSupport> out;
    for (const auto& [policy, family] : rows) {
      const PolicySpec spec = parse_policy_spec(policy);
      ExecSupport row{policy, family, {}};
      for (std::size_t m = 0; m < kExecModelList.size(); ++m) row.why_not[m] = exec_refusal(spec, kExecModelList[m]);
      out.push_back(std::move(row));
    }
    return out;
  }();
  return v;
}

}  // namespace rm
