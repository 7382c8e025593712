#include "live/slurm_backend.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "cluster/cluster_config.h"
#include "core/error.h"
#include "exec/comm_model.h"
#include "metrics/metrics.h"
#include "workload/model_catalogue.h"
#include "workload/trace.h"

namespace rm::live {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
constexpr JobId kExternal = 1LL << 40;  // owner of GPUs held by jobs ringmaster does not own or unusable nodes
}  // namespace

SlurmBackend::SlurmBackend(SlurmCtl& ctl, ServeOptions opt) : TableBackend(std::move(opt)), ctl_(ctl) {}
SlurmBackend::SlurmBackend(ServeOptions opt)
    : TableBackend(std::move(opt)), owned_ctl_(std::make_unique<SlurmCtl>()), ctl_(*owned_ctl_) {}
SlurmBackend::~SlurmBackend() = default;

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
  const auto nodes = ctl_.nodes(opt_.partition);
  if (nodes.empty()) throw InputError("--partition", 0, opt_.partition, "the partition has no nodes");
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
  load();
  if (origin_s_ < 0) {  // time 0: now, or the submission of the oldest held job waiting for us
    origin_s_ = now_s;
    for (const auto& j : ctl_.jobs(opt_.partition))
      if (j.state == "PENDING" && j.held() && j.submit_s >= 0) origin_s_ = std::min(origin_s_, j.submit_s);
  }
  save();
}

std::string SlurmBackend::describe() const {
  return "partition " + opt_.partition + ", " + std::to_string(spec_.servers.size()) + " nodes";
}

std::int64_t SlurmBackend::submit(const Submission& sub) {
  return ctl_.submit({"-H", "-p", opt_.partition, "--gpus=" + std::to_string(sub.gpus), "-c", "1", "--mem=100M", "-J",
                      sub.name, "-D", sub.workdir, "-o", sub.output, "--open-mode=append", "--comment", sub.hints,
                      "--wrap", sub.command});
}


void SlurmBackend::adopt(const SlurmJob& j) {
  JobHints h = parse_hints(j.comment);
  for (const auto& e : h.errors) log("job " + std::to_string(j.id) + ": hint ignored: " + e);
  const JobSpec r = spec_from_hints(h, j.id, "slurm job " + std::to_string(j.id),
                                    j.submit_s >= 0 ? j.submit_s : origin_s_, j.gpus, j.user, j.name);
  LiveJob l;
  l.slurm_id = j.id;
  l.submit_s = j.submit_s >= 0 ? j.submit_s : origin_s_;
  l.slurm_state = j.state;
  l.adopted_s = now_s_;
  l.hint_errors = h.errors;
  l.per_node = j.gpus_per_job == 0;
  l.cpus = std::max(1, j.cpus);
  l.mem_mb = j.mem_mb();
  JobState& st = add_job(r, std::move(l));
  const ClusterTotals tot = totals_of(spec_);
  st.cpu_demand = tot.gpus > 0 ? r.num_gpus * tot.cpus / tot.gpus : 0;
  st.mem_demand = tot.gpus > 0 ? r.num_gpus * tot.mem_gb / tot.gpus : 0;
  log("job " + std::to_string(j.id) + ": adopted (" + std::to_string(r.num_gpus) + " GPUs, model " + r.model + ", " +
      std::to_string(r.iterations) + " iterations, ideal " + std::to_string(st.ideal_iter_time * r.iterations) + " s)");
}




// Slurm gives a job at least one CPU on each of its nodes and spreads the rest (--cpus-per-task x tasks); the
// memory asked (--mem) is per node.
int SlurmBackend::cpus_per_node(int cpus, std::size_t nodes) {
  const int n = std::max<int>(1, static_cast<int>(nodes));
  return std::max(1, (cpus + n - 1) / n);
}

