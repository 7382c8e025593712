#include "models/round/round_workloads.h"

#include <algorithm>

#include <cmath>
#include <fstream>

#include "core/error.h"
#include "workload/parse_util.h"
#include "workload/trace.h"

namespace rm::synergy {

// The one Synergy reader (workload/trace_synergy.cpp, as `validate` and the job-level engine read it), kept in
// file order, with each arrival exactly as written.
std::vector<JobInit> read_replay(const std::string& path, std::vector<std::string>* errors) {
  const Workload w = read_trace(path, "synergy", errors);
  if (errors && !errors->empty()) return {};
  std::vector<JobInit> out;
  out.reserve(w.jobs.size());
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    const JobSpec& j = w.jobs[i];
    JobInit ji;
    ji.id = std::stoll(j.name);
    ji.model = j.model;
    ji.arrival = w.raw[i].submit_s;
    ji.N = j.iterations;
    ji.g = j.num_gpus;
    ji.file = j.file;
    ji.line = j.line;
    out.push_back(std::move(ji));
  }
  return out;
}

namespace {

// The list is handed out by moves, from the back of a reversed copy that gives its memory back as it shrinks: the
// engine reads a replay up front, so the list and the engine's copies of its jobs are not all held at once.
class Replay : public JobSource {
 public:
  explicit Replay(std::vector<JobInit> j)
      : jobs_(std::move(j)), count_(static_cast<std::int64_t>(jobs_.size())),
        by_arrival_(std::is_sorted(jobs_.begin(), jobs_.end(),
                                   [](const JobInit& a, const JobInit& b) { return a.arrival < b.arrival; })) {
    std::reverse(jobs_.begin(), jobs_.end());
  }
  bool dynamic() const override { return false; }
  std::int64_t count() const override { return count_; }
  bool by_arrival() const override { return by_arrival_; }
  std::optional<JobInit> next() override {
    if (jobs_.empty()) return std::nullopt;
    std::optional<JobInit> out(std::move(jobs_.back()));
    jobs_.pop_back();
    if (jobs_.capacity() > 4096 && jobs_.size() < jobs_.capacity() / 2) jobs_.shrink_to_fit();
    return out;
  }

 private:
  std::vector<JobInit> jobs_;  // the rest of the list, last job first
  std::int64_t count_;
  bool by_arrival_;  // the engine takes a sorted list one job ahead of the arrivals
};

// Gavel's duration law (S.5.1 item 3): 60 * 10^U(3,4) s with probability 0.2, else 60 * 10^U(1.5,3).
double draw_duration(PyRandom& r) {
  const double x = r.random();
  const double u = x >= 0.8 ? r.uniform(3, 4) : r.uniform(1.5, 3);
  return 60 * std::pow(10.0, u);
}

// Poisson inter-arrival in whole seconds (S.10 item 5).
double draw_gap(PyRandom& r, double lambda) { return std::ceil(((-std::log(1.0 - r.random())) / lambda) * 60 * 60); }

// The class split (S.10 item 7): the task furthest below its target share, ties IMAGE < LANGUAGE < SPEECH,
// then that task's next model round-robin.
class ClassChooser {
 public:
  explicit ClassChooser(std::array<int, 3> split) : split_(split) {}
  std::string next() {
    std::array<double, 3> p{};
    if (n_ > 0)
      for (int x = 0; x < 3; ++x) p[x] = split_[x] / 100.0 - static_cast<double>(count_[x]) / static_cast<double>(n_);
    int best = 0;
    for (int x = 1; x < 3; ++x)
      if (p[x] > p[best]) best = x;
    ++count_[best];
    ++n_;
    const auto& zoo = ProfileSet::zoo(static_cast<Task>(best));
    return zoo[rr_[best]++ % zoo.size()];
  }

