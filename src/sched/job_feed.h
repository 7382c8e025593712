// Where the engine's jobs come from: a trace known in full at the start, or a generator that makes each job
// as the one before it arrives (Synergy's dynamic workloads, spec synergy-and-a-srpt.md S.5). The engine
// takes every job of a known feed before its first instant and the next job of a generator when the one
// before it arrives; either way it hands each job to the execution model when it takes it (`admit`) and
// again when it arrives (`arrive`).
#pragma once
#include <vector>

#include "workload/job.h"

namespace rm {

class JobFeed {
 public:
  virtual ~JobFeed() = default;
  // The next job, or null when there is none. Its spec lives as long as the feed. Ids are dense from 0 in the
  // order given; a generator gives them by submit time.
  virtual const JobSpec* next() = 0;
  // True when every job is known at the start (a trace); false for a generator.
  virtual bool known_up_front() const = 0;
  // A trace that gives its jobs by submit time may say so: the engine then takes them one ahead of the arrivals, as
  // a generator's, instead of all before the first instant (a million jobs' views need not all exist at once).
  virtual bool by_submit() const { return false; }
  // `spec`, one this feed gave, will never be read again (its job's view is gone: exec/execution_model.h, JobViews);
  // a feed may reuse its place for a later job.
  virtual void let_go(const JobSpec& /*spec*/) {}
};

// The jobs of a trace, in the order given (the engine delivers arrivals by submit time).
class VectorFeed final : public JobFeed {
 public:
  explicit VectorFeed(const std::vector<JobSpec>& jobs) : jobs_(jobs) {}
  const JobSpec* next() override { return next_ < jobs_.size() ? &jobs_[next_++] : nullptr; }
  bool known_up_front() const override { return true; }

 private:
  const std::vector<JobSpec>& jobs_;
  std::size_t next_ = 0;
};

}  // namespace rm