void SlurmBackend::read_allocation(std::size_t i) {
  LiveJob& l = live_[i];
  std::vector<GpuRef> real;
  try {
    for (const auto& [node, idx] : ctl_.job_gpus(l.slurm_id))
      if (const auto it = node_index_.find(node); it != node_index_.end())
        for (int g : idx)
          if (g >= 0 && g < spec_.servers[it->second].gpus) real.push_back({it->second, g});
  } catch (const SlurmError& e) {
    log("job " + std::to_string(l.slurm_id) + ": could not read the GPUs Slurm gave it: " + e.what());
    return;
  }
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
    log("job " + std::to_string(l.slurm_id) + ": Slurm spread its GPUs as " + got + ", not as the policy did");
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
  for (const SlurmJob* jp : jobs) {
    const SlurmJob& j = *jp;
    seen.insert(j.id);
    const auto it = by_slurm_.find(j.id);
    if (it == by_slurm_.end()) {
      if (j.state == "PENDING" && j.held() && !ignored_.count(j.id)) {
        if (j.gpus <= 0) {
          log("job " + std::to_string(j.id) + ": asks for no GPUs, left to Slurm");
          ignored_.insert(j.id);
          continue;
        }
        try {
          adopt(j);
        } catch (const InputError& e) {
          log("job " + std::to_string(j.id) + ": cannot be scheduled, left held: " + e.what());
          ignored_.insert(j.id);
        }
      }
      continue;
    }
    LiveJob& l = live_[it->second];
    l.slurm_state = j.state;
    if (l.status == "finished") continue;
    const std::string sid = "job " + std::to_string(j.id);
    if (j.finished()) {
      const double end = j.end_s > 0 ? j.end_s : now_s;
      stop(it->second, end, "finished");
      log(sid + ": " + j.state + " after " + std::to_string(end - l.submit_s) + " s");
    } else if (j.state == "RUNNING" || j.state == "COMPLETING" || j.state == "CONFIGURING") {
      if (l.status == "running" && j.start_s > 0 && l.started_s >= 0 && std::fabs(j.start_s - l.started_s) > 0.5) {
        // Requeued by Slurm and started again between two polls (a node went down under it; a busy machine
        // can miss the pending moment): the run we knew ended when this one began.
        stop(it->second, j.start_s, "queued");
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
        l.started_s = j.start_s > 0 ? j.start_s : now_s;
        if (l.first_start_s < 0) l.first_start_s = l.started_s;
        read_allocation(it->second);
      }
    } else if (j.state == "PENDING" && !j.held() && l.status == "running" &&
               (j.start_s < 0 || std::fabs(j.start_s - l.started_s) > 0.5)) {
      // Requeued by Slurm itself (a node went down under it; its start time is no longer this run's, which
      // tells it from a restarting slurmctld that shows a running job as pending for a moment): take it back so
      // the policy places it again.
      stop(it->second, now_s, "queued");
      ++l.preemptions;
      try {
        ctl_.hold(j.id);
        log(sid + ": requeued by Slurm (" + j.reason + "); held to be placed again");
      } catch (const SlurmError& e) {
        log(sid + ": requeued by Slurm (" + j.reason + "), could not hold it: " + e.what());
      }
    } else if (j.state == "PENDING" && j.held() && (l.status == "running" || l.status == "starting")) {
      // Requeued or held by someone else (an administrator, a node failure with requeue).
      stop(it->second, now_s, "queued");
      ++l.preemptions;
      log(sid + ": held again by Slurm or a user; back in the queue");
    }
  }
  for (std::size_t i = 0; i < live_.size(); ++i) {
    LiveJob& l = live_[i];
    if (l.status == "finished" || seen.count(l.slurm_id)) continue;
    stop(i, now_s, "finished");
    l.slurm_state = "VANISHED";
    log("job " + std::to_string(l.slurm_id) + ": no longer listed by Slurm; counted as ended now");
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

void SlurmBackend::claim(StepBook& b, const LiveJob& l) const {
  for (const auto& name : l.nodes)
    if (const auto it = node_index_.find(name); it != node_index_.end()) {
      b.free_cpus[it->second] -= cpus_per_node(l.cpus, l.nodes.size());
      b.free_mem[it->second] -= l.mem_mb;
    }
}

// What Slurm's nodes leave: unusable nodes, CPUs and memory per node (less what released jobs will take).
void SlurmBackend::book_nodes(StepBook& b, const std::vector<SlurmNode>& nodes) {
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
  // A node without a CPU or any memory left can run no job: its free GPUs are nobody's to give either.
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
  for (const auto& j : jobs) {
    if (by_slurm_.count(j.id) || !(j.state == "RUNNING" || j.state == "COMPLETING" || j.state == "CONFIGURING")) continue;
    const int per = j.nodes.empty() ? 0 : j.gpus / static_cast<int>(j.nodes.size());
    for (const auto& name : j.nodes)
      if (const auto it = node_index_.find(name); it != node_index_.end()) b.take_free(spec_, kExternal, it->second, per);
  }
}

void SlurmBackend::book_holding(StepBook& b, std::size_t i, double now_s) {
  LiveJob& l = live_[i];
  if (l.status == "starting" &&
      std::any_of(l.nodes.begin(), l.nodes.end(), [&](const std::string& n) { return b.unusable.count(n) > 0; })) {
    try {  // released onto a node that has gone down or drained since: take it back and place it again
      ctl_.hold(l.slurm_id);
      stop(i, now_s, "queued");
      log("job " + std::to_string(l.slurm_id) + ": its node became unusable before it started; held to be placed again");
      return;
    } catch (const SlurmError& e) {
      log("job " + std::to_string(l.slurm_id) + ": could not take it back from an unusable node: " + e.what());
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
      ctl_.hold(l.slurm_id);
      stop(i, now_s, "queued");
      log("job " + std::to_string(l.slurm_id) + ": its nodes no longer have room for it (Slurm spread another job's "
          "GPUs differently); held to be placed again");
    } catch (const SlurmError& e) {
      log("job " + std::to_string(l.slurm_id) + ": could not take it back: " + e.what());
    }
    return;
  }
  log("job " + std::to_string(l.slurm_id) + ": its GPUs are not free in our books; re-reading its nodes");
  const int per = l.nodes.empty() ? 0 : specs_[i].num_gpus / static_cast<int>(l.nodes.size());
  for (const auto& name : l.nodes)
    if (const auto it = node_index_.find(name); it != node_index_.end())
      for (const auto& g : b.take_free(spec_, static_cast<JobId>(i), it->second, per)) l.gpus.push_back(g);
}


void SlurmBackend::apply_preempt(StepBook& b, JobId id, double now_s) {
  if (id < 0 || id >= static_cast<JobId>(live_.size())) return;
  LiveJob& l = live_[id];
  if (l.status != "running" && l.status != "starting") return;
  try {
    if (l.status == "starting") ctl_.hold(l.slurm_id);
    else ctl_.requeue_hold(l.slurm_id);
  } catch (const SlurmError& e) {
    log("job " + std::to_string(l.slurm_id) + ": preemption failed: " + e.what());
    return;
  }
  b.c.release(id, l.gpus);
  stop(static_cast<std::size_t>(id), now_s, "queued");
  ++l.preemptions;
  ++preemptions_;
  log("job " + std::to_string(l.slurm_id) + ": preempted (requeued held) after " + std::to_string(l.run_s) + " s of service");
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
        log("job " + std::to_string(l.slurm_id) + ": the policy split it unevenly over nodes, which a per-node "
            "request (--gres=gpu:k) cannot express; it waits (submit with --gpus=N to allow splits)");
      l.split_refused = true;
      return false;
    }
    per_node = count.front();
  }
  // Slurm would not run it where its CPUs or memory do not fit: refused (logged once), it waits.
  const auto short_node = std::find_if(names.begin(), names.end(), [&](const std::string& n) {
    const int s = node_index_.at(n);
    return b.free_cpus[s] + 1e-9 < cpus_per_node(l.cpus, names.size()) || b.free_mem[s] + 1e-9 < l.mem_mb;
  });
  if (short_node != names.end()) {
    if (!l.fit_refused)
      log("job " + std::to_string(l.slurm_id) + ": node " + *short_node + " lacks the CPUs (" +
          std::to_string(cpus_per_node(l.cpus, names.size())) + ") or memory (" +
          std::to_string(static_cast<long>(l.mem_mb)) + " MB) it asks for per node; it waits");
    l.fit_refused = true;
    return false;
  }
  return true;
}

