// peers/sia/sia_gavel.h: GavelPolicy (S:gavel.py) with max_sum_throughput_perf (S:policies/max_sum_throughput.py:33-87,
// S:policies/policy.py get_base_constraints), line by line where it decides.
#include "peers/sia/sia_gavel.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <set>

#include "core/error.h"
#include "policy/pulp_cbc.h"

namespace rm::sia {
namespace {
int py_ceil(double x) { return static_cast<int>(std::ceil(x)); }
}  // namespace

SiaGavel::SiaGavel(SiaCluster cluster, long interval) : cl_(std::move(cluster)), interval_(interval) {
  const int types = static_cast<int>(cl_.types.size());
  sorted_.resize(static_cast<std::size_t>(types));
  std::iota(sorted_.begin(), sorted_.end(), 0);
  std::sort(sorted_.begin(), sorted_.end(), [&](int a, int b) { return cl_.types[static_cast<std::size_t>(a)] < cl_.types[static_cast<std::size_t>(b)]; });
  for (int t = 0; t < types; ++t) {
    spec_.push_back(cl_.nodes[static_cast<std::size_t>(t)] * cl_.per_node[static_cast<std::size_t>(t)]);
    // populate_valid_configs (S:gavel.py:40-72): the configurations of at most the cluster's nodes; the last one's
    // GPUs are the most a job can have (num_gpu) and give GPUs per node.
    std::pair<int, int> last{1, 1};
    for (const auto& c : configs_for(cl_.per_node[static_cast<std::size_t>(t)]))
      if (c.first <= cl_.nodes[static_cast<std::size_t>(t)]) last = c;
    last_config_nodes_.push_back(last.first);
    last_config_gpus_.push_back(last.second);
  }
  // register_worker_callback (S:gavel.py:74-96): worker ids by type in sorted name order.
  worker_offset_.assign(static_cast<std::size_t>(types), 0);
  int n = 0;
  for (int t : sorted_) worker_offset_[static_cast<std::size_t>(t)] = n, n += spec_[static_cast<std::size_t>(t)];
  cluster_time_.assign(static_cast<std::size_t>(types), 0.0);
}

// predict_throughput (S:gavel.py:515-546): iterations per second at the trace's GPUs and batch, packed on the type's
// nodes, from the type's measured step time, slowed by the calibration factor; 0.1 where the type is too small.
double SiaGavel::predict_throughput(const SJob& j, int t) const {
  const int sf = j.target_replicas;
  const int per = static_cast<int>(static_cast<double>(last_config_gpus_[static_cast<std::size_t>(t)]) /
                                   last_config_nodes_[static_cast<std::size_t>(t)]);
  if (sf > last_config_gpus_[static_cast<std::size_t>(t)]) return 1e-1;
  std::vector<int> placement;
  for (int left = sf; left > 0; left -= std::min(left, per)) placement.push_back(std::min(left, per));
  const PolluxApp& a = *j.apps[static_cast<std::size_t>(t)];
  const int local = py_ceil(static_cast<double>(j.target_batch) / sf - 1e-8);
  const int max_local = a.max_local_bsz_at(placement);
  int accum = py_ceil(static_cast<double>(local) / max_local - 1e-8) - 1;
  if (sf == 1) accum = std::max(1, accum);
  int atomic = py_ceil(static_cast<double>(local) / (accum + 1) - 1e-8);
  const int count = sf * (accum + 1);
  atomic = std::min(atomic, static_cast<int>(static_cast<double>(a.max_batch_size()) / count));
  const auto [step, sync] = a.throughput(placement, atomic);
  const double xput = 1 / (step + (step - sync) * accum);
  if (!(xput > 0)) throw InvariantError("sia gavel: " + j.spec->name + " has no positive throughput on " + cl_.types[static_cast<std::size_t>(t)]);
  return xput * j.calibration;
}

void SiaGavel::add_jobs(const std::vector<const SJob*>& active) {
  const int types = static_cast<int>(cl_.types.size());
  const double half = static_cast<double>(interval_) / 2;
  // add_jobs (S:gavel.py:111-123).
  {
    std::set<std::string> before(jobs_.begin(), jobs_.end());
    jobs_.clear();
    for (const SJob* j : active) {
      const std::string& name = j->spec->name;
      if (!before.count(name)) {
        job_time_[name].assign(static_cast<std::size_t>(types), half);
        priority_[name].assign(static_cast<std::size_t>(types), 0.0);
        for (int t = 0; t < types; ++t) cluster_time_[static_cast<std::size_t>(t)] += half;
      }
      jobs_.push_back(name);
    }
  }
}

std::map<std::string, std::vector<double>> SiaGavel::shares(const std::vector<const SJob*>& active, SiaRoundStats& st) {
  const int types = static_cast<int>(cl_.types.size());
  // compute_allocations: the program over jobs and types in sorted order (S:policies/policy.py flatten).
  std::vector<std::size_t> by_name(active.size());
  std::iota(by_name.begin(), by_name.end(), 0);
  std::sort(by_name.begin(), by_name.end(), [&](std::size_t a, std::size_t b) { return active[a]->spec->name < active[b]->spec->name; });
  const std::size_t m = active.size(), n = static_cast<std::size_t>(types);
  sia::LpModel lp;
  lp.maximize = true;
  lp.cols.resize(m * n);
  lp.obj.resize(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t k = 0; k < n; ++k) lp.obj[i * n + k] = predict_throughput(*active[by_name[i]], sorted_[k]);
  for (std::size_t x = 0; x < m * n; ++x) lp.cols[x].push_back({lp.add_row('L', 0.0), -1.0});  // x >= 0
  for (std::size_t k = 0; k < n; ++k) {  // sum_i scale_factor_i x_ik <= the type's GPUs
    const int r = lp.add_row('L', spec_[static_cast<std::size_t>(sorted_[k])]);
    for (std::size_t i = 0; i < m; ++i) lp.cols[i * n + k].push_back({r, static_cast<double>(active[by_name[i]]->target_replicas)});
  }
  for (std::size_t i = 0; i < m; ++i) {  // sum_k x_ik <= 1
    const int r = lp.add_row('L', 1.0);
    for (std::size_t k = 0; k < n; ++k) lp.cols[i * n + k].push_back({r, 1.0});
  }
  const auto t1 = std::chrono::steady_clock::now();
  const sia::LpResult sol = sia::solve_like_pulp(lp);
  st.solve_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
  std::map<std::string, std::vector<double>> alloc;  // x.value.round(5).clip(0, 1), by job and type (our order)
  double objective = 0;
  for (std::size_t i = 0; i < m; ++i) {
    auto& row = alloc[active[by_name[i]]->spec->name];
    row.assign(n, 0.0);
    for (std::size_t k = 0; k < n; ++k) {
      const double x = sol.x[i * n + k];
      objective += lp.obj[i * n + k] * x;
      double v = std::rint(x * 100000.0) / 100000.0;
      v = std::min(std::max(v, 0.0), 1.0);
      row[static_cast<std::size_t>(sorted_[k])] = v;
    }
  }
  st.rows = static_cast<int>(lp.sense.size());
  st.cols = static_cast<int>(lp.cols.size());
  st.objective = objective;
  return alloc;
}

std::vector<std::vector<std::pair<std::size_t, int>>> SiaGavel::pick(const std::vector<const SJob*>& active,
                                                                     std::map<std::string, std::vector<double>>& alloc) {
  const int types = static_cast<int>(cl_.types.size());
  // update_priorities (S:gavel.py:249-282): share over the fraction of time received; a new share 1e9 x.
  for (int t = 0; t < types; ++t) {
    for (const SJob* j : active) {
      const std::string& name = j->spec->name;
      const double ct = cluster_time_[static_cast<std::size_t>(t)];
      const double fraction = ct == 0 ? 0.0 : job_time_[name][static_cast<std::size_t>(t)] / ct;
      const double a = alloc[name][static_cast<std::size_t>(t)];
      double p = a * 1e9;
      if (a != 0.0 && fraction > 0.0) p = a / fraction;
      priority_[name][static_cast<std::size_t>(t)] = p;
    }
  }
  // schedule_jobs_on_workers_helper (S:gavel.py:284-330): (job, type) in descending (priority, deficit 0, share),
  // stable; each job once, where its GPUs still fit.
  struct QEntry {
    std::size_t job;
    int type;
    double prio, share;
  };
  std::vector<QEntry> queue;
  for (int t = 0; t < types; ++t)
    for (std::size_t a = 0; a < active.size(); ++a) {
      const std::string& name = active[a]->spec->name;
      queue.push_back({a, t, priority_[name][static_cast<std::size_t>(t)], alloc[name][static_cast<std::size_t>(t)]});
    }
  std::stable_sort(queue.begin(), queue.end(), [](const QEntry& x, const QEntry& y) {
    if (x.prio != y.prio) return x.prio > y.prio;
    return x.share > y.share;
  });
  std::vector<int> left = spec_;
  std::vector<char> done(active.size(), 0);
  std::vector<std::vector<std::pair<std::size_t, int>>> scheduled(static_cast<std::size_t>(types));
  for (const auto& e : queue) {
    if (left[static_cast<std::size_t>(e.type)] == 0 || done[e.job]) continue;
    const int sf = active[e.job]->target_replicas;
    if (sf > left[static_cast<std::size_t>(e.type)]) continue;
    left[static_cast<std::size_t>(e.type)] -= sf;
    done[e.job] = 1;
    scheduled[static_cast<std::size_t>(e.type)].push_back({e.job, sf});
  }
  return scheduled;
}

std::map<std::string, std::pair<int, std::vector<int>>> SiaGavel::assign(
    const std::vector<const SJob*>& active, std::vector<std::vector<std::pair<std::size_t, int>>>& scheduled) const {
  const int types = static_cast<int>(cl_.types.size());
  // schedule_jobs_on_workers (S:gavel.py:360-441): per type, the largest first; the previous workers kept where none
  // is taken yet; the others from per-server queues behind a pointer.
  std::map<std::string, std::pair<int, std::vector<int>>> next;
  for (int t = 0; t < types; ++t) {
    auto& sched = scheduled[static_cast<std::size_t>(t)];
    std::stable_sort(sched.begin(), sched.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
    const int per = cl_.per_node[static_cast<std::size_t>(t)];
    std::vector<std::vector<int>> workers(static_cast<std::size_t>(spec_[static_cast<std::size_t>(t)] / per));
    for (std::size_t s = 0; s < workers.size(); ++s)
      for (int g = 0; g < per; ++g) workers[s].push_back(worker_offset_[static_cast<std::size_t>(t)] + per * static_cast<int>(s) + g);
    std::set<int> assigned;
    std::size_t ptr = 0;
    std::vector<int> sfs;
    for (const auto& [a, sf] : sched)
      if (std::find(sfs.begin(), sfs.end(), sf) == sfs.end()) sfs.push_back(sf);
    std::sort(sfs.rbegin(), sfs.rend());
    for (int cur : sfs) {
      for (const auto& [a, sf] : sched) {
        if (sf != cur) continue;
        const std::string& name = active[a]->spec->name;
        const auto prev = current_.find(name);
        if (prev == current_.end() || prev->second.first != t) continue;
        bool free = true;
        for (int w : prev->second.second) free = free && !assigned.count(w);
        if (!free) continue;
        next[name] = prev->second;
        assigned.insert(prev->second.second.begin(), prev->second.second.end());
      }
      for (const auto& [a, sf] : sched) {
        if (sf != cur) continue;
        const std::string& name = active[a]->spec->name;
        std::vector<int> ids;
        if (const auto it = next.find(name); it != next.end()) ids = it->second.second;
        while (static_cast<int>(ids.size()) < sf && ptr < workers.size()) {
          if (workers[ptr].empty()) {
            ++ptr;
            continue;
          }
          const int w = workers[ptr].front();
          if (!assigned.count(w)) ids.push_back(w), assigned.insert(w);
          workers[ptr].erase(workers[ptr].begin());
        }
        if (static_cast<int>(ids.size()) != sf) throw InvariantError("sia gavel: could not assign workers to job " + name);
        next[name] = {t, ids};
      }
    }
  }
  return next;
}

std::vector<std::optional<Assignment>> SiaGavel::optimize(const std::vector<const SJob*>& active, long now) {
  const auto t0 = std::chrono::steady_clock::now();
  const int types = static_cast<int>(cl_.types.size());
  SiaRoundStats st;
  add_jobs(active);
  auto alloc = shares(active, st);
  auto scheduled = pick(active, alloc);
  const auto next = assign(active, scheduled);
  current_ = next;
  // The node of each worker (convert_worker_ids, S:gavel.py:98-109: offsets in the cluster's own order) and the time
  // received (S:gavel.py:500-505).
  std::vector<int> offset_in_order(static_cast<std::size_t>(types), 0);
  for (int t = 1; t < types; ++t) offset_in_order[static_cast<std::size_t>(t)] = offset_in_order[static_cast<std::size_t>(t - 1)] + spec_[static_cast<std::size_t>(t - 1)];
  std::vector<std::optional<Assignment>> out(active.size());
  for (std::size_t a = 0; a < active.size(); ++a) {
    const auto it = next.find(active[a]->spec->name);
    if (it == next.end()) continue;
    const int t = it->second.first;
    Assignment as;
    as.type = t;
    for (int w : it->second.second)
      as.nodes.push_back(static_cast<int>(std::floor(static_cast<double>(w - offset_in_order[static_cast<std::size_t>(t)]) /
                                                     cl_.per_node[static_cast<std::size_t>(t)])));
    out[a] = std::move(as);
    job_time_[it->first][static_cast<std::size_t>(t)] += static_cast<double>(interval_);
    cluster_time_[static_cast<std::size_t>(t)] += static_cast<double>(interval_);
  }
  st.t = now;
  st.jobs = static_cast<int>(active.size());
  st.round_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  stats_.push_back(std::move(st));
  return out;
}

}  // namespace rm::sia
