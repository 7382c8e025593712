#include "live/slurm/slurm_backend.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include <unistd.h>

#include "cluster/cluster_config.h"
#include "core/error.h"
#include "live/state_lock.h"
#include "exec/comm_model.h"
#include "metrics/metrics.h"
#include "workload/model_catalogue.h"
#include "workload/trace.h"

namespace rm::live {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
constexpr const char* kLeaseName = "ringmaster-lease";
constexpr double kLeaseTtl = 90, kLeaseRenew = 10;  // seconds
constexpr JobId kExternal = 1LL << 40;  // owner of GPUs held by jobs ringmaster does not own or unusable nodes

// One clock for runs.csv: Slurm records start and end times in whole epoch seconds (time(NULL)); a time the
// daemon observes itself (a preemption, a requeue it noticed) is truncated the same way, so that a stretch ended
// by the daemon never seems to overlap one Slurm started in the same second.
double whole(double epoch_s) { return std::floor(epoch_s); }

std::string gpus_text(int n) { return std::to_string(n) + (n == 1 ? " GPU" : " GPUs"); }

bool running_state(const std::string& s) { return s == "RUNNING" || s == "COMPLETING" || s == "CONFIGURING"; }

// "1000", "1000M", "2G" -> MB; "UNLIMITED", "0", "" -> 0.
double mem_value_mb(const std::string& v) {
  if (v.empty() || v == "UNLIMITED" || v == "N/A") return 0;
  try {
    std::size_t used = 0;
    const double x = std::stod(v, &used);
    const char u = used < v.size() ? static_cast<char>(std::toupper(static_cast<unsigned char>(v[used]))) : 'M';
    return x * (u == 'G' ? 1024 : u == 'T' ? 1024 * 1024 : u == 'K' ? 1.0 / 1024 : 1);
  } catch (...) {
    return 0;
  }
}

// The value of `key=` in a comma list such as "DefCpuPerGPU=2,DefMemPerGPU=1000".
std::string list_value(const std::string& list, const std::string& key) {
  const auto at = list.find(key + "=");
  if (at == std::string::npos) return "";
  const auto from = at + key.size() + 1;
  return list.substr(from, list.find(',', from) - from);
}
}  // namespace

SlurmBackend::SlurmBackend(SlurmCtl& ctl, ServeOptions opt) : TableBackend(std::move(opt)), ctl_(ctl) {}
SlurmBackend::SlurmBackend(ServeOptions opt)
    : TableBackend(std::move(opt)), owned_ctl_(std::make_unique<SlurmCtl>()), ctl_(*owned_ctl_) {}
SlurmBackend::~SlurmBackend() { release_lease(); }

void SlurmBackend::save_extra(json& js) const { js["ignored"] = ignored_; }

void SlurmBackend::load_extra(const json& js) {
  for (const auto& x : js.value("ignored", json::array())) ignored_.insert(x.get<std::int64_t>());
}



void SlurmBackend::connect(double now_s) {
  if (opt_.partition.empty()) throw InputError("--partition", 0, "", "name the Slurm partition whose held jobs ringmaster schedules");
  if (opt_.state_dir.empty()) throw InputError("--state", 0, "", "name a directory for the daemon's state");
  ctl_.ping();
  if (!ctl_.partition_exists(opt_.partition))
    throw InputError("--partition", 0, opt_.partition, "Slurm has no partition '" + opt_.partition + "'");
  check_memory_defaults();
  if (opt_.lease) take_lease(now_s);
  const auto nodes = ctl_.nodes(opt_.partition);
  if (nodes.empty()) throw InputError("--partition", 0, opt_.partition, "the partition has no nodes");
  if (opt_.lease) check_overlaps(nodes);
  ServerSpec tmpl;
  tmpl.gpu_mem_gb = 32;
  tmpl.nic_gbps = 10;
  spec_ = ClusterSpec{};
  if (!opt_.cluster.empty()) {
    const ClusterSpec given = load_cluster(opt_.cluster);
    spec_.network = given.network;
    if (!given.servers.empty()) tmpl = given.servers.front();
  }
  spec_.name = "slurm:" + opt_.partition;
  node_names_.clear();
  node_index_.clear();
  for (const auto& n : nodes) {
    ServerSpec s = tmpl;
    s.gpus = n.gpus;
    s.cpus = n.cpus;
    s.dram_gb = n.mem_mb / 1024.0;
    s.rack = 0;
    node_index_[n.name] = static_cast<int>(spec_.servers.size());
    node_names_.push_back(n.name);
    spec_.servers.push_back(s);
  }
  fs::create_directories(opt_.state_dir);
  bool loaded = false;
  try {
    loaded = load();
  } catch (const InputError& e) {
    if (!opt_.recover) throw;
    const fs::path bad = fs::path(opt_.state_dir) / "state.json";
    std::error_code ec;
    fs::rename(bad, fs::path(opt_.state_dir) / "state.json.unusable", ec);
    warn(std::string(e.what()) + "; set aside as state.json.unusable, rebuilding from Slurm (--recover)");
  }
  if (loaded && opt_.recover) log("--recover: the state file is usable; it is read as it is");
  // The partition's jobs, listed once for start-up's two readers below (one squeue where a fresh start made two).
  std::optional<std::vector<SlurmJob>> listed;
  const auto partition_jobs = [&]() -> const std::vector<SlurmJob>& {
    if (!listed) listed = ctl_.jobs(opt_.partition);
    return *listed;
  };
  if (origin_s_ < 0) {  // time 0: now, or the submission of the oldest job waiting or running for us
    origin_s_ = now_s;
    for (const auto& j : partition_jobs())
      if (((j.state == "PENDING" && j.held()) || (opt_.recover && !j.finished())) && j.submit_s >= 0)
        origin_s_ = std::min(origin_s_, j.submit_s);
  }
  if (!loaded && opt_.recover) recover(now_s);
  if (!loaded && !opt_.recover) {  // a first start, or a lost state: jobs already running here are said, not dropped
    std::string ids;
    int n = 0;
    for (const auto& j : partition_jobs())
      if (j.partition == opt_.partition && running_state(j.state) && j.gpus > 0) {
        ++n;
        if (n <= 20) ids += (ids.empty() ? "" : ", ") + std::to_string(j.id);
      }
    if (n > 0)
      warn(fmt::format("no state in {}, yet {} job{} of partition {} {} running ({}{}): released by an earlier daemon "
                       "whose state was lost, or by hand. Their GPUs are booked busy but they are not ringmaster's "
                       "(not in jobs.csv, never preempted); restart with --recover to adopt them", opt_.state_dir, n,
                       n == 1 ? "" : "s", opt_.partition, n == 1 ? "is" : "are", ids, n > 20 ? ", ..." : ""));
  }
  save();
}

// --- the lease ---