void SlurmBackend::apply_start(StepBook& b, const StartDecision& sd, double now_s) {
  if (sd.job < 0 || sd.job >= static_cast<JobId>(live_.size()) || live_[sd.job].status != "queued") return;
  LiveJob& l = live_[sd.job];
  try {
    b.c.allocate(sd.job, sd.gpus);
  } catch (const InvariantError& e) {
    log("job " + std::to_string(l.slurm_id) + ": start refused, " + e.what());
    return;
  }
  std::vector<std::string> names;
  std::vector<int> count;
  count_per_node(sd.gpus, node_names_, names, count);
  int per_node = 0;
  if (!start_fits(b, sd, names, count, per_node)) {
    b.c.release(sd.job, sd.gpus);
    return;
  }
  if (opt_.on_rate) {  // before the release: the payload reads its speed when it starts
    std::vector<int> split_on = split_counts();
    const Span sp = span_of(sd.gpus);
    if (sp.servers.size() > 1)
      for (int srv : sp.servers) ++split_on[srv];
    l.slowdown = slowdown_of(sd.job, sd.gpus, split_on);
    opt_.on_rate(specs_[sd.job], l.slowdown);
  }
  try {
    ctl_.place_and_release(l.slurm_id, names, per_node);
  } catch (const SlurmError& e) {
    b.c.release(sd.job, sd.gpus);
    log("job " + std::to_string(l.slurm_id) + ": start failed: " + e.what());
    return;
  }
  l.status = "starting";
  l.gpus = sd.gpus;
  l.nodes = names;
  claim(b, l);
  l.started_s = l.decided_s = now_s;
  std::string where;
  for (const auto& n : names) where += (where.empty() ? "" : ",") + n;
  log("job " + std::to_string(l.slurm_id) + ": start on " + where + " (" + std::to_string(sd.gpus.size()) + " GPUs)");
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
  ++steps_;
  now_s_ = now_s;
  const auto nodes = ctl_.nodes(opt_.partition);
  const auto jobs = ctl_.jobs(opt_.partition);
  observe(jobs, now_s);
  book_ = std::make_unique<StepBook>(spec_);
  book_nodes(*book_, nodes);
  book_jobs(*book_, jobs, now_s);
  return observation(now_s, book_->c);
}

void SlurmBackend::apply(const Decisions& d, double now_s, float decision_us) {
  decision_us_.push_back(decision_us);
  for (JobId id : d.preempt) apply_preempt(*book_, id, now_s);
  if (!d.resize.empty()) log("resize decisions are not applied live (GPU-only booking)");
  for (const auto& sd : d.start) apply_start(*book_, sd, now_s);
}

void SlurmBackend::persist(double now_s) {
  update_rates();
  series_.push_back({at(now_s), queued_, running_, book_->c.total_gpus() - book_->c.free_gpus()});
  save();
}




}  // namespace rm::live
