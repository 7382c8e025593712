#include "live/fake/fake_backend.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cluster/cluster_config.h"
#include "core/error.h"
#include "exec/comm_model.h"
#include "live/hints.h"

namespace rm::live {

// The fake cluster's own states. It names them as Slurm does, by choice: a fake or sim run's outputs (jobs.csv's
// state column, runs.csv's end_reason) then compare line for line with a Slurm run's (experiments/slurm-fidelity).
// The core reads none of them: completed_state below says which is a success.
const std::string kWaiting = "PENDING", kRunning = "RUNNING", kDone = "COMPLETED";

bool FakeBackend::completed_state(const std::string& state) const { return state == kDone; }

FakeBackend::FakeBackend(ServeOptions opt, Clock clock, bool rate_law)
    : TableBackend(std::move(opt)), clock_(std::move(clock)), rate_law_(rate_law) {}

void FakeBackend::save_extra(nlohmann::json& js) const {
  if (rate_law_) js["work_done_s"] = done_;
}

void FakeBackend::load_extra(const nlohmann::json& js) {
  if (rate_law_) done_ = js.value("work_done_s", std::vector<double>{});
}

void FakeBackend::connect(double now_s) {
  spec_ = load_cluster(opt_.cluster.empty() ? "tiny" : opt_.cluster);
  node_names_.clear();
  node_index_.clear();
  for (std::size_t s = 0; s < spec_.servers.size(); ++s) {
    node_names_.push_back("n" + std::to_string(s + 1));
    node_index_[node_names_.back()] = static_cast<int>(s);
  }
  if (!opt_.state_dir.empty()) {
    std::filesystem::create_directories(opt_.state_dir);
    load();
    for (const auto& l : live_) next_id_ = std::max(next_id_, l.manager_id + 1);
  }
  if (origin_s_ < 0) origin_s_ = now_s;
  done_.resize(live_.size(), 0.0);
  advanced_s_ = now_s;
  if (!opt_.state_dir.empty()) save();
}

std::string FakeBackend::describe() const {
  return "fake cluster " + spec_.name + ", " + std::to_string(spec_.servers.size()) + " nodes";
}

std::int64_t FakeBackend::add(const std::string& hints, int gpus, double submit_s, double actual_s) {
  pending_.push_back({next_id_, hints, gpus, submit_s, actual_s});
  return next_id_++;
}

std::int64_t FakeBackend::submit(const Submission& s) { return add(s.hints, s.gpus, clock_()); }

void FakeBackend::adopt(const Pending& p) {
  JobHints h = parse_hints(p.hints);
  for (const auto& e : h.errors) log("job " + std::to_string(p.id) + ": hint ignored: " + e);
  JobSpec r;
  try {  // the fake's jobs have no user or name of their own: the hints' (the job name defaults to the id)
    r = spec_from_hints(h, p.id, "fake job " + std::to_string(p.id), p.submit_s, p.gpus, "",
                        h.name.empty() ? std::to_string(p.id) : h.name);
  } catch (const InputError& e) {
    log("job " + std::to_string(p.id) + ": cannot be scheduled, dropped: " + e.what());
    return;
  }
  LiveJob l;
  l.manager_id = p.id;
  l.submit_s = p.submit_s;
  l.manager_state = kWaiting;
  l.adopted_s = now_s_;
  l.hint_errors = h.errors;
  add_job(r, std::move(l));
  actual_s_.resize(live_.size(), -1);
  actual_s_.back() = p.actual_s;
  log("job " + std::to_string(p.id) + ": adopted (" + std::to_string(r.num_gpus) + (r.num_gpus == 1 ? " GPU" : " GPUs") +
      ", model " + r.model + ")");
}

void FakeBackend::end_job(std::size_t i, double end_s) {
  LiveJob& l = live_[i];
  stop(i, end_s, "finished", kDone);
  l.manager_state = kDone;
  log("job " + std::to_string(l.manager_id) + ": " + kDone + " after " + std::to_string(end_s - l.submit_s) + " s");
}

void FakeBackend::finish_done(double now_s) {
  for (std::size_t i = 0; i < live_.size(); ++i) {
    const LiveJob& l = live_[i];
    if (l.status != "running") continue;
    const double work = i < actual_s_.size() && actual_s_[i] > 0 ? actual_s_[i]
                                                                 : specs_[i].iterations * states_[i].ideal_iter_time;
    const double end = l.started_s + std::max(0.0, work - l.run_s);
    if (end <= now_s) end_job(i, end);
  }
}

void FakeBackend::advance(double now_s) {
  done_.resize(live_.size(), 0.0);
  while (advanced_s_ < now_s) {
    // Each running job's slowdown now, and the first end at these rates.
    const std::vector<int> split = split_counts();
    std::vector<std::pair<std::size_t, double>> rates;  // job, slowdown
    double first = now_s;
    std::size_t who = live_.size();
    for (std::size_t i = 0; i < live_.size(); ++i) {
      if (live_[i].status != "running") continue;
      const double sd = slowdown_of(static_cast<JobId>(i), live_[i].gpus, split);
      rates.push_back({i, sd});
      const double end = advanced_s_ + std::max(0.0, specs_[i].iterations * states_[i].ideal_iter_time - done_[i]) * sd;
      if (end <= first && (who == live_.size() || end < first)) first = end, who = i;
    }
    for (const auto& [i, sd] : rates) done_[i] += (first - advanced_s_) / sd;
    advanced_s_ = first;
    if (who == live_.size()) break;  // nobody ends by now_s
    end_job(who, first);
  }
  advanced_s_ = now_s;
}

Observation FakeBackend::observe(double now_s) {
  if (fail_ > 0) {
    --fail_;
    throw BackendError("the fake cluster does not answer (scripted)");
  }
  ++steps_;
  now_s_ = now_s;
  if (rate_law_) advance(now_s);
  else finish_done(now_s);
  std::stable_sort(pending_.begin(), pending_.end(), [](const Pending& a, const Pending& b) { return a.id < b.id; });
  const auto arrived = std::stable_partition(pending_.begin(), pending_.end(), [&](const Pending& p) { return p.submit_s <= now_s; });
  for (auto it = pending_.begin(); it != arrived; ++it) adopt(*it);
  pending_.erase(pending_.begin(), arrived);
  book_ = std::make_unique<Cluster>(spec_);
  for (std::size_t i = 0; i < live_.size(); ++i)
    if (live_[i].status == "running") book_->allocate(static_cast<JobId>(i), live_[i].gpus);
  return observation(now_s, *book_);
}

void FakeBackend::apply(const Decisions& d, double now_s, float decision_us) {
  record_decision(decision_us);
  for (JobId id : d.preempt) {
    if (id < 0 || id >= static_cast<JobId>(live_.size()) || live_[id].status != "running") continue;
    book_->release(id, live_[id].gpus);
    stop(static_cast<std::size_t>(id), now_s, "queued", "preempted");
    ++live_[id].preemptions;
    ++preemptions_;
    log("job " + std::to_string(live_[id].manager_id) + ": preempted");
  }
  for (const auto& sd : d.start) {
    if (sd.job < 0 || sd.job >= static_cast<JobId>(live_.size()) || live_[sd.job].status != "queued") continue;
    LiveJob& l = live_[sd.job];
    try {
      book_->allocate(sd.job, sd.gpus);
    } catch (const InvariantError& e) {
      log("job " + std::to_string(l.manager_id) + ": start refused, " + e.what());
      continue;
    }
    l.status = "running";
    l.manager_state = kRunning;
    l.gpus = sd.gpus;
    l.nodes.clear();
    for (const auto& g : sd.gpus)
      if (std::find(l.nodes.begin(), l.nodes.end(), node_names_[g.server]) == l.nodes.end())
        l.nodes.push_back(node_names_[g.server]);
    l.started_s = l.decided_s = now_s;
    if (l.first_start_s < 0) l.first_start_s = now_s;
    log("job " + std::to_string(l.manager_id) + ": start (" + std::to_string(sd.gpus.size()) + " GPUs)");
  }
}

void FakeBackend::persist(double now_s) {
  series_.push_back({at(now_s), queued_, running_, book_->total_gpus() - book_->free_gpus()});
  if (!opt_.state_dir.empty()) save();
}

}  // namespace rm::live