bool SlurmBackend::is_lease(const SlurmJob& j) const {
  return j.name == kLeaseName && j.user == "root" && j.comment.rfind(std::string(kLeaseName) + " ", 0) == 0;
}

std::string SlurmBackend::lease_text(double now_s) const {
  std::error_code ec;
  const std::string state = fs::absolute(opt_.state_dir, ec).lexically_normal().string();
  return fmt::format("{} host={} pid={} state={} renewed={:.0f}", kLeaseName, host_name(), static_cast<long>(::getpid()),
                     state, now_s);
}

void SlurmBackend::take_lease(double now_s) {
  const auto field = [](const std::string& c, const std::string& key) {
    const auto at = c.find(" " + key + "=");
    if (at == std::string::npos) return std::string();
    const auto from = at + key.size() + 2;
    return c.substr(from, c.find(' ', from) - from);
  };
  const std::string mine = lease_text(now_s);
  for (const auto& j : ctl_.jobs(opt_.partition)) {
    if (!is_lease(j) || j.finished()) continue;
    const std::string host = field(j.comment, "host"), pid = field(j.comment, "pid"), state = field(j.comment, "state");
    double renewed = 0;
    try {
      renewed = std::stod(field(j.comment, "renewed"));
    } catch (...) {
    }
    const bool same_folder = host == host_name() && state == field(mine, "state");
    if (!same_folder && now_s - renewed < kLeaseTtl)
      throw InputError("--partition", 0, opt_.partition,
                       fmt::format("another ringmaster serve schedules partition {}: host {}, pid {}, state {} (its "
                                   "lease, Slurm job {}, renewed {:.0f} s ago); stop it first (a lease not renewed "
                                   "for {:.0f} s is taken over)", opt_.partition, host, pid, state, j.id,
                                   now_s - renewed, kLeaseTtl));
    try {  // this folder's previous daemon (its lock was free: it is dead), or a stale lease: taken over
      ctl_.cancel(j.id);
      log(fmt::format("lease: took over Slurm job {} (host {}, pid {}, {})", j.id, host, pid,
                      same_folder ? "this state folder's previous daemon" : "not renewed for " +
                                    fmt::format("{:.0f}", now_s - renewed) + " s"));
    } catch (const SlurmError& e) {
      warn("lease: could not cancel the stale lease job " + std::to_string(j.id) + ": " + e.what());
    }
  }
  lease_id_ = ctl_.submit({"-H", "-p", opt_.partition, "-J", kLeaseName, "-c", "1", "--mem=1M", "-o", "/dev/null",
                           "--comment", mine, "--wrap", "true"});
  lease_renewed_s_ = now_s;
  log("lease: Slurm job " + std::to_string(lease_id_) + " (held, never released) says this daemon schedules partition " +
      opt_.partition);
}

void SlurmBackend::renew_lease(double now_s) {
  lease_renewed_s_ = now_s;
  try {
    ctl_.update_comment(lease_id_, lease_text(now_s));
  } catch (const SlurmError& e) {
    warn("lease: could not renew Slurm job " + std::to_string(lease_id_) + ": " + e.what());
  }
}

void SlurmBackend::release_lease() {
  if (lease_id_ <= 0) return;
  try {
    ctl_.cancel(lease_id_);
  } catch (...) {  // a destructor: the lease goes stale and is taken over later
  }
  lease_id_ = 0;
}

int SlurmBackend::release_all() {
  int released = 0, cleared = 0, leases = 0;
  for (const auto& j : ctl_.jobs("")) {
    if (j.finished()) continue;
    if (is_lease(j)) {
      if (j.partition == opt_.partition) {
        ctl_.cancel(j.id);
        ++leases;
      }
      continue;
    }
    const auto known = by_manager_id_.find(j.id);
    if (j.partition != opt_.partition && known == by_manager_id_.end()) continue;
    // A running job keeps its nodes (Slurm's NodeList of a running job is where it runs): nothing to clear.
    if (j.state != "PENDING") continue;
    // A pending one loses its pin (a preempted job keeps the nodes ringmaster gave it last) and, if ringmaster
    // refused it, the AdminComment saying so; then it is released to Slurm.
    const bool refused = known != by_manager_id_.end() && live_[known->second].status == "unschedulable";
    try {
      ctl_.unpin(j.id, refused, j.held());
      released += j.held();
      ++cleared;
    } catch (const SlurmError& e) {
      warn("job " + std::to_string(j.id) + ": --release-all could not clear it: " + e.what());
    }
  }
  lease_id_ = 0;
  log(fmt::format("--release-all: {} pending job{} of partition {} cleared of ringmaster's pin and marks, {} released "
                  "to Slurm, {} lease{} cancelled", cleared, cleared == 1 ? "" : "s", opt_.partition, released, leases,
                  leases == 1 ? "" : "s"));
  return released;
}

void SlurmBackend::block_if_waiting(LiveJob& l, const SlurmJob& j, double now_s) {
  const std::string sid = "job " + std::to_string(j.id);
  std::string why;
  if (j.user_held) {  // its owner's own hold (job_submit.lua marks it): never released until they release it
    why = "held by its user: `scontrol release " + std::to_string(j.id) + "` hands it back to ringmaster's queue";
    if (l.blocked != why) log(sid + ": " + why);
  } else if (!j.dependency.empty()) {
    // Slurm evaluates a held job's dependencies only once it is released: "afterok:12(unfulfilled)" stays so
    // after job 12 failed. So a job waits while a job it names is still pending or running; once they have all
    // ended it is offered (released: Slurm then starts it, or says DependencyNeverSatisfied and the start bound
    // holds it again), and a dependency Slurm has marked failed keeps it held for good, said once.
    bool waiting = false;
    for (std::size_t at = j.dependency.find(':'); at != std::string::npos; at = j.dependency.find(':', at + 1)) {
      std::size_t end = at + 1;
      while (end < j.dependency.size() && std::isdigit(static_cast<unsigned char>(j.dependency[end]))) ++end;
      if (end > at + 1 && unfinished_.count(std::stoll(j.dependency.substr(at + 1, end - at - 1)))) waiting = true;
    }
    if (j.dependency.find("(failed)") != std::string::npos) {
      why = "its dependency can never be satisfied (" + j.dependency + "): left held until its user cancels it or "
            "changes it (scontrol update JobId=" + std::to_string(j.id) + " Dependency=...)";
      if (l.blocked != why) warn(sid + ": " + why);
    } else if (waiting) {
      why = "waiting for its dependency " + j.dependency;
    }
  }
  if (why.empty() && l.retry_after_s > now_s && !l.blocked.empty()) why = l.blocked;  // the back-off of a start timeout
  if (why.empty() && !l.blocked.empty() && opt_.debug) opt_.debug(sid + ": offered to the policy again");
  if (why.empty() && !l.blocked.empty() && l.why == l.blocked) l.why.clear();
  l.blocked = why;
  if (!why.empty()) l.why = why;  // status shows it even in a step with nothing to decide
}

