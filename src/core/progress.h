// What an engine reports now and then while it runs, for `simulate`'s progress bar.
#pragma once
#include <cstdint>
#include <functional>

namespace rm {

struct ProgressInfo {
  std::int64_t done = 0, total = 0;  // jobs finished (the task model: released), of all
  double sim_s = 0;                  // simulated time reached
  std::int64_t events = 0;           // events handled so far (0 where the engine does not count them)
};
using ProgressFn = std::function<void(const ProgressInfo&)>;

}  // namespace rm
