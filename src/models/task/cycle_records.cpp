#include "models/task/cycle_records.h"

#include <bit>

namespace rm {

void CycleRecord::seal() {
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&](std::uint64_t x) { h = (h ^ x) * 1099511628211ULL; };
  for (std::int32_t x : disc) mix(static_cast<std::uint32_t>(x));
  for (std::int64_t x : rel) mix(static_cast<std::uint64_t>(x));
  for (double x : flow) mix(std::bit_cast<std::uint64_t>(x));
  hash = h;
}

void CycleRecords::add(CycleRecord&& r) {
  by_hash_[r.hash].push_back(base_ + static_cast<std::int64_t>(hist_.size()));
  hist_.push_back(std::move(r));
  if (hist_.size() > kMax) drop_oldest();
}

void CycleRecords::drop_oldest() {
  const auto it = by_hash_.find(hist_.front().hash);
  it->second.erase(it->second.begin());  // the oldest with that hash
  if (it->second.empty()) by_hash_.erase(it);
  hist_.pop_front();
  ++base_;
}

void CycleRecords::clear() {
  hist_.clear();
  by_hash_.clear();
  base_ = 0;
}

std::ptrdiff_t CycleRecords::find(const CycleRecord& r) const {
  const auto it = by_hash_.find(r.hash);
  if (it == by_hash_.end()) return -1;
  for (auto n = it->second.rbegin(); n != it->second.rend(); ++n) {
    const CycleRecord& h = hist_[static_cast<std::size_t>(*n - base_)];
    if (h.disc == r.disc && h.rel == r.rel && h.flow == r.flow) return static_cast<std::ptrdiff_t>(*n - base_);
  }
  return -1;
}

void CycleRecords::shift(std::int64_t k, std::int64_t period, const std::vector<std::int64_t>& m) {
  for (CycleRecord& r : hist_) {
    r.t += k * period;
    for (std::size_t i = 0; i < m.size(); ++i) r.iter[i] += k * m[i];
  }
}

}  // namespace rm