void SlurmBackend::check_overlaps(const std::vector<SlurmNode>& nodes) {
  std::vector<std::map<std::string, std::string>> parts;
  try {
    parts = ctl_.partitions();
  } catch (const SlurmError& e) {
    warn("could not list the partitions to check overlaps: " + std::string(e.what()));
    return;
  }
  const auto get = [](const std::map<std::string, std::string>& m, const char* k) {
    const auto it = m.find(k);
    return it == m.end() ? std::string() : it->second;
  };
  const auto tier = [&](const std::map<std::string, std::string>& m) {
    try {
      return std::stol(get(m, "PriorityTier"));
    } catch (...) {
      return 1L;
    }
  };
  long our_tier = 1;
  for (const auto& p : parts)
    if (get(p, "PartitionName") == opt_.partition) our_tier = tier(p);
  const std::string cluster_preempt = get(ctl_.config(), "PreemptType");
  for (const auto& p : parts) {
    const std::string name = get(p, "PartitionName");
    if (name == opt_.partition) continue;
    std::vector<std::string> shared;
    try {
      for (const auto& n : expand_hostlist(get(p, "Nodes")))
        if (node_index_.count(n) || std::any_of(nodes.begin(), nodes.end(), [&](const SlurmNode& x) { return x.name == n; }))
          shared.push_back(n);
    } catch (const InputError&) {
      continue;
    }
    if (shared.empty()) continue;
    const std::string where = "partition " + name + " shares " + std::to_string(shared.size()) + " node(s) with " + opt_.partition;
    const bool preempts = tier(p) > our_tier && cluster_preempt.find("partition_prio") != std::string::npos &&
                          get(p, "PreemptMode") != "OFF";
    if (preempts)
      warn(where + " and a higher PriorityTier (" + std::to_string(tier(p)) + " > " + std::to_string(our_tier) +
           ") with preemption on: its jobs can preempt ringmaster's. Fix (docs/slurm.md, runbook 3): PriorityTier no "
           "higher than " + opt_.partition + "'s, or PreemptMode=OFF on it");
    const bool open_to_all = (get(p, "AllowGroups").empty() || get(p, "AllowGroups") == "ALL") &&
                             (get(p, "AllowAccounts").empty() || get(p, "AllowAccounts") == "ALL") &&
                             (get(p, "AllowQos").empty() || get(p, "AllowQos") == "ALL");
    if (open_to_all && get(p, "State") == "UP")
      warn(where + " and is open to every user: jobs there run beside ringmaster's queue (their GPUs are booked busy, "
           "but they skip the policy). Fix (docs/slurm.md, runbook 3): AllowGroups=/AllowAccounts= an administrators' "
           "group on it, or nodes of its own");
  }
}

void SlurmBackend::check_memory_defaults() {
  const auto conf = ctl_.config();
  const auto part = ctl_.partition(opt_.partition);
  const auto get = [](const std::map<std::string, std::string>& m, const std::string& k) {
    const auto it = m.find(k);
    return it == m.end() ? std::string() : it->second;
  };
  def_mem_per_gpu_ = mem_value_mb(list_value(get(part, "JobDefaults"), "DefMemPerGPU"));
  if (def_mem_per_gpu_ <= 0) def_mem_per_gpu_ = mem_value_mb(get(conf, "DefMemPerGPU"));
  std::string sel = get(part, "SelectTypeParameters");
  if (sel.empty() || sel == "NONE") sel = get(conf, "SelectTypeParameters");
  std::transform(sel.begin(), sel.end(), sel.begin(), [](unsigned char c) { return std::toupper(c); });
  if (sel.find("MEMORY") == std::string::npos) return;  // memory is not a consumable resource: nothing to check
  const bool has_default = def_mem_per_gpu_ > 0 || mem_value_mb(get(part, "DefMemPerCPU")) > 0 ||
                           mem_value_mb(get(part, "DefMemPerNode")) > 0 || mem_value_mb(get(conf, "DefMemPerCPU")) > 0 ||
                           mem_value_mb(get(conf, "DefMemPerNode")) > 0;
  if (has_default) return;
  throw InputError("--partition", 0, opt_.partition,
                   "Slurm gives a job that asks no memory (no --mem) all of a node's memory: SelectTypeParameters=" + sel +
                       " makes memory a consumable resource and partition '" + opt_.partition +
                       "' has no default memory, so its jobs would run one per node whatever GPUs they ask. Fix: add "
                       "DefMemPerGPU=<MB> to the partition's line in slurm.conf and `scontrol reconfigure` "
                       "(docs/slurm.md, \"The partition\"), or for now `scontrol update PartitionName=" +
                       opt_.partition + " JobDefaults=DefMemPerGPU=<MB>`");
}

std::string SlurmBackend::describe() const {
  return "partition " + opt_.partition + ", " + std::to_string(spec_.servers.size()) + " nodes";
}

std::int64_t SlurmBackend::submit(const Submission& sub) {
  return ctl_.submit({"-H", "-p", opt_.partition, "--gpus=" + std::to_string(sub.gpus), "-c", "1", "--mem=100M", "-J",
                      sub.name, "-D", sub.workdir, "-o", sub.output, "--open-mode=append", "--comment", sub.hints,
                      "--wrap", sub.command});
}


LiveJob SlurmBackend::live_job_of(const SlurmJob& j) const {
  LiveJob l;
  l.manager_id = j.id;
  l.submit_s = j.submit_s >= 0 ? j.submit_s : origin_s_;
  l.manager_state = j.state;
  l.adopted_s = now_s_;
  l.per_node = j.gpus_per_job == 0;
  l.cpus = std::max(1, j.cpus);
  l.mem_mb = j.mem_mb();
  return l;
}

void SlurmBackend::adopt(const SlurmJob& j) {
  JobHints h = parse_hints(j.comment);
  if (!j.comment.empty() && j.comment.rfind("rm:", 0) != 0)  // adopted once: said once
    warn("job " + std::to_string(j.id) + ": its comment '" + j.comment +
         "' has no rm: prefix, so it gives ringmaster no hints (write --comment 'rm:model=...;duration=...'); "
         "scheduled with the defaults");
  for (const auto& e : h.errors) log("job " + std::to_string(j.id) + ": hint ignored: " + e);
  LiveJob l = live_job_of(j);
  const JobSpec r = spec_from_hints(h, j.id, "slurm job " + std::to_string(j.id), l.submit_s, j.gpus, j.user, j.name);
  l.hint_errors = h.errors;
  JobState& st = add_job(r, std::move(l));
  const ClusterTotals tot = totals_of(spec_);
  st.cpu_demand = tot.gpus > 0 ? r.num_gpus * tot.cpus / tot.gpus : 0;
  st.mem_demand = tot.gpus > 0 ? r.num_gpus * tot.mem_gb / tot.gpus : 0;
  log("job " + std::to_string(j.id) + ": adopted (" + gpus_text(r.num_gpus) + ", model " + r.model + ", " +
      std::to_string(r.iterations) + " iterations, ideal " + std::to_string(st.ideal_iter_time * r.iterations) + " s)");
}




