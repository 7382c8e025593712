#include "live/table_backend.h"

#include <fmt/format.h>
#include <fcntl.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <chrono>
#include <cmath>
#include <unistd.h>

#include "core/error.h"
#include "exec/comm_model.h"
#include "metrics/metrics.h"
#include "workload/model_catalogue.h"
#include "workload/trace.h"

namespace rm::live {

namespace fs = std::filesystem;
using nlohmann::json;

void TableBackend::log(const std::string& s) const {
  if (opt_.log) opt_.log(s);
}

void TableBackend::warn(const std::string& s) const {
  if (opt_.warn) opt_.warn(s);
  else log(s);
}

void TableBackend::record_decision(float us) {
  decision_us_.push_back(us);
  decision_s_sum_ += us * 1e-6;
  ++decision_n_;
}

void TableBackend::step_began() {
  step_t0_ = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void TableBackend::step_ended() {
  const double t = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  constexpr std::size_t kKeep = 20000;
  if (step_ms_.size() >= kKeep) step_ms_.erase(step_ms_.begin(), step_ms_.begin() + kKeep / 2);
  step_ms_.push_back(static_cast<float>((t - step_t0_) * 1e3));
  step_s_sum_ += t - step_t0_;
  ++step_n_;
}

Time TableBackend::at(double epoch_s) const { return from_seconds(std::max(0.0, epoch_s - origin_s_)); }

// The catalogue's figures and the iterations of a duration, as for a trace's job (workload/trace.h).
JobSpec TableBackend::resolve_spec(const JobSpec& s) const {
  Workload w;
  w.jobs = {s};
  w.raw = {RawTimes{}};
  w.model_qualifier = {""};
  ResolveOptions ro;
  ro.seed = opt_.seed;
  resolve_workload(w, ModelCatalogue::builtin(), spec_, law_resolve_options(ro), nullptr);
  return w.jobs.at(0);
}

namespace {
const char* const kDefaultModel = "resnet50";
}  // namespace

JobSpec TableBackend::hinted_spec(const JobHints& h, std::int64_t id, const std::string& origin, double submit_s,
                                  int gpus, const std::string& user, const std::string& job_name) const {
  JobSpec s;
  s.name = h.name.empty() ? std::to_string(id) : h.name;
  s.file = origin;
  s.submit = at(submit_s);
  s.num_gpus = gpus;
  s.model = h.model.empty() ? kDefaultModel : h.model;
  s.user = h.user.empty() ? user : h.user;
  s.recurrence_key = !h.key.empty() ? h.key : s.user + "/" + job_name + "/" + std::to_string(gpus);
  s.tp = h.tp;
  s.pp = h.pp;
  if (h.iterations) s.iterations = *h.iterations;
  else s.duration_s = h.duration_s ? *h.duration_s : opt_.default_duration_s;
  return s;
}

JobSpec TableBackend::spec_from_hints(JobHints& h, std::int64_t id, const std::string& origin, double submit_s,
                                      int gpus, const std::string& user, const std::string& job_name) const {
  JobSpec s = hinted_spec(h, id, origin, submit_s, gpus, user, job_name);
  try {
    return resolve_spec(s);
  } catch (const InputError& e) {
    if (h.model.empty() && s.tp == 1 && s.pp == 1) throw;  // nothing of the user's to drop: cannot run
    h.errors.push_back(std::string("model/tp/pp: ") + e.what());
    log("job " + std::to_string(id) + ": hint ignored: " + e.what());
    s.model = kDefaultModel;
    s.tp = s.pp = 1;
    return resolve_spec(s);
  }
}

std::vector<int> TableBackend::split_counts() const {
  std::vector<int> split_on(spec_.servers.size(), 0);
  for (const auto& l : live_)
    if ((l.status == "running" || l.status == "starting") && l.nodes.size() > 1)
      for (const auto& n : l.nodes) ++split_on[node_index_.at(n)];
  return split_on;
}

double TableBackend::slowdown_of(JobId id, const std::vector<GpuRef>& gpus, const std::vector<int>& split_on) const {
  const double t = iteration_time_s(specs_[id], spec_, span_of(gpus), [&](int srv) { return std::max(1, split_on[srv]); });
  const double ideal = states_[id].ideal_iter_time;
  return ideal > 0 ? t / ideal : 1.0;
}

void TableBackend::stop(std::size_t i, double end_s, const char* next, const std::string& reason) {
  LiveJob& l = live_[i];
  if (l.status == "running" && l.started_s >= 0) {
    record_run(i, end_s, reason);
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

void TableBackend::record_run(std::size_t i, double end_s, const std::string& reason) {
  run_so_far(i, end_s, now_s_, reason, live_[i].runs);
}

void TableBackend::run_so_far(std::size_t i, double end_s, double noticed_s, const std::string& reason,
                              std::vector<LiveRun>& out) const {
  const LiveJob& l = live_[i];
  LiveRun r{l.started_s, std::max(l.started_s, end_s), l.decided_s, noticed_s, {}, reason};
  for (const auto& g : l.gpus) {
    const std::string& n = node_names_.at(g.server);
    auto it = std::find_if(r.gpus.begin(), r.gpus.end(), [&](const auto& x) { return x.first == n; });
    if (it == r.gpus.end()) r.gpus.push_back({n, 1});
    else ++it->second;
  }
  if (l.gpus.empty())
    for (const auto& n : l.nodes) r.gpus.push_back({n, specs_[i].num_gpus / static_cast<int>(std::max<std::size_t>(1, l.nodes.size()))});
  out.push_back(std::move(r));
}

// The views: what the simulator's engine would show the policy at this instant. Returns the unfinished jobs in
// submit order; counts the queued and running ones.
std::vector<JobId> TableBackend::refresh_views(double now_s, int& queued, int& running) {
  std::vector<JobId> order;
  for (std::size_t i = 0; i < live_.size(); ++i) {
    LiveJob& l = live_[i];
    if (l.ended()) continue;
    if (l.status == "queued" && !l.blocked.empty()) {  // waiting on something the policy cannot change
      ++queued;
      continue;
    }
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
    // A hint is checked against what happens: a job that has run twice its hinted length (and at least a minute
    // past it: restarts and slow nodes overrun a true hint a little) is re-keyed from its run time (expected to
    // run as long again), so a false short hint cannot keep it from being preempted for long.
    const double done = held / ideal, hinted_s = specs_[i].iterations * ideal;
    if (held > std::max(2 * hinted_s, hinted_s + 60)) {
      if (!l.overran) {
        l.overran = true;
        ++hint_overruns_;
        log("job " + std::to_string(l.manager_id) + ": has run " + fmt::format("{:.0f}", held) +
            " s, past twice its hinted " + fmt::format("{:.0f}", hinted_s) +
            " s; its remaining time is now estimated from its run time");
      }
      st.remaining = done;
    } else {
      st.remaining = std::max(0.0, specs_[i].iterations - done);
    }
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

Observation TableBackend::observation(double now_s, const Cluster& book) {
  queued_ = running_ = 0;
  Observation o;
  o.now = at(now_s);
  o.cluster = &book;
  for (JobId i : refresh_views(now_s, queued_, running_)) o.active.push_back(&states_[i]);
  o.queued = 0;  // offered to the policy (a blocked job counts in queued_, for status and the series, not here)
  for (const JobState* st : o.active) o.queued += st->status == JobStatus::Queued;
  o.running = running_;
  return o;
}

JobState& TableBackend::add_job(JobSpec r, LiveJob l) {
  r.id = static_cast<JobId>(specs_.size());
  specs_.push_back(std::move(r));
  JobState& st = states_.emplace_back();
  st.spec = &specs_.back();
  st.status = JobStatus::Queued;
  st.queued_since = st.spec->submit;
  st.remaining = st.spec->iterations;
  st.ideal_iter_time = ideal_iteration_time_s(*st.spec, spec_);
  st.arrival_s = to_seconds(st.spec->submit);
  by_manager_id_[l.manager_id] = st.spec->id;
  live_.push_back(std::move(l));
  return st;
}

namespace {
// `text` written to `path` (appended, or the file replaced) and fsync'd; any failure (ENOSPC, EROFS, EIO) is a
// StateWriteError naming the file and the call. A failed append is cut back to where it began (a torn last line,
// should the cut fail too, is skipped when the journal is read back).
void write_durably(const fs::path& path, const std::string& text, bool append) {
  const auto fail = [&](const char* call, int err) {
    throw StateWriteError("cannot write the state file " + path.string() + ": " + call + ": " + std::strerror(err));
  };
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
  if (fd < 0) fail("open", errno);
  const off_t before = append ? ::lseek(fd, 0, SEEK_END) : 0;
  const auto give_up = [&](const char* call) {
    const int err = errno;
    if (append && before >= 0 && ::ftruncate(fd, before) != 0) {
    }
    ::close(fd);
    fail(call, err);
  };
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) give_up("write");
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) give_up("fsync");
  if (::close(fd) != 0) fail("close", errno);
}
}  // namespace

json TableBackend::job_json(std::size_t i) const {
  const LiveJob& l = live_[i];
  const JobSpec& s = specs_[i];
  json g = json::array();
  for (const auto& x : l.gpus) g.push_back({x.server, x.gpu});
  json runs = json::array();
  for (const auto& r : l.runs)
    runs.push_back({{"start_s", r.start_s}, {"end_s", r.end_s}, {"decided_s", r.decided_s}, {"noticed_s", r.noticed_s},
                    {"gpus", r.gpus}, {"end_reason", r.end_reason}});
  return {{"id", i}, {"manager_id", l.manager_id}, {"name", s.name}, {"model", s.model}, {"num_gpus", s.num_gpus},
          {"iterations", s.iterations}, {"user", s.user}, {"key", s.recurrence_key}, {"tp", s.tp},
          {"pp", s.pp}, {"submit_s", l.submit_s}, {"status", l.status}, {"manager_state", l.manager_state},
          {"completed", completed(l)},
          {"nodes", l.nodes}, {"gpus", g}, {"started_s", l.started_s}, {"decided_s", l.decided_s},
          {"adopted_s", l.adopted_s}, {"first_start_s", l.first_start_s}, {"end_s", l.end_s},
          {"run_s", l.run_s}, {"preemptions", l.preemptions}, {"hint_errors", l.hint_errors},
          {"per_node", l.per_node}, {"cpus", l.cpus}, {"mem_mb", l.mem_mb}, {"runs", runs},
          {"why", l.why}, {"blocked", l.blocked}, {"start_timeouts", l.start_timeouts},
          {"retry_after_s", l.retry_after_s}, {"overran", l.overran}};
}

void TableBackend::journal_ended() const {
  std::string text;
  std::vector<std::size_t> now_journaled;
  for (std::size_t i = 0; i < live_.size(); ++i)
    if (live_[i].ended() && !journaled_.count(i)) {
      text += job_json(i).dump() + "\n";
      now_journaled.push_back(i);
    }
  if (text.empty()) return;
  state_failing_ = true;
  write_durably(fs::path(opt_.state_dir) / "ended.jsonl", text, true);
  journaled_.insert(now_journaled.begin(), now_journaled.end());
}

void TableBackend::save() const {
  json js;
  js["partition"] = opt_.partition;
  js["policy"] = opt_.policy;
  js["origin_s"] = origin_s_;
  js["steps"] = steps_;
  js["preemptions"] = preemptions_;
  // Ended jobs go to the append-only journal <state>/ended.jsonl (once each, fsync'd before state.json stops
  // listing them); state.json lists the live ones only, so its size and the time to write it each step do not
  // grow with the daemon's history (docs/slurm.md "At scale").
  journal_ended();
  json jobs = json::array();
  int ended = 0, not_completed = 0, refused_count = 0;
  json refused = json::array();
  for (std::size_t i = 0; i < live_.size(); ++i) {
    const LiveJob& l = live_[i];
    if (l.ended()) {
      ended += l.status == "finished";
      not_completed += l.status == "finished" && !completed(l);
      refused_count += l.status == "unschedulable";
      if (l.status == "unschedulable")
        refused.push_back({{"manager_id", l.manager_id}, {"name", specs_[i].name}, {"num_gpus", specs_[i].num_gpus},
                           {"why", l.why}, {"status", l.status}});
      continue;
    }
    jobs.push_back(job_json(i));
  }
  // the latest refusals, for `ringmaster status` (the journal and jobs.csv keep them all)
  constexpr std::size_t kRefusedShown = 20;
  if (refused.size() > kRefusedShown) refused.erase(refused.begin(), refused.end() - kRefusedShown);
  js["ended_jobs"] = {{"count", ended}, {"not_completed", not_completed}, {"refused_count", refused_count},
                      {"refused", refused},
                      {"journal", "ended.jsonl"}};
  js["jobs"] = jobs;
  save_extra(js);
  // The latest decision latencies only: the file is rewritten every step, so it must not grow with uptime.
  // The latest 2,000 of each (`ringmaster status`'s quantiles): a bounded file, rewritten each step.
  constexpr std::size_t kKeep = 2000;
  const auto latest = [](const std::vector<float>& v) {
    return v.size() <= kKeep ? v : std::vector<float>(v.end() - kKeep, v.end());
  };
  js["decision_us"] = latest(decision_us_);
  js["step_ms"] = latest(step_ms_);
  // What `ringmaster status` and the operator read: this step's figures.
  js["status"] = {{"backend", name()},
                  {"cluster", spec_.name},
                  {"gpus", spec_.total_gpus()},
                  {"nodes", node_names_},
                  {"last_step_s", now_s_},
                  {"pid", static_cast<long>(::getpid())},
                  {"paused", paused_},
                  {"node_states", node_states_},
                  {"gpus_busy", series_.empty() ? 0 : series_.back().busy_gpus},
                  {"queued", queued_},
                  {"running", running_}};
  const fs::path dir(opt_.state_dir), tmp = dir / "state.json.tmp", dst = dir / "state.json",
                 prev = dir / "state.prev.json";
  // Written and flushed to the disk before it replaces the old one; any failure (ENOSPC, EROFS, EIO) is a
  // StateWriteError: the loop pauses decisions until a write succeeds, and the old state.json stays whole.
  const std::string text = js.dump(1) + "\n";
  state_failing_ = true;  // until this write is in place
  write_durably(tmp, text, false);
  // The state it replaces (read back and checked when this daemon started, or written by it a step ago) stays as
  // the last good copy; then the new one takes its place, atomically on one file system: a reader sees the old or
  // the new state, never half. A crash between the two renames leaves state.prev.json, which load() falls back to.
  std::error_code ec;
  if (fs::exists(dst)) fs::rename(dst, prev, ec);
  fs::rename(tmp, dst, ec);
  if (ec) throw StateWriteError("cannot put " + tmp.string() + " in place: " + ec.message());
  state_failing_ = false;
}

namespace {
json read_state(const fs::path& p) {
  try {
    std::ifstream f(p);
    json js = json::parse(f);
    if (!js.is_object() || !js.contains("jobs") || !js.at("jobs").is_array()) throw std::runtime_error("no `jobs` list");
    return js;
  } catch (const std::exception& e) {
    throw InputError(p.string(), 0, "", std::string("unreadable state file: ") + e.what());
  }
}
}  // namespace

void TableBackend::load_job(const json& jj) {
    JobSpec s;
    // The manager's id and state; a state file written before issue 42 named them slurm_id and slurm_state.
    const std::int64_t sid = jj.contains("manager_id") ? jj.at("manager_id").get<std::int64_t>()
                                                       : jj.at("slurm_id").get<std::int64_t>();
    s.name = jj.value("name", std::to_string(sid));
    s.file = name() + " job " + std::to_string(sid);
    s.model = jj.at("model").get<std::string>();
    s.num_gpus = jj.at("num_gpus").get<int>();
    s.iterations = jj.at("iterations").get<double>();
    s.user = jj.value("user", "");
    s.recurrence_key = jj.value("key", "");
    s.tp = jj.value("tp", 1);
    s.pp = jj.value("pp", 1);
    const double submit_s = jj.at("submit_s").get<double>();
    s.submit = at(submit_s);
    LiveJob l;
    l.manager_id = sid;
    l.status = jj.at("status").get<std::string>();
    l.manager_state = jj.value("manager_state", jj.value("slurm_state", ""));
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
                        r.value("noticed_s", -1.0), r.at("gpus").get<std::vector<std::pair<std::string, int>>>(),
                        r.value("end_reason", std::string())});
    l.why = jj.value("why", "");
    l.blocked = jj.value("blocked", "");
    l.start_timeouts = jj.value("start_timeouts", 0);
    l.retry_after_s = jj.value("retry_after_s", -1.0);
    l.overran = jj.value("overran", false);
    const bool finished = l.ended();
    const double end_s = l.end_s;
    JobSpec r = s;
    if (l.status != "unschedulable") r = resolve_spec(s);  // an unschedulable one would not resolve: kept as read
    JobState& st = add_job(r, std::move(l));
    if (finished) {
      st.status = JobStatus::Finished;
      st.finish = at(end_s);
    }
}

bool TableBackend::load() {
  const fs::path dir(opt_.state_dir), p = dir / "state.json", prev = dir / "state.prev.json";
  json js;
  if (fs::exists(p)) {
    try {
      js = read_state(p);
    } catch (const InputError& e) {
      if (!fs::exists(prev)) throw InputError(p.string(), 0, "", std::string(e.what()) + " (and no last good copy " +
                                                                     prev.filename().string() + "; `serve --recover` rebuilds the books from the cluster manager)");
      warn(std::string(e.what()) + "; using the last good copy " + prev.string());
      js = read_state(prev);
    }
  } else if (fs::exists(prev)) {
    warn(p.string() + " is missing; using the last good copy " + prev.string());
    js = read_state(prev);
  } else {
    // No state: a journal left from a lost state would mix its ids with the new run's; set it aside.
    const fs::path journal = dir / "ended.jsonl";
    if (fs::exists(journal)) {
      const fs::path aside = dir / ("ended.before-" + std::to_string(static_cast<long long>(wall_now())) + ".jsonl");
      std::error_code ec;
      fs::rename(journal, aside, ec);
      warn("no state file, but a journal of ended jobs from an earlier run: set aside as " + aside.string());
    }
    return false;
  }
  const std::string part = js.value("partition", "");
  if (part != opt_.partition)
    throw InputError(p.string(), 0, "partition",
                     "this state belongs to partition '" + part + "', not '" + opt_.partition + "'");
  origin_s_ = js.value("origin_s", -1.0);
  steps_ = js.value("steps", std::int64_t{0});
  preemptions_ = js.value("preemptions", std::int64_t{0});
  for (const auto& x : js.value("decision_us", json::array())) decision_us_.push_back(x.get<float>());
  for (const auto& x : js.value("step_ms", json::array())) step_ms_.push_back(x.get<float>());
  load_extra(js);
  // The jobs by id (index): state.json's live ones and the journal's ended ones (a job in both, when a crash
  // came between the journal's append and the state's rename, is the journal's); a state file from before the
  // journal lists every job, by position.
  std::map<std::size_t, json> by_id;
  std::size_t pos = 0;
  for (const auto& jj : js.at("jobs")) {
    by_id[jj.contains("id") ? jj.at("id").get<std::size_t>() : pos] = jj;
    ++pos;
  }
  const fs::path journal = dir / "ended.jsonl";
  if (fs::exists(journal)) {
    std::ifstream f(journal);
    std::string line;
    long ln = 0;
    std::vector<std::string> lines;
    while (std::getline(f, line)) lines.push_back(line);
    for (const auto& l : lines) {
      ++ln;
      if (l.empty()) continue;
      json jj;
      try {
        jj = json::parse(l);
        if (!jj.is_object() || !jj.contains("id")) throw std::runtime_error("no `id`");
      } catch (const std::exception& e) {
        if (static_cast<std::size_t>(ln) == lines.size()) {  // torn by a crash mid-append: its job is in state.json
          warn(journal.string() + ":" + std::to_string(ln) + ": a torn last line, skipped (" + e.what() + ")");
          continue;
        }
        throw InputError(journal.string(), ln, "", std::string("unreadable journal line: ") + e.what());
      }
      const std::size_t id = jj.at("id").get<std::size_t>();
      by_id[id] = jj;
      journaled_.insert(id);
    }
  }
  std::size_t expect = 0;
  for (const auto& [id, jj] : by_id) {
    if (id != expect)
      throw InputError(p.string(), 0, "jobs", "job " + std::to_string(expect) + " is in neither state.json nor ended.jsonl");
    load_job(jj);
    ++expect;
  }
  return true;
}

std::string TableBackend::metrics_text(bool manager_up) const {
  std::map<std::string, int> by_status = {{"queued", 0},   {"starting", 0}, {"running", 0},
                                          {"finished", 0}, {"failed", 0},   {"unschedulable", 0}};
  for (const auto& l : live_)
    ++by_status[l.status == "finished" && !l.manager_state.empty() && !completed_state(l.manager_state) ? "failed" : l.status];
  std::string t;
  const auto metric = [&](const std::string& name, const char* type, const std::string& help) {
    t += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  };
  const auto num = [](double v) { return fmt::format("{:.9g}", v); };
  metric("ringmaster_manager_up", "gauge", "1 if the last step reached the cluster manager");
  t += "ringmaster_manager_up " + std::string(manager_up ? "1" : "0") + "\n";
  metric("ringmaster_partition_ok", "gauge", "1 if the partition is as at start (0: nothing is released)");
  t += "ringmaster_partition_ok " + std::string(paused_.empty() ? "1" : "0") + "\n";
  metric("ringmaster_jobs", "gauge", "adopted jobs by status");
  for (const auto& [k, n] : by_status) t += "ringmaster_jobs{status=\"" + k + "\"} " + std::to_string(n) + "\n";
  metric("ringmaster_gpus", "gauge", "GPUs of the partition");
  t += "ringmaster_gpus " + std::to_string(spec_.total_gpus()) + "\n";
  metric("ringmaster_gpus_busy", "gauge", "GPUs held by any job at the last step");
  t += "ringmaster_gpus_busy " + std::to_string(series_.empty() ? 0 : series_.back().busy_gpus) + "\n";
  metric("ringmaster_steps_total", "counter", "scheduling steps");
  t += "ringmaster_steps_total " + std::to_string(steps_) + "\n";
  metric("ringmaster_preemptions_total", "counter", "preemptions the policy made");
  t += "ringmaster_preemptions_total " + std::to_string(preemptions_) + "\n";
  metric("ringmaster_last_step_timestamp_seconds", "gauge", "epoch seconds of the last step");
  t += "ringmaster_last_step_timestamp_seconds " + fmt::format("{:.3f}", now_s_) + "\n";
  metric("ringmaster_nodes", "gauge", "the partition's nodes by state at the last step (up, down, drain)");
  {
    std::map<std::string, int> by = {{"up", 0}, {"down", 0}, {"drain", 0}};
    for (const auto& [n, st] : node_states_) ++by[node_class(st)];
    for (const auto& [k, n] : by) t += "ringmaster_nodes{state=\"" + k + "\"} " + std::to_string(n) + "\n";
  }
  metric("ringmaster_refusals_total", "counter", "jobs refused as never able to run here (AdminComment set)");
  t += "ringmaster_refusals_total " + std::to_string(refusals_) + "\n";
  metric("ringmaster_start_timeouts_total", "counter", "released jobs the manager did not start in time, held again");
  t += "ringmaster_start_timeouts_total " + std::to_string(start_timeouts_) + "\n";
  metric("ringmaster_hint_overruns_total", "counter", "jobs that ran past their hinted duration (then re-keyed)");
  t += "ringmaster_hint_overruns_total " + std::to_string(hint_overruns_) + "\n";
  metric("ringmaster_preemption_failures_total", "counter", "preemptions the manager refused");
  t += "ringmaster_preemption_failures_total " + std::to_string(preempt_failures_) + "\n";
  metric("ringmaster_state_writable", "gauge", "1 if the last step's state was written (0: no decisions)");
  t += "ringmaster_state_writable " + std::string(state_failing_ ? "0" : "1") + "\n";
  // Prometheus summaries: quantiles over the latest observations (NaN when there are none), _sum and _count
  // cumulative since the daemon started (what rate() needs).
  const auto summary = [&](const std::string& name, const std::string& help, const std::vector<float>& v, double k,
                           double sum, std::int64_t count) {
    metric(name, "summary", help);
    std::vector<double> d(v.begin(), v.end());
    for (const double q : {0.5, 0.99})
      t += name + "{quantile=\"" + num(q) + "\"} " + (d.empty() ? std::string("NaN") : num(quantile(d, q) * k)) + "\n";
    t += name + "_sum " + num(sum) + "\n" + name + "_count " + std::to_string(count) + "\n";
  };
  summary("ringmaster_step_seconds", "one step: observe, decide, apply, persist (quantiles: the latest steps)", step_ms_,
          1e-3, step_s_sum_, step_n_);
  summary("ringmaster_decision_seconds", "the policy's decision time (quantiles: the latest decisions)", decision_us_,
          1e-6, decision_s_sum_, decision_n_);
  return t;
}

std::string node_class(const std::string& state) {
  std::string s = state;
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (s.find("DRAIN") != std::string::npos) return "drain";
  for (const char* bad : {"DOWN", "FAIL", "NOT_RESPONDING", "INVAL", "FUTURE", "UNKNOWN"})
    if (s.find(bad) != std::string::npos) return "down";
  return "up";
}

void TableBackend::write_outputs(const std::string& dir, const std::string& scheduler_name,
                                 const OutputScope* scope) const {
  RunRecord rec;
  std::vector<Unschedulable> unsched;
  if (scope) unsched = scope->not_submitted;
  const auto ours = [&](std::size_t i) { return !scope || !scope->own || scope->own(live_[i]); };
  std::int64_t foreign = 0;
  for (std::size_t i = 0; i < live_.size(); ++i) {
    const LiveJob& l = live_[i];
    if (!ours(i)) {
      ++foreign;
      continue;
    }
    if (l.status == "unschedulable") {  // refused (jobs.csv `unschedulable`, summary.json `unschedulable`)
      unsched.push_back({specs_[i], l.why, l.manager_state});
      continue;
    }
    JobRecord r;
    r.spec = &specs_[i];
    r.first_start = l.first_start_s >= 0 ? at(l.first_start_s) : kNever;
    r.finish = l.status == "finished" ? at(l.end_s) : kNever;
    r.run_us = from_seconds(l.run_s);
    r.preemptions = l.preemptions;
    rec.jobs.push_back(r);
    rec.manager_states.push_back(l.status == "finished" ? l.manager_state : "");
    rec.busy_gpu_us += from_seconds(l.run_s * specs_[i].num_gpus);
  }
  rec.series = series_;
  rec.total_gpus = spec_.total_gpus();
  rec.events = steps_;
  rec.preemptions = preemptions_;
  rec.decision_us = decision_us_;
  std::int64_t failed = 0;
  for (std::size_t i = 0; i < live_.size(); ++i)
    failed += ours(i) && live_[i].status == "finished" && !completed_state(live_[i].manager_state);
  rec.extra = {{"live_steps", static_cast<double>(steps_)}, {"jobs_not_completed", static_cast<double>(failed)}};
  if (scope) rec.extra.push_back({"foreign_jobs", static_cast<double>(foreign)});
  if (!step_ms_.empty()) {  // one scheduling step: observe, decide, apply, persist
    std::vector<double> v(step_ms_.begin(), step_ms_.end());
    rec.timing = {{"step_p50_ms", quantile(v, 0.5)}, {"step_p99_ms", quantile(v, 0.99)}, {"step_max_ms", quantile(v, 1.0)}};
  }
  const Summary sum = summarize(rec, unsched.size());
  fs::create_directories(dir);
  std::ofstream runs(fs::path(dir) / "runs.csv");  // every stretch a job held GPUs, per node (times from time 0)
  // end_reason: why that stretch ended (LiveRun::end_reason); a job still holding GPUs has a last row `running`
  // that ends at the last step.
  // slurm_id: the manager's job id, under the column's documented name (docs/slurm.md).
  runs << "slurm_id,end_reason,start_s,end_s,node,gpus,job_id,released_s,noticed_s\n";
  const auto row = [&](std::size_t i, const LiveRun& r) {
    for (const auto& [node, k] : r.gpus)
      runs << live_[i].manager_id << "," << r.end_reason << "," << r.start_s - origin_s_ << "," << r.end_s - origin_s_
           << "," << node << "," << k << "," << specs_[i].name << ","
           << (r.decided_s >= 0 ? r.decided_s - origin_s_ : -1) << ","
           << (r.noticed_s >= 0 ? r.noticed_s - origin_s_ : -1) << "\n";
  };
  for (std::size_t i = 0; i < live_.size(); ++i) {
    if (!ours(i)) continue;
    for (const auto& r : live_[i].runs) row(i, r);
    if (live_[i].status == "running" && live_[i].started_s >= 0) {
      std::vector<LiveRun> now;
      run_so_far(i, now_s_, -1, "running", now);
      row(i, now.front());
    }
  }
  rm::write_outputs(dir, rec, unsched, sum,
                    RunInfo{.policy = opt_.policy, .scheduler = scheduler_name, .cluster = spec_.name,
                            .trace = name() + ":" + opt_.partition, .exec = name(), .seed = opt_.seed, .wall_s = 0});
}

}  // namespace rm::live
