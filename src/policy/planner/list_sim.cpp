#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "policy/planner/planner.h"

namespace rm::plan {

ListSim::ListSim(const Instance& in, const yu::ModelParams& mp) : in_(in), mp_(mp) {
  for (std::size_t s = 0; s < in.server_gpus.size(); ++s) {
    server_ids_.emplace_back();
    for (int k = 0; k < in.server_gpus[s]; ++k) {
      server_ids_.back().push_back(static_cast<int>(gpu_server_.size()));
      gpu_server_.push_back(static_cast<int>(s));
    }
  }
  holder_.assign(gpu_server_.size(), -1);
  load.assign(gpu_server_.size(), 0.0);
  out_.resize(in.jobs.size());
}

void ListSim::start(const PJob& j, const std::vector<int>& gpus) {
  for (int g : gpus) {
    if (holder_[g] >= 0) throw InvariantError("planner: GPU " + std::to_string(g) + " given to two jobs");
    holder_[g] = j.id;
  }
  out_[j.id].start = clock_;
  out_[j.id].gpus = gpus;
  running_.push_back({j.id, j.F, 0});
  rerate();
}

// Eq. (6)-(8) for every running job (its contention count depends on who else is split where).
void ListSim::rerate() {
  std::vector<std::vector<int>> sv(running_.size());
  std::vector<int> split_on(server_ids_.size(), 0);
  for (std::size_t i = 0; i < running_.size(); ++i) {
    for (int g : out_[running_[i].job].gpus)
      if (std::find(sv[i].begin(), sv[i].end(), gpu_server_[g]) == sv[i].end()) sv[i].push_back(gpu_server_[g]);
    if (sv[i].size() > 1)
      for (int s : sv[i]) ++split_on[s];
  }
  if (in_.law) {
    for (std::size_t i = 0; i < running_.size(); ++i)
      running_[i].tau = in_.law(in_.jobs[running_[i].job], sv[i], split_on);
    return;
  }
  const auto p = yu::contention_counts(sv, num_servers());
  for (std::size_t i = 0; i < running_.size(); ++i)
    running_[i].tau = yu::tau_slots(in_.jobs[running_[i].job].tau0, p[i], static_cast<int>(sv[i].size()), mp_);
}

void ListSim::advance() {
  if (running_.empty()) throw InvariantError("planner: advance with nothing running");
  // Time to the next completion under the current rates.
  double dt = std::numeric_limits<double>::infinity();
  for (const auto& r : running_) dt = std::min(dt, r.remaining * r.tau);
  clock_ += dt;
  std::vector<Run> left;
  for (auto& r : running_) {
    r.remaining -= dt / r.tau;
    if (r.remaining <= 1e-9 * in_.jobs[r.job].F) {
      out_[r.job].finish = clock_;
      for (int g : out_[r.job].gpus) holder_[g] = -1;
    } else {
      left.push_back(r);
    }
  }
  running_.swap(left);
  rerate();
}

void ListSim::finish_all() {
  while (!running_.empty()) advance();
}

Plan run_pass(const Instance& in, const yu::ModelParams& mp, const PlanOptions& opt, double theta,
              const std::function<const Pick&(const PJob&)>& pick_for) {
  std::vector<const PJob*> order;
  for (const auto& j : in.jobs) order.push_back(&j);
  std::stable_sort(order.begin(), order.end(), [](const PJob* a, const PJob* b) { return a->G < b->G; });
  ListSim sim(in, mp);
  Plan p;
  p.passes = 1;
  std::vector<int> gpus;
  for (const PJob* j : order) {
    const Pick& pick = pick_for(*j);
    while (true) {
      gpus.clear();
      if (pick(*j, theta, sim, gpus)) {
        if (static_cast<int>(gpus.size()) != j->G) throw InvariantError("planner: pick returned a wrong GPU count");
        sim.start(*j, gpus);
        for (int g : gpus) sim.load[g] += j->rho_hat / opt.u;
        break;
      }
      if (!sim.any_running()) {  // can never be placed under this cap
        p.ok = false;
        p.makespan = opt.horizon;
        return p;
      }
      sim.advance();
    }
  }
  sim.finish_all();
  p.ok = true;
  p.jobs = sim.result();
  double sum = 0;
  for (const auto& j : p.jobs) {
    p.makespan = std::max(p.makespan, j.finish);
    sum += j.finish;  // all jobs arrive at slot 0 (S12)
  }
  p.avg_jct = p.jobs.empty() ? 0 : sum / static_cast<double>(p.jobs.size());
  return p;
}

}  // namespace rm::plan