// Slurm gives a job at least one CPU on each of its nodes and spreads the rest (--cpus-per-task x tasks); the
// memory asked (--mem) is per node.
int SlurmBackend::cpus_per_node(int cpus, std::size_t nodes) {
  const int n = std::max<int>(1, static_cast<int>(nodes));
  return std::max(1, (cpus + n - 1) / n);
}

void SlurmBackend::read_allocation(std::size_t i) {
  std::vector<std::pair<std::string, std::vector<int>>> got;
  std::string error;
  try {
    got = ctl_.job_gpus(live_[i].manager_id);
  } catch (const SlurmError& e) {
    error = e.what();
  }
  take_allocation(i, got, error);
}

void SlurmBackend::read_allocations(const std::vector<std::size_t>& jobs) {
  std::vector<std::int64_t> ids;
  for (std::size_t i : jobs) ids.push_back(live_[i].manager_id);
  std::vector<std::string> errors;
  const auto got = ctl_.job_gpus_all(ids, errors);
  for (std::size_t k = 0; k < jobs.size(); ++k) take_allocation(jobs[k], got[k], errors[k]);
}

void SlurmBackend::take_allocation(std::size_t i, const std::vector<std::pair<std::string, std::vector<int>>>& got,
                                   const std::string& error) {
  LiveJob& l = live_[i];
  if (!error.empty()) {
    log("job " + std::to_string(l.manager_id) + ": could not read the GPUs Slurm gave it: " + error);
    return;
  }
  std::vector<GpuRef> real;
  for (const auto& [node, idx] : got)
    if (const auto it = node_index_.find(node); it != node_index_.end())
      for (int g : idx)
        if (g >= 0 && g < spec_.servers[it->second].gpus) real.push_back({it->second, g});
  if (static_cast<int>(real.size()) != specs_[i].num_gpus) return;  // not readable as expected: keep ours
  std::sort(real.begin(), real.end(), [](const GpuRef& a, const GpuRef& b) {
    return a.server != b.server ? a.server < b.server : a.gpu < b.gpu;
  });
  const auto per_node = [&](const std::vector<GpuRef>& g) {
    std::map<int, int> n;
    for (const auto& x : g) ++n[x.server];
    return n;
  };
  if (!l.gpus.empty() && per_node(real) != per_node(l.gpus)) {
    std::string got;
    for (const auto& [s, k] : per_node(real)) got += (got.empty() ? "" : ",") + node_names_[s] + ":" + std::to_string(k);
    log("job " + std::to_string(l.manager_id) + ": Slurm spread its GPUs as " + got + ", not as the policy did");
  }
  l.gpus = std::move(real);
}

bool SlurmBackend::rebook_on_nodes(Cluster& c, std::size_t i) {
  LiveJob& l = live_[i];
  const int need = specs_[i].num_gpus, nodes = static_cast<int>(l.nodes.size());
  if (nodes == 0) return false;
  std::vector<std::vector<GpuRef>> free(nodes);
  for (int k = 0; k < nodes; ++k)
    if (const auto it = node_index_.find(l.nodes[k]); it != node_index_.end())
      for (int g = 0; g < spec_.servers[it->second].gpus; ++g)
        if (c.is_free({it->second, g})) free[k].push_back({it->second, g});
  // Slurm runs a --gpus=N job with at least one GPU on each listed node, a --gres=gpu:k job with k on each.
  const int floor = l.per_node ? need / nodes : 1;
  std::vector<GpuRef> got;
  for (auto& f : free) {
    if (static_cast<int>(f.size()) < floor) return false;
    got.insert(got.end(), f.begin(), f.begin() + floor);
    f.erase(f.begin(), f.begin() + floor);
  }
  for (auto& f : free)
    for (const auto& g : f)
      if (static_cast<int>(got.size()) < need) got.push_back(g);
  if (static_cast<int>(got.size()) < need) return false;
  c.allocate(static_cast<JobId>(i), got);
  l.gpus = std::move(got);
  return true;
}


void SlurmBackend::observe(const std::vector<SlurmJob>& listed, double now_s) {
  std::vector<const SlurmJob*> jobs;  // by job id: new jobs are adopted in submission order
  for (const auto& j : listed) jobs.push_back(&j);
  std::sort(jobs.begin(), jobs.end(), [](const SlurmJob* a, const SlurmJob* b) { return a->id < b->id; });
  std::set<std::int64_t> seen;
  unfinished_.clear();
  for (const auto& j : listed)
    if (!j.finished()) unfinished_.insert(j.id);
  std::vector<std::size_t> newly_running;  // their GPUs read from Slurm together, after the loop
  for (const SlurmJob* jp : jobs) {
    const SlurmJob& j = *jp;
    seen.insert(j.id);
    const auto it = by_manager_id_.find(j.id);
    if (it == by_manager_id_.end()) {
      if (j.partition == opt_.partition && j.state == "PENDING" && j.held() && !ignored_.count(j.id)) {
        if (is_lease(j)) continue;  // a daemon's lease (ours or another's): not a job to schedule
        if (j.gpus <= 0) {  // held by the plugin like every job of the partition: refused visibly, not stranded
          refuse(j, "asks for no GPUs; partition " + opt_.partition + " runs GPU jobs only (submit it to another partition)");
          continue;
        }
        if (const std::string why = never_fits(j); !why.empty()) {
          refuse(j, why);
          continue;
        }
        try {
          adopt(j);
          block_if_waiting(live_.back(), j, now_s);  // a dependency not met: not offered from the first step
        } catch (const InputError& e) {
          refuse(j, e.what());
        }
      }
      continue;
    }
    LiveJob& l = live_[it->second];
    l.manager_state = j.state;
    if (l.ended()) continue;
    const std::string sid = "job " + std::to_string(j.id);
    l.manager_reason = j.reason;
    if (l.status == "queued") block_if_waiting(l, j, now_s);
    if (j.finished()) {
      const double end = j.end_s > 0 ? j.end_s : whole(now_s);
      stop(it->second, end, "finished", j.state);
      (j.state == "COMPLETED" ? log(sid + ": " + j.state + " after " + std::to_string(end - l.submit_s) + " s")
                              : warn(sid + ": " + j.state + " after " + std::to_string(end - l.submit_s) + " s"));
    } else if (running_state(j.state)) {
      if (l.status == "running" && j.start_s > 0 && l.started_s >= 0 && std::fabs(j.start_s - l.started_s) > 0.5) {
        // Requeued by Slurm and started again between two polls (a node went down under it; a busy machine
        // can miss the pending moment): the run we knew ended when this one began.
        stop(it->second, j.start_s, "queued", "requeued");
        ++l.preemptions;
        log(sid + ": requeued by Slurm and restarted by it between two polls (its start time moved)");
      }
      if (l.status != "running") {
        if (l.status == "queued") {  // released by someone else: it runs where Slurm put it
          l.nodes = j.nodes;
          l.gpus.clear();
          l.decided_s = -1;
          log(sid + ": running without a decision of ours, on " + std::to_string(j.nodes.size()) + " node(s)");
        }
        l.status = "running";
        l.started_s = j.start_s > 0 ? j.start_s : whole(now_s);
        if (l.first_start_s < 0) l.first_start_s = l.started_s;
        newly_running.push_back(it->second);
      }
    } else if (j.state == "PENDING" && !j.held() && l.status == "running" &&
               (j.start_s < 0 || std::fabs(j.start_s - l.started_s) > 0.5)) {
      // Requeued by Slurm itself (a node went down under it; its start time is no longer this run's, which
      // tells it from a restarting slurmctld that shows a running job as pending for a moment): take it back so
      // the policy places it again.
      stop(it->second, whole(now_s), "queued", "requeued");
      ++l.preemptions;
      try {
        ctl_.hold(j.id);
        log(sid + ": requeued by Slurm (" + j.reason + "); held to be placed again");
      } catch (const SlurmError& e) {
        log(sid + ": requeued by Slurm (" + j.reason + "), could not hold it: " + e.what());
      }
    } else if (j.state == "PENDING" && j.held() && (l.status == "running" || l.status == "starting")) {
      // Requeued or held by someone else (an administrator, a node failure with requeue).
      stop(it->second, whole(now_s), "queued", "held");
      ++l.preemptions;
      log(sid + ": held again by Slurm or a user; back in the queue");
    }
  }
  read_allocations(newly_running);
  for (std::size_t i = 0; i < live_.size(); ++i) {
    LiveJob& l = live_[i];
    if (l.ended() || seen.count(l.manager_id)) continue;
    stop(i, whole(now_s), "finished", "vanished");
    l.manager_state = "VANISHED";
    log("job " + std::to_string(l.manager_id) + ": no longer listed by Slurm; counted as ended now");
  }
}

