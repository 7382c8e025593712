// peers/sia/sia_pollux.h: ClusterUnaware.optimize_policy with PolluxPolicyUnaware (S:cluster_unaware.py:134-217,
// 219-231 map_vnode_to_real_node, 448-496 fix_allocations_by_dropping, 549-570 get_unaware_job_info).
#include "peers/sia/sia_pollux.h"

#include <algorithm>
#include <chrono>

#include "core/error.h"

namespace rm::sia {
namespace {
constexpr int kVnodeGpus = 4;  // the least GPUs per node among the artifact's types (S:cluster_unaware.py:43-52)
int type_priority(const std::string& t) {  // fix_allocations_by_dropping's tie order
  if (t == "dgx-ext") return 0;
  if (t == "azure") return 1;
  if (t == "quad") return 2;
  if (t == "rtx") return 3;
  if (t == "aws") return 4;
  return 5;
}
}  // namespace

SiaPolluxUnaware::SiaPolluxUnaware(SiaCluster cluster, std::uint64_t seed) : cl_(std::move(cluster)), ga_(seed) {
  max_replicas_ = 1000000;
  for (std::size_t t = 0; t < cl_.types.size(); ++t) {
    const int per = cl_.per_node[t];
    if (per % kVnodeGpus != 0) throw InputError("--cluster", 0, cl_.types[t], "Pollux under --compat sia needs nodes of 4 or 8 GPUs");
    for (int n = 0; n < cl_.nodes[t]; ++n)
      for (int v = 0; v < per / kVnodeGpus; ++v) vnode_.push_back({static_cast<int>(t), n});
    max_replicas_ = std::min({max_replicas_, per * cl_.nodes[t], per * cl_.max_physical[t]});
  }
}

std::vector<Assignment> SiaPolluxUnaware::optimize(const std::vector<const SJob*>& active, long now) {
  const auto t0 = std::chrono::steady_clock::now();
  const int vnodes = static_cast<int>(vnode_.size());
  std::map<std::string, std::vector<int>> base;
  for (const SJob* j : active)
    if (const auto it = vnode_alloc_.find(j->spec->name); it != vnode_alloc_.end()) base[it->first] = it->second;
  std::vector<pollux::PolicyJob> in;
  for (const SJob* j : active) {
    pollux::PolicyJob p;
    p.name = j->spec->name;
    p.speedup = j->unaware_speedup();
    p.attained_service = j->attained;
    p.submitted = static_cast<double>(j->submit);
    p.max_replicas = std::min({std::max(2 * j->max_profiled_replicas(0), 1), max_replicas_,
                               j->aws->max_batch_size() / j->aws->min_local_bsz()});
    if (j->app_name == "ncf") p.max_replicas = 1;
    p.restarts = std::max(0, j->restarts);
    p.age = static_cast<double>(now - j->submit);
    p.base.assign(static_cast<std::size_t>(vnodes), 0);
    if (const auto it = base.find(p.name); it != base.end())
      for (int v : it->second) ++p.base[static_cast<std::size_t>(v)];
    in.push_back(std::move(p));
  }
  const auto counts = ga_.optimize(std::move(in), vnodes, kVnodeGpus);
  std::vector<Assignment> out(active.size());
  int wasted = 0;
  for (std::size_t a = 0; a < active.size(); ++a) {
    std::vector<int> ids;
    for (int v = 0; v < vnodes; ++v) ids.insert(ids.end(), static_cast<std::size_t>(counts[a][static_cast<std::size_t>(v)]), v);
    // The primary type: most GPUs; a tie between the two most common goes to the faster (Counter.most_common keeps
    // the order of first appearance among equals).
    if (!ids.empty()) {
      std::vector<std::pair<int, int>> tally;  // (type, GPUs) in order of first appearance
      for (int v : ids) {
        const int t = vnode_[static_cast<std::size_t>(v)].first;
        auto it = std::find_if(tally.begin(), tally.end(), [&](const auto& x) { return x.first == t; });
        if (it == tally.end()) tally.push_back({t, 1});
        else ++it->second;
      }
      std::stable_sort(tally.begin(), tally.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
      int chosen = tally[0].first;
      if (tally.size() > 1 && tally[0].second == tally[1].second &&
          type_priority(cl_.types[static_cast<std::size_t>(tally[1].first)]) <
              type_priority(cl_.types[static_cast<std::size_t>(tally[0].first)]))
        chosen = tally[1].first;
      std::vector<int> kept;
      for (int v : ids)
        if (vnode_[static_cast<std::size_t>(v)].first == chosen) kept.push_back(v);
        else ++wasted;
      ids = std::move(kept);
      Assignment& as = out[a];
      as.type = chosen;
      for (int v : ids) as.nodes.push_back(vnode_[static_cast<std::size_t>(v)].second);
      std::sort(as.nodes.begin(), as.nodes.end());
    }
    vnode_alloc_[active[a]->spec->name] = ids;
  }
  for (auto it = vnode_alloc_.begin(); it != vnode_alloc_.end();) {  // keep the active jobs only
    const bool keep = std::any_of(active.begin(), active.end(), [&](const SJob* j) { return j->spec->name == it->first; });
    it = keep ? std::next(it) : vnode_alloc_.erase(it);
  }
  wasted_ += wasted;
  SiaRoundStats st;
  st.t = now;
  st.jobs = static_cast<int>(active.size());
  st.solve_ms = ga_.last_round_seconds() * 1e3;
  st.round_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  stats_.push_back(std::move(st));
  return out;
}

}  // namespace rm::sia
