// Execution model `rate` (DESIGN.md section 3): a running job progresses at 1 / tau iterations per
// second, tau = compute + ring all-reduce over its placement; the bottleneck NIC is shared by the
// split jobs on it (counting mode "co-located split jobs", P2 eq. 6). tau is recomputed whenever a
// split job starts or stops on a server the job uses.
#include "models/rate/rate_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/error.h"
#include "exec/comm_model.h"
#include "exec/completion_heap.h"
#include "exec/perf_model.h"

namespace rm {
namespace {

class RateLawModel final : public RateModel {
 public:
  RateLawModel(const ClusterSpec& c, const yu::ModelParams* yu, bool trace_law, PerfModel* perf)
      : trace_law_(trace_law), cluster_(c), split_on_(c.servers.size()) {
    if (yu) yu_ = *yu, use_yu_ = true;
    if (!perf) own_perf_ = make_perf_model("analytic", "", c), perf = own_perf_.get();
    perf_ = perf;
    // Neighbours matter to Yu et al.'s law and to a law with contention; the trace law and measured tables
    // give a job the same time whoever shares its servers.
    track_ = use_yu_ || (!trace_law_ && perf_->contends());
    // Oversubscribed racks: the jobs crossing an uplink share it, under a law or a measured model alike.
    int racks = 0;
    for (const auto& s : c.servers) racks = std::max(racks, s.rack + 1);
    for (int r = 0; r < racks; ++r) racked_ = racked_ || rack_oversubscription(c, r) > 1;
    racked_ = racked_ && !use_yu_ && !trace_law_;
    cross_on_.resize(static_cast<std::size_t>(racks));
    track_ = track_ || racked_;
  }
  std::string name() const override { return use_yu_ ? "rate+yu2022" : trace_law_ ? "rate+trace" : "rate"; }

  void start(JobState& j, Time now) override {
    span_into(j.gpus, span_);
    j.servers = span_.servers;
    j.progress_time = now;
    if (track_ && j.split()) {
      const auto others = neighbours(j);
      for (JobState* o : others) bring_up_to_date(*o, now);
      for (int s : j.servers) split_on_[s].push_back(&j);
      for (int r : crossed_racks(j)) cross_on_[r].push_back(&j);
      for (JobState* o : others) rerate(*o, now);
    }
    rerate(j, now);
  }

  void stop(JobState& j, Time now) override {
    bring_up_to_date(j, now);
    ++j.epoch;
    if (track_ && j.split()) {
      const auto others = neighbours(j);
      for (JobState* o : others) bring_up_to_date(*o, now);
      for (int s : j.servers) {
        auto& v = split_on_[s];
        v.erase(std::find(v.begin(), v.end(), &j));
      }
      for (int r : crossed_racks(j)) {
        auto& v = cross_on_[r];
        v.erase(std::find(v.begin(), v.end(), &j));
      }
      for (JobState* o : others) rerate(*o, now);
    }
  }

  Time next_completion() override { return heap_.next(); }

  void complete_at(Time t, std::vector<JobState*>& completed) override { heap_.pop_at(t, completed); }

 private:
  int k_on(int s) const { return static_cast<int>(split_on_[s].size()); }

  void bring_up_to_date(JobState& j, Time now) {
    j.remaining = j.remaining_at(now);
    j.progress_time = now;
  }

  // The racks whose oversubscribed uplink j's all-reduce crosses (none unless it crosses one: comm_model.h).
  std::vector<int> crossed_racks(const JobState& j) const {
    std::vector<int> v;
    if (!racked_) return v;
    span_into(j.gpus, span_);
    if (!crosses_oversubscribed_racks(cluster_, span_)) return v;
    for (int s : j.servers)
      if (const int r = cluster_.servers[s].rack; std::find(v.begin(), v.end(), r) == v.end()) v.push_back(r);
    return v;
  }
  // The other split jobs sharing a server or a crossed rack uplink with j (each once).
  std::vector<JobState*> neighbours(const JobState& j) const {
    std::vector<JobState*> v;
    const auto add = [&](const std::vector<JobState*>& on) {
      for (JobState* o : on)
        if (o != &j && std::find(v.begin(), v.end(), o) == v.end()) v.push_back(o);
    };
    if (use_yu_ || perf_->contends())
      for (int s : j.servers) add(split_on_[s]);
    for (int r : crossed_racks(j)) add(cross_on_[r]);
    return v;
  }

