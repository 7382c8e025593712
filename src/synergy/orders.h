// Synergy's job orders (spec S.6.1, S.10 item 16): FIFO, SRTF, LAS, FTF, DRF, Tetris. Each key is a tuple
// compared lexicographically, ascending, with a stable in-place sort of the runnable list.
#pragma once
#include <array>
#include <string>

#include "synergy/state.h"

namespace rm::synergy {

using Key = std::array<double, 3>;

struct OrderCtx {
  double now = 0;
  bool proportional = false;  // the mechanism is "fair": rem is not divided by sigma
  Vec totals{};               // whole-cluster GPUs, CPUs, GB (DRF, Tetris)
};

enum class Order { kFifo, kSrtf, kLas, kFtf, kDrf, kTetris };
Order parse_order(const std::string& name);  // throws InputError
Key order_key(Order o, const Job& j, const OrderCtx& c);

}  // namespace rm::synergy