 private:
  std::array<int, 3> split_;
  std::array<long, 3> count_{};
  std::array<std::size_t, 3> rr_{};
  long n_ = 0;
};

class PhillyDerived : public JobSource {
 public:
  PhillyDerived(const GenParams& p, const ProfileSet& prof)
      : p_(p), prof_(prof), durations_(p.seed), run_(p.seed), classes_(p.split) {}
  bool dynamic() const override { return true; }
  std::optional<JobInit> next() override {
    JobInit j;
    j.id = k_;
    arrival_ += draw_gap(run_, p_.jobs_per_hour);
    j.arrival = arrival_;
    run_.randint(0, 9);  // drawn and ignored in the split mode (keeps the stream aligned)
    j.model = classes_.next();
    const std::size_t K = p_.job_list_gpus.size();
    const std::size_t slot = K == 0 ? static_cast<std::size_t>(k_) : static_cast<std::size_t>(k_) % K;
    while (D_.size() <= slot) D_.push_back(draw_duration(durations_));
    j.g = K == 0 ? 1 : p_.job_list_gpus[slot];
    j.N = std::trunc(D_[slot] / prof_.get(j.model).iter_time_s);
    j.file = "workload:synergy-philly";
    ++k_;
    return j;
  }

 private:
  GenParams p_;
  const ProfileSet& prof_;
  PyRandom durations_, run_;
  ClassChooser classes_;
  std::vector<double> D_;
  double arrival_ = 0;
  std::int64_t k_ = 0;
};

class Synthetic : public JobSource {
 public:
  Synthetic(const GenParams& p, const ProfileSet& prof) : p_(p), prof_(prof), r_(p.seed), classes_(p.split) {}
  bool dynamic() const override { return true; }
  std::optional<JobInit> next() override {
    JobInit j;
    j.id = k_++;
    arrival_ += draw_gap(r_, p_.jobs_per_hour);
    j.arrival = arrival_;
    const double D = draw_duration(r_);
    const double u = r_.uniform(0, 1);
    j.g = u >= 0.95 ? 8 : u >= 0.8 ? 4 : u >= 0.7 ? 2 : 1;
    r_.randint(0, 9);
    j.model = classes_.next();
    j.N = std::trunc(D / prof_.get(j.model).iter_time_s);
    j.file = "workload:synergy-synthetic";
    return j;
  }

 private:
  GenParams p_;
  const ProfileSet& prof_;
  PyRandom r_;
  ClassChooser classes_;
  double arrival_ = 0;
  std::int64_t k_ = 0;
};

}  // namespace

std::unique_ptr<JobSource> replay_source(std::vector<JobInit> jobs) { return std::make_unique<Replay>(std::move(jobs)); }

std::unique_ptr<JobSource> philly_derived_source(const GenParams& p, const ProfileSet& profiles) {
  if (!(p.jobs_per_hour > 0)) throw InputError("--load", 0, "", "jobs per hour must be > 0");
  if (p.split[0] < 0 || p.split[1] < 0 || p.split[2] < 0 || p.split[0] + p.split[1] + p.split[2] <= 0 ||
      p.split[0] + p.split[1] + p.split[2] > 100)
    throw InputError("--split", 0, "", "three non-negative percentages, sum in 1..100 (image,language,speech)");
  return std::make_unique<PhillyDerived>(p, profiles);
}

std::unique_ptr<JobSource> synthetic_source(const GenParams& p, const ProfileSet& profiles) {
  philly_derived_source(p, profiles);  // same checks
  return std::make_unique<Synthetic>(p, profiles);
}

std::vector<int> job_list_from(const std::vector<std::pair<double, int>>& duration_gpus, bool multigpu) {
  std::vector<int> out;
  const double lo = std::pow(10.0, 1.5) * 60, hi = std::pow(10.0, 4) * 60;
  for (const auto& [d, g] : duration_gpus) {
    if (!(d > lo && d < hi) || g <= 0) continue;
    if (!multigpu) {
      out.push_back(1);
    } else if (g <= 16) {
      out.push_back((g == 1 || g == 2 || g == 4 || g == 8 || g == 16) ? g : 1);
    }
  }
  return out;
}

}  // namespace rm::synergy
