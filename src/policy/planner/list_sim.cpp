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
  idle_ = static_cast<int>(gpu_server_.size());
  split_on_.assign(server_ids_.size(), 0);
  load.assign(gpu_server_.size(), 0.0);
  out_.resize(in.jobs.size());
}

void ListSim::start(const PJob& j, const std::vector<int>& gpus, double remaining) {
  Run r{j.id, remaining >= 0 ? remaining : j.F, 0, {}};
  for (int g : gpus) {
    if (holder_[g] >= 0) throw InvariantError("planner: GPU " + std::to_string(g) + " given to two jobs");
    holder_[g] = j.id;
    --idle_;
    if (std::find(r.servers.begin(), r.servers.end(), gpu_server_[g]) == r.servers.end())
      r.servers.push_back(gpu_server_[g]);
  }
  out_[j.id].start = clock_;
  out_[j.id].gpus = gpus;
  const bool split = r.servers.size() > 1;
  running_.push_back(std::move(r));
  if (split) {
    touched_.assign(server_ids_.size(), 0);
    for (int s : running_.back().servers) ++split_on_[s], touched_[s] = 1;
    rerate(touched_);
  }
  rate(running_.back());  // the new job itself, split or not
}

// Eq. (6)-(8): a job's rate depends on the split counts of its servers; only jobs on servers whose
// counts changed need a new rate.
void ListSim::rerate(const std::vector<char>& touched) {
  for (auto& r : running_) {
    bool hit = false;
    for (int s : r.servers) hit = hit || touched[s];
    if (hit) rate(r);
  }
}

void ListSim::rate(Run& r) {
  const PJob& j = in_.jobs[r.job];
  if (in_.law) {
    r.tau = in_.law(j, r.servers, split_on_);
    r.per = yu::per_slot(r.tau, mp_);
    return;
  }
  int p = 0;
  if (r.servers.size() > 1)
    for (int s : r.servers) p = std::max(p, split_on_[s]);
  r.tau = yu::tau_slots(j.tau0, p, static_cast<int>(r.servers.size()), mp_);
  r.per = yu::per_slot(r.tau, mp_);
}

void ListSim::advance() {
  if (running_.empty()) throw InvariantError("planner: advance with nothing running");
  // Time to the next completion under the current rates.
  double dt = std::numeric_limits<double>::infinity();
  for (const auto& r : running_) {
    const double rate = r.per;
    if (!(rate > 0)) throw InputError("--compat", 0, "yu2022", "an iteration longer than a slot never progresses");
    // Whole slots under floor_slots: a job finishes at the end of the slot in which it reaches F.
    dt = std::min(dt, mp_.floor_slots ? std::ceil(r.remaining / rate - 1e-9) : r.remaining / rate);
  }
  clock_ += dt;
  touched_.assign(server_ids_.size(), 0);
  bool any = false;  // a split job ended: the jobs on its servers speed up
  std::size_t kept = 0;
  for (std::size_t i = 0; i < running_.size(); ++i) {
    Run& r = running_[i];
    r.remaining -= dt * r.per;
    if (r.remaining <= 1e-9 * in_.jobs[r.job].F) {
      out_[r.job].finish = clock_;
      for (int g : out_[r.job].gpus) holder_[g] = -1;
      idle_ += static_cast<int>(out_[r.job].gpus.size());
      if (r.servers.size() > 1) {
        for (int s : r.servers) --split_on_[s], touched_[s] = 1;
        any = true;
      }
    } else {
      if (kept != i) running_[kept] = std::move(r);
      ++kept;
    }
  }
  running_.resize(kept);
  if (any) rerate(touched_);
}

void ListSim::finish_all() {
  while (!running_.empty()) advance();
}

Plan run_pass(const Instance& in, const yu::ModelParams& mp, const PlanOptions& opt, double theta,
              const std::function<const Pick&(const PJob&)>& pick_for) {
  ListSim sim(in, mp);
  std::vector<char> pre(in.jobs.size(), 0);
  for (const auto& r : in.running) {  // online re-plans: what already runs keeps its GPUs
    const PJob& j = in.jobs.at(r.job);
    sim.start(j, r.gpus, r.remaining);
    for (int g : r.gpus) sim.load[g] += r.remaining * j.tau0 / opt.u;
    pre[r.job] = 1;
  }
  std::vector<const PJob*> order;
  for (const auto& j : in.jobs)
    if (!pre[j.id]) order.push_back(&j);
  std::stable_sort(order.begin(), order.end(), [](const PJob* a, const PJob* b) { return a->G < b->G; });
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
