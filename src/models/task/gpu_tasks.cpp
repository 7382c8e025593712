#include "models/task/gpu_tasks.h"

namespace rm {

GpuTasks::GpuTasks(const ClusterSpec& cluster, bool compat) : compat_(compat) {
  for (const auto& s : cluster.servers) {
    std::vector<int> ids;
    for (int k = 0; k < s.gpus; ++k) {
      ids.push_back(static_cast<int>(views_.size()));
      task::TGpu g;
      g.server = static_cast<int>(on_server_.size());
      g.slot = k;
      g.mem_total = s.gpu_mem_gb * 1024.0;
      views_.push_back(g);
    }
    on_server_.push_back(std::move(ids));
    max_server_gpus_ = std::max(max_server_gpus_, s.gpus);
  }
  gpus_.resize(views_.size());
}

std::size_t GpuTasks::place(int g, int job, int worker) {
  auto& list = at(g).jobs;
  list.emplace_back(job, worker);
  return list.size();
}

void GpuTasks::release(int g, int job, int worker) {
  auto& list = at(g).jobs;
  list.erase(std::find(list.begin(), list.end(), std::make_pair(job, worker)));
}

void GpuTasks::take_dirty(std::vector<int>& out) {
  std::sort(dirty_.begin(), dirty_.end());
  out.swap(dirty_);
  dirty_.clear();
  for (int g : out) at(g).dirty = false;
}

void GpuTasks::retime_ends() {
  for (auto& e : ends_) e.first = at(e.second).end;
  std::make_heap(ends_.begin(), ends_.end(), Later{});
}

int GpuTasks::busy_count() const {
  int n = 0;
  for (const auto& r : gpus_) n += r.busy;
  return n;
}

double GpuTasks::active_ms() const {
  double s = 0;
  for (const auto& r : gpus_) s += r.active;
  return s;
}

}  // namespace rm