// The step's book: GPUs (a Cluster over the partition's nodes) and the CPUs and memory Slurm has left per node.
struct SlurmBackend::StepBook {
  explicit StepBook(const ClusterSpec& spec)
      : c(spec), free_cpus(spec.servers.size(), 0), free_mem(spec.servers.size(), 0) {}
  // Up to n free GPUs of `server`, booked for `owner`.
  std::vector<GpuRef> take_free(const ClusterSpec& spec, JobId owner, int server, int n) {
    std::vector<GpuRef> got;
    for (int g = 0; g < spec.servers[server].gpus && static_cast<int>(got.size()) < n; ++g)
      if (c.is_free({server, g})) got.push_back({server, g});
    if (!got.empty()) c.allocate(owner, got);
    return got;
  }
  Cluster c;
  std::vector<double> free_cpus, free_mem;
  std::set<std::string> unusable;  // down, drained, not responding: their GPUs are nobody's to give
};

void SlurmBackend::claim(StepBook& b, const LiveJob& l, int sign) const {
  for (const auto& name : l.nodes)
    if (const auto it = node_index_.find(name); it != node_index_.end()) {
      const int s = it->second;
      b.free_cpus[s] -= sign * cpus_per_node(l.cpus, l.nodes.size());
      b.free_mem[s] -= sign * mem_on_node(l, static_cast<int>(std::count_if(l.gpus.begin(), l.gpus.end(),
                                                                      [&](const GpuRef& g) { return g.server == s; })));
    }
}

double SlurmBackend::mem_on_node(const LiveJob& l, int gpus) const {
  return l.mem_mb > 0 ? l.mem_mb : def_mem_per_gpu_ * gpus;
}

// What Slurm's nodes leave: unusable nodes, CPUs and memory per node (less what released jobs will take).
void SlurmBackend::book_nodes(StepBook& b, const std::vector<SlurmNode>& nodes) {
  for (const auto& n : nodes) {  // a node going down or drained, or coming back, is said once
    if (!node_index_.count(n.name)) continue;
    const auto it = node_states_.find(n.name);
    const bool was_usable = it == node_states_.end() || node_usable_.count(n.name) > 0;
    if (was_usable && !n.usable())
      warn("node " + n.name + " is " + n.state + ": its GPUs go to no job until it is back");
    else if (!was_usable && n.usable())
      log("node " + n.name + " is back (" + n.state + ")");
    node_states_[n.name] = n.state;
    if (n.usable()) node_usable_.insert(n.name);
    else node_usable_.erase(n.name);
  }
  for (const auto& n : nodes)
    if (!n.usable()) {
      b.unusable.insert(n.name);
      if (const auto it = node_index_.find(n.name); it != node_index_.end())
        b.take_free(spec_, kExternal, it->second, spec_.servers[it->second].gpus);
    }
  for (const auto& n : nodes)
    if (const auto it = node_index_.find(n.name); it != node_index_.end()) {
      b.free_cpus[it->second] = n.cpus - n.cpus_alloc;
      b.free_mem[it->second] = n.mem_mb - n.mem_alloc_mb;
    }
  for (const auto& l : live_)
    if (l.status == "starting") claim(b, l);
}

// After every job's GPUs are booked (book_jobs): a node without a CPU or any memory left can run no job, so its
// free GPUs are nobody's to give either. (Before issue 45 this came first, and a job that took all of a node's
// CPUs or memory found its own GPUs marked external: they vanished from the books, with a WARN every step.)
void SlurmBackend::book_full_nodes(StepBook& b) {
  for (std::size_t s = 0; s < spec_.servers.size(); ++s)
    if (b.free_cpus[s] < 1 || b.free_mem[s] <= 0) b.take_free(spec_, kExternal, static_cast<int>(s), spec_.servers[s].gpus);
}

// Book the GPUs of the jobs running (where Slurm put them), then of those released but not yet running, then of
// the partition's jobs ringmaster does not schedule.
void SlurmBackend::book_jobs(StepBook& b, const std::vector<SlurmJob>& jobs, double now_s) {
  std::vector<std::size_t> holding;
  for (const char* st : {"running", "starting"})
    for (std::size_t i = 0; i < live_.size(); ++i)
      if (live_[i].status == st) holding.push_back(i);
  for (std::size_t i : holding) book_holding(b, i, now_s);
  std::set<std::int64_t> running;
  for (const auto& j : jobs) {
    const auto it = by_manager_id_.find(j.id);
    if (it != by_manager_id_.end() && live_[it->second].status != "unschedulable") continue;
    if (running_state(j.state)) {
      running.insert(j.id);
      book_foreign(b, j);
    }
  }
  std::erase_if(foreign_, [&](const auto& kv) { return !running.count(kv.first); });
}

