// LWF-kappa, Least Workload First with consolidation threshold kappa (Wang et al. 2020, spec A.6.3,
// A.11 item 11). A job of at most kappa GPUs takes the eligible GPUs of least workload (balance); a
// larger job walks the servers by mean GPU workload and takes each one's eligible GPUs, least loaded
// first (consolidate). Both are the one first-fit walk (cluster/first_fit_walk.h): balance walks the whole
// cluster as one pool. Workloads are the task model's A.6.2 bookkeeping.
//
// nic=true (ours, beyond the paper): a large job walks the servers by the number of placed split jobs
// using their NIC first, then by mean workload, so split jobs land on disjoint NICs where possible.
// beta=B charges communication at B ms/MB in the workload (default: the authors' 1 GbE 7.8125 under
// --compat wang2020, the network's beta otherwise; A.9 Q7).
// history=true (the default under --compat wang2020) keeps the authors' persistent server list: it is
// stable-sorted in place on every large-job attempt, so ties keep the order left by earlier sorts.
// history=false sorts afresh by (mean workload, server id).
#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "cluster/first_fit_walk.h"
#include "policy/task/task_placements.h"

namespace rm::task {
namespace {

class Lwf : public TaskPlacement {
 public:
  Lwf(int kappa, int history, double beta, bool nic) : kappa_(kappa), history_(history), beta_(beta), nic_(nic) {}
  std::string name() const override { return "lwf:kappa=" + std::to_string(kappa_) + (nic_ ? ";nic=true" : ""); }
  double workload_beta() const override { return beta_; }
  // Both branches test eligible_count first; only the persistent server order (history) is state.
  bool pure(bool compat) const override { return !(history_ < 0 ? compat : history_ == 1); }

  bool place(const TJob& j, const TaskView& v, std::vector<int>& out) override {
    const auto& g = v.gpus();
    const std::vector<double>& free = v.free_mem();
    out.clear();
    const auto take = [&](int, int k) {
      out.push_back(e_[k]);
      return FitStep::kTake;
    };
    if (j.n <= kappa_) {
      if (v.eligible_count(j.mem) < j.n) return false;
      // Balance, on the same walk with the whole cluster as one pool: its GPUs filtered (memory) and scored
      // (workload, then id: the server-major order), the n best taken.
      const auto pool = [&](int) {
        e_.clear();
        for (int i = 0; i < static_cast<int>(g.size()); ++i)
          if (free[i] >= j.mem) e_.push_back(i);
        std::partial_sort(e_.begin(), e_.begin() + j.n, e_.end(), [&](int a, int b) {
          return g[a].workload != g[b].workload ? g[a].workload < g[b].workload : a < b;
        });
        return j.n;
      };
      return first_fit_walk(ServerRange{1}, j.n, pool, take) == j.n;
    }
    sort_servers(v);
    if (v.eligible_count(j.mem) < j.n) return false;
    // The one first-fit walk: servers by score (order_), a server's GPUs filtered (memory) and ordered by
    // workload, taken until the job has n.
    const auto gpus_of = [&](int s) {
      e_.clear();
      for (int i : v.server_gpus(s))
        if (free[i] >= j.mem) e_.push_back(i);
      std::stable_sort(e_.begin(), e_.end(), [&](int a, int b) { return g[a].workload < g[b].workload; });
      return static_cast<int>(e_.size());
    };
    return first_fit_walk(order_, j.n, gpus_of, take) == j.n;  // eligible_count said there are enough
  }

 private:
  void sort_servers(const TaskView& v) {
    const int ns = v.num_servers();
    const bool history = history_ < 0 ? v.compat() : history_ == 1;
    if (static_cast<int>(order_.size()) != ns) {
      order_.resize(ns);
      std::iota(order_.begin(), order_.end(), 0);
      mean_.assign(ns, 0);
      sorted_at_ = ~std::uint64_t{0};
    }
    // Re-sorting by unchanged keys is a no-op for a stable sort, so skip it when no workload moved
    // (nic=true also reads the split-job counts, which change only with placements, which move workloads).
    if (v.workload_version() == sorted_at_) return;
    sorted_at_ = v.workload_version();
    const auto& g = v.gpus();
    for (int s = 0; s < ns; ++s) {
      double sum = 0;
      for (int i : v.server_gpus(s)) sum += g[i].workload;  // ((w0 + w1) + w2) + w3, as NumPy does
      mean_[s] = sum / static_cast<double>(v.server_gpus(s).size());
    }
    if (nic_) {  // servers whose NIC carries fewer split jobs first, then by mean workload
      split_.resize(ns);
      for (int s = 0; s < ns; ++s) split_[s] = v.server_split_jobs(s);
      std::iota(order_.begin(), order_.end(), 0);
      std::sort(order_.begin(), order_.end(), [&](int a, int b) {
        if (split_[a] != split_[b]) return split_[a] < split_[b];
        return mean_[a] != mean_[b] ? mean_[a] < mean_[b] : a < b;
      });
      return;
    }
    if (history) {
      std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return mean_[a] < mean_[b]; });
    } else {
      std::iota(order_.begin(), order_.end(), 0);
      std::sort(order_.begin(), order_.end(),
                [&](int a, int b) { return mean_[a] != mean_[b] ? mean_[a] < mean_[b] : a < b; });
    }
  }

  int kappa_;
  int history_;  // -1 = follow --compat
  double beta_;  // 0 = engine default
  bool nic_;     // contention-aware server order (ours, beyond the paper)
  std::vector<int> split_;
  std::vector<int> e_;  // one server's eligible GPUs (walk scratch)
  std::vector<int> order_;
  std::vector<double> mean_;
  std::uint64_t sorted_at_ = ~std::uint64_t{0};
};

}  // namespace

std::unique_ptr<TaskPlacement> make_lwf(PluginParams& p) {
  const int k = p.get_int("kappa", 2, 1, 1'000'000);
  const std::string h = p.get_string("history", "auto");
  if (h != "auto" && h != "true" && h != "false")
    throw InputError("--policy", 0, "lwf:history", "must be auto, true or false");
  const double beta = p.get_double("beta", 0, 0, 1e9);
  if (beta < 0) throw InputError("--policy", 0, "lwf:beta", "must be > 0");
  const std::string nic = p.get_string("nic", "false");
  if (nic != "true" && nic != "false") throw InputError("--policy", 0, "lwf:nic", "must be true or false");
  return std::make_unique<Lwf>(k, h == "auto" ? -1 : h == "true", beta, nic == "true");
}

}  // namespace rm::task
