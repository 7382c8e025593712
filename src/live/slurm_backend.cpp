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
#include "policy/registry.h"
#include "workload/model_catalogue.h"
#include "workload/trace.h"

namespace rm::live {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
constexpr JobId kExternal = 1LL << 40;  // owner of GPUs held by jobs ringmaster does not own or unusable nodes
const char* const kDefaultModel = "resnet50";
}  // namespace

SlurmBackend::SlurmBackend(SlurmCtl& ctl, ServeOptions opt) : ctl_(ctl), opt_(std::move(opt)) {}
SlurmBackend::~SlurmBackend() = default;

void SlurmBackend::log(const std::string& s) const {
  if (opt_.log) opt_.log(s);
}

Time SlurmBackend::at(double epoch_s) const { return from_seconds(std::max(0.0, epoch_s - origin_s_)); }

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
  scheduler_ = make_scheduler(opt_.policy, opt_.seed);
  if (scheduler_->allocates())
    throw InputError("--policy", 0, opt_.policy, "live scheduling books GPUs only: drop the CPU/memory allocation part");
  fs::create_directories(opt_.state_dir);
  load();
  if (origin_s_ < 0) {  // time 0: now, or the submission of the oldest held job waiting for us
    origin_s_ = now_s;
    for (const auto& j : ctl_.jobs(opt_.partition))
      if (j.state == "PENDING" && j.held() && j.submit_s >= 0) origin_s_ = std::min(origin_s_, j.submit_s);
  }
  {  // a policy that learns from finished jobs (a-srpt's predictor) is taught the ones a previous run saw finish
    std::vector<const JobState*> done;
    for (const auto& st : states_)
      if (st.status == JobStatus::Finished) done.push_back(&st);
    std::stable_sort(done.begin(), done.end(), [](const JobState* a, const JobState* b) { return a->finish < b->finish; });
    for (const JobState* st : done) scheduler_->learn(*st);
  }
  log("connected: partition " + opt_.partition + ", " + std::to_string(nodes.size()) + " nodes, " +
      std::to_string(spec_.total_gpus()) + " GPUs, policy " + scheduler_->name() + ", " + std::to_string(live_.size()) +
      " jobs from the state file");
  save();
}

// The catalogue's figures and the iterations of a duration, as for a trace's job (workload/trace.h).
JobSpec SlurmBackend::resolve_spec(const JobSpec& s) const {
  Workload w;
  w.jobs = {s};
  w.raw = {RawTimes{}};
  w.model_qualifier = {""};
  ResolveOptions ro;
  ro.seed = opt_.seed;
  resolve_workload(w, ModelCatalogue::builtin(), spec_, law_resolve_options(ro), nullptr);
  return w.jobs.at(0);
}