void SlurmBackend::book_foreign(StepBook& b, const SlurmJob& j) {
  if (std::none_of(j.nodes.begin(), j.nodes.end(), [&](const std::string& n) { return node_index_.count(n) > 0; }))
    return;  // not on our nodes
  auto cached = foreign_.find(j.id);
  if (cached == foreign_.end() || cached->second.first != j.start_s) {
    std::vector<GpuRef> gpus;
    bool read = false;
    try {
      for (const auto& [node, idx] : ctl_.job_gpus(j.id)) {
        read = true;
        if (const auto nt = node_index_.find(node); nt != node_index_.end())
          for (int g : idx)
            if (g >= 0 && g < spec_.servers[nt->second].gpus) gpus.push_back({nt->second, g});
      }
    } catch (const SlurmError& e) {
      warn("job " + std::to_string(j.id) + " (partition " + j.partition + ", not ringmaster's): could not read its GPUs: " +
           e.what());
    }
    if (!read && j.gpus > 0) {  // unreadable: all of its nodes' GPUs are booked busy this step, read again next
      for (const auto& name : j.nodes)
        if (const auto nt = node_index_.find(name); nt != node_index_.end())
          b.take_free(spec_, kExternal, nt->second, spec_.servers[nt->second].gpus);
      return;
    }
    cached = foreign_.insert_or_assign(j.id, std::make_pair(j.start_s, std::move(gpus))).first;
    if (!cached->second.second.empty())
      log("job " + std::to_string(j.id) + " (partition " + j.partition + ", user " + j.user + ", not ringmaster's) holds " +
          std::to_string(cached->second.second.size()) + " GPU(s) on our nodes: booked busy");
  }
  for (const auto& g : cached->second.second)
    if (b.c.is_free(g)) b.c.allocate(kExternal, {g});
}

void SlurmBackend::book_holding(StepBook& b, std::size_t i, double now_s) {
  LiveJob& l = live_[i];
  if (l.status == "starting" && l.decided_s > 0 && now_s - l.decided_s > opt_.start_timeout_s) {
    // Released, yet Slurm has not started it (a dependency, --exclusive onto a busy node, a reservation, a
    // license...): its GPUs must not stay booked for it. Held again, and offered again after a back-off.
    try {
      ctl_.hold(l.manager_id);
    } catch (const SlurmError& e) {
      log("job " + std::to_string(l.manager_id) + ": not started in time, could not hold it again: " + e.what());
    }
    if (!running_state(l.manager_state)) {
      const double waited = now_s - l.decided_s;
      stop(i, whole(now_s), "queued", "not_started");
      ++l.start_timeouts;
      ++start_timeouts_;
      const double backoff = std::min(600.0, 2 * opt_.start_timeout_s * std::pow(2.0, std::min(l.start_timeouts - 1, 10)));
      l.retry_after_s = now_s + backoff;
      l.blocked = fmt::format("released {:.0f} s ago but Slurm did not start it (its reason: {}); held again, its GPUs "
                              "returned; offered to the policy again after {:.0f} s", waited,
                              l.manager_reason.empty() ? "none given" : l.manager_reason, backoff);
      l.why = l.blocked;
      warn("job " + std::to_string(l.manager_id) + ": " + l.blocked);
      return;
    }
  }
  if (l.status == "starting" &&
      std::any_of(l.nodes.begin(), l.nodes.end(), [&](const std::string& n) { return b.unusable.count(n) > 0; })) {
    try {  // released onto a node that has gone down or drained since: take it back and place it again
      ctl_.hold(l.manager_id);
      stop(i, whole(now_s), "queued", "node_unusable");
      warn("job " + std::to_string(l.manager_id) + ": its node became unusable before it started; held to be placed again");
      return;
    } catch (const SlurmError& e) {
      log("job " + std::to_string(l.manager_id) + ": could not take it back from an unusable node: " + e.what());
    }
  }
  if (!l.gpus.empty()) {
    try {
      b.c.allocate(static_cast<JobId>(i), l.gpus);
      return;
    } catch (const InvariantError&) {
      l.gpus.clear();
    }
  }
  if (l.status == "starting") {  // its GPUs went to a job Slurm spread differently: room left on its nodes?
    if (rebook_on_nodes(b.c, i)) return;
    try {
      ctl_.hold(l.manager_id);
      stop(i, whole(now_s), "queued", "held");
      warn("job " + std::to_string(l.manager_id) + ": its nodes no longer have GPUs free for it (taken by a job Slurm "
           "placed itself, or spread differently); held to be placed again");
    } catch (const SlurmError& e) {
      log("job " + std::to_string(l.manager_id) + ": could not take it back: " + e.what());
    }
    return;
  }
  // Running, its GPUs unknown (Slurm's answer was unreadable) or booked twice: read them again from Slurm; until
  // then the whole of its nodes is booked busy (never a guessed split, which could release a job onto its GPUs).
  read_allocation(i);
  if (!l.gpus.empty()) {
    try {
      b.c.allocate(static_cast<JobId>(i), l.gpus);
      return;
    } catch (const InvariantError&) {
      warn("job " + std::to_string(l.manager_id) + ": Slurm shows it on GPUs another job holds in our books");
      l.gpus.clear();
    }
  }
  for (const auto& name : l.nodes)
    if (const auto it = node_index_.find(name); it != node_index_.end())
      b.take_free(spec_, kExternal, it->second, spec_.servers[it->second].gpus);
}


void SlurmBackend::apply_preempt(StepBook& b, JobId id, double now_s) {
  if (id < 0 || id >= static_cast<JobId>(live_.size())) return;
  LiveJob& l = live_[id];
  if (l.status != "running" && l.status != "starting") return;
  try {
    if (l.status == "starting") ctl_.hold(l.manager_id);
    else ctl_.requeue_hold(l.manager_id);
  } catch (const SlurmError& e) {
    ++preempt_failures_;  // ringmaster_preemption_failures_total; said once per job, then at debug level
    const std::string line = "job " + std::to_string(l.manager_id) + ": preemption failed, it keeps its GPUs: " + e.what();
    if (!l.preempt_failed) warn(line);
    else if (opt_.debug) opt_.debug(line);
    l.preempt_failed = true;
    return;
  }
  b.c.release(id, l.gpus);
  stop(static_cast<std::size_t>(id), whole(now_s), "queued", "preempted");
  ++l.preemptions;
  ++preemptions_;
  log("job " + std::to_string(l.manager_id) + ": preempted (requeued held) after " + std::to_string(l.run_s) + " s of service");
}

// GPUs per node of a start, in the order of its GPUs' nodes.
static void count_per_node(const std::vector<GpuRef>& gpus, const std::vector<std::string>& node_names,
                           std::vector<std::string>& names, std::vector<int>& count) {
  for (const auto& g : gpus) {
    const std::string& n = node_names.at(g.server);
    const auto it = std::find(names.begin(), names.end(), n);
    if (it == names.end()) {
      names.push_back(n);
      count.push_back(1);
    } else {
      ++count[it - names.begin()];
    }
  }
}

