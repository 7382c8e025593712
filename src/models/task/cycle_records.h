// A fast-forward group's records (models/task/fast_forward.cpp, step 2 "Detection"): the group's state taken at
// its anchor's syncs relative to the time taken, oldest first, found again by hash. Two equal records mean the
// group cycles: the period is the time between them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

namespace rm {

struct CycleRecord {
  std::int64_t t = 0;               // when taken (ns)
  std::uint64_t hash = 0;           // of everything below but t and iter
  std::vector<std::int64_t> iter;   // per group job
  std::vector<std::int32_t> disc;   // phases, flags, GPU occupants, NIC flow orders
  std::vector<std::int64_t> rel;    // pending task and flow ends, flows' last re-rates, relative to t
  std::vector<double> flow;         // flows' speeds and MB transferred

  // FNV-1a over disc, rel and flow (records compare exactly, so equal records hash alike).
  void seal();
};

class CycleRecords {
 public:
  static constexpr std::size_t kMax = 4096;  // records kept: periods of up to 4095 records

  std::size_t size() const { return hist_.size(); }
  bool empty() const { return hist_.empty(); }
  const CycleRecord& front() const { return hist_.front(); }
  const CycleRecord& back() const { return hist_.back(); }
  const CycleRecord& operator[](std::size_t i) const { return hist_[i]; }

  void add(CycleRecord&& r);  // drops the oldest beyond kMax
  void drop_oldest();
  void clear();
  // The position of the latest record equal to r (same discrete state and relative times), or -1.
  std::ptrdiff_t find(const CycleRecord& r) const;
  // After a jump of k periods of `period` ns in which group job i advanced m[i] iterations per period.
  void shift(std::int64_t k, std::int64_t period, const std::vector<std::int64_t>& m);

 private:
  // Record number base_ + i is hist_[i]; by_hash_ lists the numbers of the records with a hash, oldest first.
  std::deque<CycleRecord> hist_;
  std::int64_t base_ = 0;
  std::unordered_map<std::uint64_t, std::vector<std::int64_t>> by_hash_;
};

}  // namespace rm