void SlurmBackend::adopt(const SlurmJob& j) {
  JobHints h = parse_hints(j.comment);
  for (const auto& e : h.errors) log("job " + std::to_string(j.id) + ": hint ignored: " + e);
  JobSpec s;
  s.name = h.name.empty() ? std::to_string(j.id) : h.name;
  s.file = "slurm job " + std::to_string(j.id);
  s.submit = at(j.submit_s >= 0 ? j.submit_s : origin_s_);
  s.num_gpus = j.gpus;
  s.model = h.model.empty() ? kDefaultModel : h.model;
  s.user = h.user.empty() ? j.user : h.user;
  s.recurrence_key = !h.key.empty() ? h.key : s.user + "/" + j.name + "/" + std::to_string(j.gpus);
  s.tp = h.tp;
  s.pp = h.pp;
  if (h.iterations) s.iterations = *h.iterations;
  else s.duration_s = h.duration_s ? *h.duration_s : opt_.default_duration_s;
  JobSpec r;
  try {
    r = resolve_spec(s);
  } catch (const InputError& e) {
    if (h.model.empty() && s.tp == 1 && s.pp == 1) throw;  // nothing of the user's to drop: cannot run
    h.errors.push_back(std::string("model/tp/pp: ") + e.what());
    log("job " + std::to_string(j.id) + ": hint ignored: " + e.what());
    s.model = kDefaultModel;
    s.tp = s.pp = 1;
    r = resolve_spec(s);
  }
  r.id = static_cast<JobId>(specs_.size());
  specs_.push_back(r);
  JobState& st = states_.emplace_back();
  st.spec = &specs_.back();
  st.status = JobStatus::Queued;
  st.remaining = r.iterations;
  st.ideal_iter_time = ideal_iteration_time_s(r, spec_);
  st.arrival_s = to_seconds(r.submit);
  const ClusterTotals tot = totals_of(spec_);
  st.cpu_demand = tot.gpus > 0 ? r.num_gpus * tot.cpus / tot.gpus : 0;
  st.mem_demand = tot.gpus > 0 ? r.num_gpus * tot.mem_gb / tot.gpus : 0;
  LiveJob& l = live_.emplace_back();
  l.slurm_id = j.id;
  l.submit_s = j.submit_s >= 0 ? j.submit_s : origin_s_;
  l.slurm_state = j.state;
  l.adopted_s = now_s_;
  l.hint_errors = h.errors;
  l.per_node = j.gpus_per_job == 0;
  l.cpus = std::max(1, j.cpus);
  l.mem_mb = j.mem_mb();
  by_slurm_[j.id] = r.id;
  log("job " + std::to_string(j.id) + ": adopted (" + std::to_string(r.num_gpus) + " GPUs, model " + r.model + ", " +
      std::to_string(r.iterations) + " iterations, ideal " + std::to_string(st.ideal_iter_time * r.iterations) + " s)");
}

std::vector<int> SlurmBackend::split_counts() const {
  std::vector<int> split_on(spec_.servers.size(), 0);
  for (const auto& l : live_)
    if ((l.status == "running" || l.status == "starting") && l.nodes.size() > 1)
      for (const auto& n : l.nodes) ++split_on[node_index_.at(n)];
  return split_on;
}

double SlurmBackend::slowdown_of(JobId id, const std::vector<GpuRef>& gpus, const std::vector<int>& split_on) const {
  const double t = iteration_time_s(specs_[id], spec_, span_of(gpus), [&](int srv) { return std::max(1, split_on[srv]); });
  const double ideal = states_[id].ideal_iter_time;
  return ideal > 0 ? t / ideal : 1.0;
}