// Whether Slurm can run start sd as decided (an even split for a per-node request; CPUs and memory on each node);
// a refusal is logged once and the job waits.
bool SlurmBackend::start_fits(StepBook& b, const StartDecision& sd, const std::vector<std::string>& names,
                              const std::vector<int>& count, int& per_node) {
  LiveJob& l = live_[sd.job];
  per_node = 0;
  if (l.per_node) {  // Slurm gives a --gres=gpu:k job the same count on every node
    const bool even = std::all_of(count.begin(), count.end(), [&](int k) { return k == count.front(); });
    if (!even) {
      if (!l.split_refused)
        log("job " + std::to_string(l.manager_id) + ": the policy split it unevenly over nodes, which a per-node "
            "request (--gres=gpu:k) cannot express; it waits (submit with --gpus=N to allow splits)");
      l.split_refused = true;
      l.why = "the policy split it unevenly over nodes; a --gres=gpu:k request needs the same count on each";
      return false;
    }
    per_node = count.front();
  }
  // Slurm would not run it where its CPUs or memory do not fit: refused (logged once), it waits.
  const auto short_node = std::find_if(names.begin(), names.end(), [&](const std::string& n) {
    const int s = node_index_.at(n);
    const int k = count[&n - &names.front()];
    return b.free_cpus[s] + 1e-9 < cpus_per_node(l.cpus, names.size()) || b.free_mem[s] + 1e-9 < mem_on_node(l, k);
  });
  if (short_node != names.end()) {
    const int s = node_index_.at(*short_node);
    const int k = count[short_node - names.begin()];
    l.why = "node " + *short_node + " has " + std::to_string(static_cast<long>(b.free_cpus[s])) + " CPUs and " +
            std::to_string(static_cast<long>(b.free_mem[s])) + " MB free; it asks " +
            std::to_string(cpus_per_node(l.cpus, names.size())) + " CPUs and " +
            std::to_string(static_cast<long>(mem_on_node(l, k))) + " MB there";
    if (!l.fit_refused) log("job " + std::to_string(l.manager_id) + ": not started: " + l.why + "; it waits");
    l.fit_refused = true;
    return false;
  }
  return true;
}

bool SlurmBackend::prepare_start(StepBook& b, const StartDecision& sd, double now_s, SlurmCtl::Release& r) {
  if (sd.job < 0 || sd.job >= static_cast<JobId>(live_.size()) || live_[sd.job].status != "queued") return false;
  LiveJob& l = live_[sd.job];
  try {
    b.c.allocate(sd.job, sd.gpus);
  } catch (const InvariantError&) {
    // (the books' message names internal ids; the operator's log names Slurm's)
    log("job " + std::to_string(l.manager_id) + ": start refused: a GPU the policy gave it is already booked this step");
    return false;
  }
  std::vector<std::string> names;
  std::vector<int> count;
  count_per_node(sd.gpus, node_names_, names, count);
  int per_node = 0;
  if (!start_fits(b, sd, names, count, per_node)) {
    b.c.release(sd.job, sd.gpus);
    return false;
  }
  if (opt_.on_rate) {  // before the release: the payload reads its speed when it starts
    std::vector<int> split_on = split_counts();
    const Span sp = span_of(sd.gpus);
    if (sp.servers.size() > 1)
      for (int srv : sp.servers) ++split_on[srv];
    l.slowdown = slowdown_of(sd.job, sd.gpus, split_on);
    opt_.on_rate(specs_[sd.job], l.slowdown);
  }
  l.status = "starting";
  l.gpus = sd.gpus;
  l.nodes = names;
  claim(b, l);
  l.started_s = l.decided_s = now_s;
  r = {l.manager_id, names, per_node};
  return true;
}

void SlurmBackend::finish_start(StepBook& b, JobId job, const std::string& error) {
  LiveJob& l = live_[job];
  if (!error.empty()) {
    b.c.release(job, l.gpus);
    claim(b, l, -1);
    l.status = "queued";
    l.gpus.clear();
    l.nodes.clear();
    l.started_s = l.decided_s = -1;
    l.why = "its release failed: " + error;
    warn("job " + std::to_string(l.manager_id) + ": start failed: " + error);
    return;
  }
  std::string where;
  for (const auto& n : l.nodes) where += (where.empty() ? "" : ",") + n;
  log("job " + std::to_string(l.manager_id) + ": start on " + where + " (" + gpus_text(static_cast<int>(l.gpus.size())) + ")");
}

// Contention changes as split jobs start and end: every running job's current rate.
void SlurmBackend::update_rates() {
  if (!opt_.on_rate) return;
  const std::vector<int> split_on = split_counts();
  for (std::size_t i = 0; i < live_.size(); ++i) {
    LiveJob& l = live_[i];
    if ((l.status != "running" && l.status != "starting") || l.gpus.empty()) continue;
    const double sd = slowdown_of(static_cast<JobId>(i), l.gpus, split_on);
    if (std::fabs(sd - l.slowdown) > 1e-9) {
      l.slowdown = sd;
      opt_.on_rate(specs_[i], sd);
    }
  }
}

Observation SlurmBackend::observe(double now_s) {
  step_began();
  ++steps_;
  now_s_ = now_s;
  const auto nodes = ctl_.nodes(opt_.partition);
  const auto jobs = ctl_.jobs("");  // every partition's: jobs elsewhere on our nodes hold GPUs too
  check_partition(nodes);
  observe(jobs, now_s);
  book_ = std::make_unique<StepBook>(spec_);
  book_nodes(*book_, nodes);
  book_jobs(*book_, jobs, now_s);
  book_full_nodes(*book_);
  Observation o = observation(now_s, book_->c);
  if (!paused_.empty()) {  // nothing is released while the partition is not as it was: the policy is not asked
    o.queued = 0;
    for (auto& l : live_)
      if (l.status == "queued") l.why = paused_;
  }
  if (opt_.debug)
    opt_.debug("step " + std::to_string(steps_) + ": " + std::to_string(jobs.size()) + " Slurm jobs listed, " +
               std::to_string(queued_) + " queued, " + std::to_string(running_) + " running, " +
               std::to_string(book_->c.free_gpus()) + " GPUs free");
  return o;
}

