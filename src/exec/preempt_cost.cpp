#include "exec/preempt_cost.h"

#include <fmt/format.h>

namespace rm {

std::string PreemptCost::label() const {
  if (fixed_s >= 0) return fmt::format("fixed: {:g} s per resume (--preempt-overhead)", fixed_s);
  return fmt::format("checkpoint-restore: {:g} s restart + {:g} x parameters written and read at {:g} MB/s "
                     "(docs/perf-model.md)",
                     kRestartS, kStateFactor, kStorageMBps);
}

}  // namespace rm