void SlurmBackend::stop(std::size_t i, double end_s, const char* next) {
  LiveJob& l = live_[i];
  if (l.status == "running" && l.started_s >= 0) {
    record_run(i, end_s);
    l.run_s += std::max(0.0, end_s - l.started_s);
  }
  l.gpus.clear();
  l.status = next;
  if (l.status == "queued") l.nodes.clear();
  if (l.status == "finished") {
    l.end_s = end_s;
    states_[i].status = JobStatus::Finished;
    states_[i].finish = at(end_s);
    // What it ran is the truth a learning policy (a-srpt's predictor) is taught: its service at the ideal
    // iteration time, as the views count progress; the hint was only an estimate.
    if (states_[i].ideal_iter_time > 0 && l.run_s > 0) specs_[i].iterations = l.run_s / states_[i].ideal_iter_time;
  }
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

void SlurmBackend::record_run(std::size_t i, double end_s) {
  LiveJob& l = live_[i];
  LiveRun r{l.started_s, std::max(l.started_s, end_s), l.decided_s, now_s_, {}};
  for (const auto& g : l.gpus) {
    const std::string& n = node_names_.at(g.server);
    auto it = std::find_if(r.gpus.begin(), r.gpus.end(), [&](const auto& x) { return x.first == n; });
    if (it == r.gpus.end()) r.gpus.push_back({n, 1});
    else ++it->second;
  }
  if (l.gpus.empty())
    for (const auto& n : l.nodes) r.gpus.push_back({n, specs_[i].num_gpus / static_cast<int>(std::max<std::size_t>(1, l.nodes.size()))});
  l.runs.push_back(std::move(r));
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

// The views: what the simulator's engine would show the policy at this instant. Returns the unfinished jobs in
// submit order; counts the queued and running ones.
std::vector<JobId> SlurmBackend::refresh_views(double now_s, int& queued, int& running) {
  std::vector<JobId> order;
  for (std::size_t i = 0; i < live_.size(); ++i) {
    const LiveJob& l = live_[i];
    if (l.status == "finished") continue;
    order.push_back(static_cast<JobId>(i));
    JobState& st = states_[i];
    const double ideal = st.ideal_iter_time > 0 ? st.ideal_iter_time : 1;
    const bool run = l.status != "queued";
    const double held = l.run_s + (l.status == "running" && l.started_s >= 0 ? std::max(0.0, now_s - l.started_s) : 0);
    st.status = run ? JobStatus::Running : JobStatus::Queued;
    st.gpus = run ? l.gpus : std::vector<GpuRef>{};
    st.servers.clear();
    for (const auto& g : st.gpus) st.servers.push_back(g.server);
    std::sort(st.servers.begin(), st.servers.end());
    st.servers.erase(std::unique(st.servers.begin(), st.servers.end()), st.servers.end());
    st.run_us = from_seconds(l.run_s);
    st.preemptions = l.preemptions;
    st.first_start = l.first_start_s >= 0 ? at(l.first_start_s) : kNever;
    st.remaining = std::max(0.0, specs_[i].iterations - held / ideal);
    st.progress_time = at(now_s);
    st.iter_time = run ? ideal : 0;
    st.last_start = run ? at(l.started_s >= 0 ? l.started_s : now_s) : kNever;
    if (run && st.last_start > st.progress_time) st.last_start = st.progress_time;  // attained = run_us + now - last_start
    queued += !run;
    running += run;
  }
  std::stable_sort(order.begin(), order.end(), [&](JobId a, JobId b) { return specs_[a].submit < specs_[b].submit; });
  return order;
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

int SlurmBackend::step(double now_s) {
  ++steps_;
  now_s_ = now_s;
  const auto nodes = ctl_.nodes(opt_.partition);
  const auto jobs = ctl_.jobs(opt_.partition);
  observe(jobs, now_s);
  StepBook b(spec_);
  book_nodes(b, nodes);
  book_jobs(b, jobs, now_s);
  int queued = 0, running = 0;
  const std::vector<JobId> order = refresh_views(now_s, queued, running);
  std::vector<const JobState*> active;
  for (JobId i : order) active.push_back(&states_[i]);
  if (queued > 0) {
    const auto t0 = std::chrono::steady_clock::now();
    const SchedContext ctx{at(now_s), b.c, ActiveJobs(active)};
    Decisions d = scheduler_->schedule(ctx);
    decision_us_.push_back(static_cast<float>(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count()));
    for (JobId id : d.preempt) apply_preempt(b, id, now_s);
    if (!d.resize.empty()) log("resize decisions are not applied live (GPU-only booking)");
    for (const auto& sd : d.start) apply_start(b, sd, now_s);
  }
  update_rates();
  series_.push_back({at(now_s), queued, running, b.c.total_gpus() - b.c.free_gpus()});
  save();
  return static_cast<int>(order.size());
}

void SlurmBackend::save() const {
  json js;
  js["partition"] = opt_.partition;
  js["policy"] = opt_.policy;
  js["origin_s"] = origin_s_;
  js["steps"] = steps_;
  js["preemptions"] = preemptions_;
  js["ignored"] = ignored_;
  json jobs = json::array();
  for (std::size_t i = 0; i < live_.size(); ++i) {
    const LiveJob& l = live_[i];
    const JobSpec& s = specs_[i];
    json g = json::array();
    for (const auto& x : l.gpus) g.push_back({x.server, x.gpu});
    json runs = json::array();
    for (const auto& r : l.runs)
      runs.push_back({{"start_s", r.start_s}, {"end_s", r.end_s}, {"decided_s", r.decided_s}, {"noticed_s", r.noticed_s},
                      {"gpus", r.gpus}});
    jobs.push_back({{"slurm_id", l.slurm_id}, {"name", s.name}, {"model", s.model}, {"num_gpus", s.num_gpus},
                    {"iterations", s.iterations}, {"user", s.user}, {"key", s.recurrence_key}, {"tp", s.tp},
                    {"pp", s.pp}, {"submit_s", l.submit_s}, {"status", l.status}, {"slurm_state", l.slurm_state},
                    {"nodes", l.nodes}, {"gpus", g}, {"started_s", l.started_s}, {"decided_s", l.decided_s},
                    {"adopted_s", l.adopted_s}, {"first_start_s", l.first_start_s}, {"end_s", l.end_s},
                    {"run_s", l.run_s}, {"preemptions", l.preemptions}, {"hint_errors", l.hint_errors},
                    {"per_node", l.per_node}, {"cpus", l.cpus}, {"mem_mb", l.mem_mb}, {"runs", runs}});
  }
  js["jobs"] = jobs;
  // The latest decision latencies only: the file is rewritten every step, so it must not grow with uptime.
  constexpr std::size_t kKeep = 20000;
  js["decision_us"] = decision_us_.size() <= kKeep ? decision_us_
                                                   : std::vector<float>(decision_us_.end() - kKeep, decision_us_.end());
  const fs::path dir(opt_.state_dir), tmp = dir / "state.json.tmp", dst = dir / "state.json";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << js.dump(1) << "\n";
    f.flush();
    if (!f) throw std::runtime_error("cannot write " + tmp.string());
  }
  fs::rename(tmp, dst);  // atomic on one file system: a reader sees the old or the new state, never half
}

void SlurmBackend::load() {
  const fs::path p = fs::path(opt_.state_dir) / "state.json";
  if (!fs::exists(p)) return;
  json js;
  try {
    std::ifstream f(p);
    js = json::parse(f);
  } catch (const std::exception& e) {
    throw InputError(p.string(), 0, "", std::string("unreadable state file: ") + e.what());
  }
  const std::string part = js.value("partition", "");
  if (part != opt_.partition)
    throw InputError(p.string(), 0, "partition",
                     "this state belongs to partition '" + part + "', not '" + opt_.partition + "'");
  origin_s_ = js.value("origin_s", -1.0);
  steps_ = js.value("steps", std::int64_t{0});
  preemptions_ = js.value("preemptions", std::int64_t{0});
  for (const auto& x : js.value("ignored", json::array())) ignored_.insert(x.get<std::int64_t>());
  for (const auto& x : js.value("decision_us", json::array())) decision_us_.push_back(x.get<float>());
  for (const auto& jj : js.at("jobs")) {
    JobSpec s;
    const std::int64_t sid = jj.at("slurm_id").get<std::int64_t>();
    s.name = jj.value("name", std::to_string(sid));
    s.file = "slurm job " + std::to_string(sid);
    s.model = jj.at("model").get<std::string>();
    s.num_gpus = jj.at("num_gpus").get<int>();
    s.iterations = jj.at("iterations").get<double>();
    s.user = jj.value("user", "");
    s.recurrence_key = jj.value("key", "");
    s.tp = jj.value("tp", 1);
    s.pp = jj.value("pp", 1);
    const double submit_s = jj.at("submit_s").get<double>();
    s.submit = at(submit_s);
    JobSpec r = resolve_spec(s);
    r.id = static_cast<JobId>(specs_.size());
    specs_.push_back(r);
    JobState& st = states_.emplace_back();
    st.spec = &specs_.back();
    st.ideal_iter_time = ideal_iteration_time_s(r, spec_);
    st.arrival_s = to_seconds(r.submit);
    st.remaining = r.iterations;
    LiveJob& l = live_.emplace_back();
    l.slurm_id = sid;
    l.status = jj.at("status").get<std::string>();
    l.slurm_state = jj.value("slurm_state", "");
    l.nodes = jj.value("nodes", std::vector<std::string>{});
    for (const auto& g : jj.value("gpus", json::array())) l.gpus.push_back({g.at(0).get<int>(), g.at(1).get<int>()});
    l.submit_s = submit_s;
    l.started_s = jj.value("started_s", -1.0);
    l.decided_s = jj.value("decided_s", -1.0);
    l.adopted_s = jj.value("adopted_s", -1.0);
    l.first_start_s = jj.value("first_start_s", -1.0);
    l.end_s = jj.value("end_s", -1.0);
    l.run_s = jj.value("run_s", 0.0);
    l.preemptions = jj.value("preemptions", 0);
    l.hint_errors = jj.value("hint_errors", std::vector<std::string>{});
    l.per_node = jj.value("per_node", true);
    l.cpus = jj.value("cpus", 1);
    l.mem_mb = jj.value("mem_mb", 0.0);
    for (const auto& r : jj.value("runs", json::array()))
      l.runs.push_back({r.at("start_s").get<double>(), r.at("end_s").get<double>(), r.value("decided_s", -1.0),
                        r.value("noticed_s", -1.0), r.at("gpus").get<std::vector<std::pair<std::string, int>>>()});
    if (l.status == "finished") {
      st.status = JobStatus::Finished;
      st.finish = at(l.end_s);
    }
    by_slurm_[sid] = r.id;
  }
}

void SlurmBackend::write_outputs(const std::string& dir) const {
  RunRecord rec;
  for (std::size_t i = 0; i < live_.size(); ++i) {
    const LiveJob& l = live_[i];
    JobRecord r;
    r.spec = &specs_[i];
    r.first_start = l.first_start_s >= 0 ? at(l.first_start_s) : kNever;
    r.finish = l.status == "finished" ? at(l.end_s) : kNever;
    r.run_us = from_seconds(l.run_s);
    r.preemptions = l.preemptions;
    rec.jobs.push_back(r);
    rec.busy_gpu_us += from_seconds(l.run_s * specs_[i].num_gpus);
  }
  rec.series = series_;
  rec.total_gpus = spec_.total_gpus();
  rec.events = steps_;
  rec.preemptions = preemptions_;
  rec.decision_us = decision_us_;
  std::int64_t failed = 0;
  for (const auto& l : live_) failed += l.status == "finished" && l.slurm_state != "COMPLETED";
  rec.extra = {{"live_steps", static_cast<double>(steps_)}, {"jobs_not_completed", static_cast<double>(failed)}};
  const Summary sum = summarize(rec, 0);
  fs::create_directories(dir);
  std::ofstream runs(fs::path(dir) / "runs.csv");  // every stretch a job held GPUs, per node (times from time 0)
  runs << "slurm_id,slurm_state,start_s,end_s,node,gpus,job_id,released_s,noticed_s\n";
  for (std::size_t i = 0; i < live_.size(); ++i)
    for (const auto& r : live_[i].runs)
      for (const auto& [node, k] : r.gpus)
        runs << live_[i].slurm_id << "," << live_[i].slurm_state << "," << r.start_s - origin_s_ << ","
             << r.end_s - origin_s_ << "," << node << "," << k << "," << specs_[i].name << ","
             << (r.decided_s >= 0 ? r.decided_s - origin_s_ : -1) << ","
             << (r.noticed_s >= 0 ? r.noticed_s - origin_s_ : -1) << "\n";
  rm::write_outputs(dir, rec, {}, sum,
                    RunInfo{opt_.policy, scheduler_ ? scheduler_->name() : opt_.policy, spec_.name,
                            "slurm:" + opt_.partition, "slurm", opt_.seed, 0});
}

}  // namespace rm::live