  // Yu et al.'s eq. (6)-(8): p = most split jobs (j included) on any of j's servers.
  double yu_iteration_time_s(const JobState& j) const {
    int p = 0;
    if (j.split())
      for (int s : j.servers) p = std::max(p, k_on(s));
    const double tau0 = j.spec->compute_s / yu_.slot_s;
    const double rate = yu::per_slot(yu::tau_slots(tau0, p, static_cast<int>(j.servers.size()), yu_), yu_);
    if (!(rate > 0)) throw InputError(j.spec->file, j.spec->line, "compute", "an iteration longer than a slot never progresses");
    return yu_.slot_s / rate;  // seconds per iteration
  }

  // An elastic job at another width than it asked for: the job as it runs there (workload/job.h spec_at_width),
  // kept for the run (the performance models key their figures by the spec's fields, never its address).
  const JobSpec& at_width(const JobState& j) {
    const int n = static_cast<int>(j.gpus.size());
    if (!j.spec->elastic() || n == j.spec->num_gpus) return *j.spec;
    auto it = widths_.find({j.id(), n});
    if (it == widths_.end()) it = widths_.emplace(std::make_pair(j.id(), n), spec_at_width(*j.spec, n)).first;
    return it->second;
  }

  void rerate(JobState& j, Time now) {
    const JobSpec& spec = at_width(j);
    double iter = j.ideal_iter_time;
    if (use_yu_) {
      iter = yu_iteration_time_s(j);
    } else if (!trace_law_) {
      span_into(j.gpus, span_);
      iter = perf_->iteration_s(spec, span_, [this](int s) { return perf_->contends() ? k_on(s) : 0; },
                                [this](int r) { return static_cast<int>(cross_on_[r].size()); });
    }
    j.iter_time = iter / j.alloc_speed;
    // Seconds per iteration of the job as it asked (its remaining work's unit): an elastic job at another width does
    // work_per_iteration of one there; under the trace law its time scales linearly with its GPUs.
    if (&spec != j.spec)
      j.iter_time = trace_law_ ? j.iter_time * j.spec->num_gpus / spec.num_gpus
                               : j.iter_time / work_per_iteration(*j.spec, spec.num_gpus);
    if (!(j.iter_time > 0)) throw InvariantError("job " + j.spec->name + " has a non-positive iteration time");
    ++j.epoch;
    const Time from = std::max(now, j.stall_until);
    // A placement so slow that the job would end past the microsecond clock (a 0.001-Gb/s NIC under a split job)
    // is the inputs' problem, said with the job and its iteration time, not a work-conservation bug at saturation.
    if (!(j.remaining * j.iter_time < to_seconds(kTimeSaturation) / 2 - to_seconds(from)))
      throw InputError(j.spec->file, j.spec->line, "num_gpus",
                       fmt::format("job {} would run past the simulator's clock on its placement ({} servers): {:.6g} s "
                                   "per iteration for {:.6g} iterations left (check the cluster's nic_gbps and "
                                   "gpu_speed)", j.spec->name, span_of(j.gpus).servers.size(), j.iter_time, j.remaining));
    Time end = from + from_seconds_ceil(j.remaining * j.iter_time);
    if (use_yu_ && yu_.floor_slots) {  // whole slots: the job holds its GPUs to the end of the slot
      const Time slot = from_seconds(yu_.slot_s);
      end = (end - 1000 + slot - 1) / slot * slot;  // 1 ms slack for the microsecond rounding above
      end = std::max(end, from);
    }
    heap_.push(end, j);
  }

  bool trace_law_ = false;
  const ClusterSpec& cluster_;
  bool racked_ = false;  // some rack is oversubscribed
  std::vector<std::vector<JobState*>> cross_on_;  // per rack: the jobs crossing its uplink
  std::unique_ptr<PerfModel> own_perf_;
  PerfModel* perf_ = nullptr;
  bool track_ = true;
  yu::ModelParams yu_;
  bool use_yu_ = false;
  std::vector<std::vector<JobState*>> split_on_;
  CompletionHeap heap_;
  std::map<std::pair<JobId, int>, JobSpec> widths_;
  mutable Span span_;  // scratch: the placement being rated (span_into reuses its storage)
};

}  // namespace

std::unique_ptr<RateModel> make_rate_model(const ClusterSpec& cluster, const yu::ModelParams* yu2022,
                                                bool trace_law, PerfModel* perf) {
  return std::make_unique<RateLawModel>(cluster, yu2022, trace_law, perf);
}

}  // namespace rm