void SlurmBackend::apply(const Decisions& d, double now_s, float decision_us) {
  record_decision(decision_us);
  for (auto& l : live_)
    if (l.status == "queued") l.why.clear();
  for (JobId id : d.preempt) apply_preempt(*book_, id, now_s);
  if (!d.resize.empty()) log("resize decisions are not applied live (GPU-only booking)");
  std::vector<JobId> started;
  std::vector<SlurmCtl::Release> releases;
  for (const auto& sd : d.start) {
    SlurmCtl::Release r;
    if (!prepare_start(*book_, sd, now_s, r)) continue;
    started.push_back(sd.job);
    releases.push_back(std::move(r));
  }
  const std::vector<std::string> errors = ctl_.place_and_release_all(releases);
  for (std::size_t k = 0; k < started.size(); ++k) finish_start(*book_, started[k], errors[k]);
  explain_waiting();
}

void SlurmBackend::explain_waiting() {
  const int free = book_->c.free_gpus();
  for (std::size_t i = 0; i < live_.size(); ++i) {
    LiveJob& l = live_[i];
    if (l.status != "queued") continue;
    if (!l.blocked.empty()) l.why = l.blocked;
    if (!l.why.empty()) continue;
    const int n = specs_[i].num_gpus;
    l.why = n > free ? "waiting for GPUs: asks " + std::to_string(n) + ", " + std::to_string(free) + " free"
                     : "the policy starts others first (" + std::to_string(free) + " GPUs free)";
  }
}

void SlurmBackend::persist(double now_s) {
  if (opt_.lease && now_s - lease_renewed_s_ >= kLeaseRenew) renew_lease(now_s);
  update_rates();
  series_.push_back({at(now_s), queued_, running_, book_->c.total_gpus() - book_->c.free_gpus()});
  step_ended();
  save();
}

void SlurmBackend::check_partition(const std::vector<SlurmNode>& nodes) {
  std::string why;
  const auto part = ctl_.partition(opt_.partition);
  if (part.empty()) {
    why = "partition " + opt_.partition + " is gone from Slurm";
  } else if (const auto st = part.find("State"); st != part.end() && st->second != "UP") {
    why = "partition " + opt_.partition + " is " + st->second;
  } else {
    std::vector<std::string> now;
    for (const auto& n : nodes) now.push_back(n.name);
    if (now != node_names_) {
      std::string list;
      for (const auto& n : now) list += (list.empty() ? "" : ",") + n;
      why = "partition " + opt_.partition + " now has nodes [" + list + "], not the " +
            std::to_string(node_names_.size()) + " it had at start (restart serve to take the new set)";
    }
  }
  if (why == paused_) return;
  if (why.empty()) log("partition " + opt_.partition + " is back as it was; scheduling again");
  else warn(why + ": nothing is released until it is back");
  paused_ = why;
}

std::string SlurmBackend::never_fits(const SlurmJob& j) const {
  const int total = spec_.total_gpus();
  int max_gpus = 0, max_cpus = 0;
  double max_mem = 0;
  for (const auto& sv : spec_.servers) {
    max_gpus = std::max(max_gpus, sv.gpus);
    max_cpus = std::max(max_cpus, sv.cpus);
    max_mem = std::max(max_mem, sv.dram_gb * 1024);
  }
  const std::string has = "partition " + opt_.partition + " has " + std::to_string(total) + " GPUs on " +
                          std::to_string(spec_.servers.size()) + " nodes (at most " + std::to_string(max_gpus) +
                          " per node)";
  if (j.gpus > total) return "asks for " + gpus_text(j.gpus) + "; " + has;
  if (j.gpus_per_job == 0 && j.gpus_per_node > 0) {
    int nodes_with = 0;
    for (const auto& sv : spec_.servers) nodes_with += sv.gpus >= j.gpus_per_node;
    if (j.gpus_per_node > max_gpus || j.num_nodes > nodes_with)
      return "asks for " + std::to_string(j.gpus_per_node) + " GPUs on each of " + std::to_string(j.num_nodes) +
             " nodes; " + has;
  }
  if (j.mem_mb() > max_mem + 1e-9)
    return "asks for " + std::to_string(static_cast<long>(j.mem_mb())) + " MB per node; the largest node of partition " +
           opt_.partition + " has " + std::to_string(static_cast<long>(max_mem)) + " MB";
  const int per_node_cpus = cpus_per_node(j.cpus, static_cast<std::size_t>(std::max(1, j.num_nodes)));
  if (per_node_cpus > max_cpus)
    return "asks for " + std::to_string(per_node_cpus) + " CPUs per node; the largest node of partition " +
           opt_.partition + " has " + std::to_string(max_cpus);
  return "";
}

void SlurmBackend::refuse(const SlurmJob& j, const std::string& why) {
  LiveJob l = live_job_of(j);
  const JobSpec s =
      hinted_spec(parse_hints(j.comment), j.id, "slurm job " + std::to_string(j.id), l.submit_s, j.gpus, j.user, j.name);
  l.status = "unschedulable";
  l.why = why;
  l.end_s = now_s_;
  JobState& st = add_job(s, std::move(l));
  st.status = JobStatus::Finished;
  st.finish = at(now_s_);
  ++refusals_;
  std::string said = "AdminComment set";
  try {
    ctl_.admin_comment(j.id, "ringmaster: cannot run here: " + why);
  } catch (const SlurmError& e) {
    said = "could not set its AdminComment: " + std::string(e.what());
  }
  warn("job " + std::to_string(j.id) + ": unschedulable, never started: " + why + " (left held, " + said +
       "; the user can cancel it or resubmit a smaller request)");
}

void SlurmBackend::recover(double now_s) {
  now_s_ = now_s;
  int running = 0, reheld = 0, unreadable = 0;
  for (const auto& j : ctl_.jobs(opt_.partition)) {
    if (j.partition != opt_.partition || j.finished() || j.gpus <= 0) continue;
    if (j.state == "PENDING" && !j.held()) {  // released by the lost run, not started: the policy decides again
      try {
        ctl_.hold(j.id);
        ++reheld;
      } catch (const SlurmError& e) {
        warn("job " + std::to_string(j.id) + ": --recover could not hold it again: " + e.what());
      }
      continue;
    }
    if (!running_state(j.state) || !never_fits(j).empty()) continue;
    try {
      adopt(j);
    } catch (const InputError& e) {
      warn("job " + std::to_string(j.id) + ": --recover left it to Slurm: " + e.what());
      continue;
    }
    const std::size_t i = live_.size() - 1;
    LiveJob& l = live_[i];
    l.status = "running";
    l.nodes = j.nodes;
    l.started_s = l.first_start_s = j.start_s > 0 ? j.start_s : whole(now_s);
    read_allocation(i);  // the GPU indices Slurm gave it, per node
    if (l.gpus.empty()) ++unreadable;
    ++running;
  }
  warn("--recover: no usable state; rebuilt from Slurm: " + std::to_string(running) +
       " running job(s) booked on the GPUs Slurm gave them (attained service from their start times" +
       (unreadable ? ", " + std::to_string(unreadable) + " with unreadable GPUs: their nodes booked whole" : std::string()) +
       "), " + std::to_string(reheld) + " released job(s) held again; held jobs are adopted as new");
}




}  // namespace rm::live
