#include "synergy/orders.h"

#include <algorithm>

#include "core/error.h"

namespace rm::synergy {

Order parse_order(const std::string& n) {
  if (n == "fifo") return Order::kFifo;
  if (n == "srtf") return Order::kSrtf;
  if (n == "las") return Order::kLas;
  if (n == "ftf") return Order::kFtf;
  if (n == "drf") return Order::kDrf;
  if (n == "tetris") return Order::kTetris;
  throw InputError("--policy", 0, n, "unknown Synergy order '" + n + "' (available: fifo, srtf, las, ftf, drf, tetris)");
}

namespace {

// Remaining time at the proportional share, divided by the current sigma unless the mechanism is "fair".
double rem(const Job& j, const OrderCtx& c) {
  const double r = j.t * (j.N - j.done);
  return c.proportional ? r : r / j.sigma;
}

}  // namespace

Key order_key(Order o, const Job& j, const OrderCtx& c) {
  const double p = j.prio ? -1.0 : 0.0;
  switch (o) {
    case Order::kFifo:
      return {j.arrival, 0, 0};
    case Order::kSrtf:
      return {p, rem(j, c), j.arrival};
    case Order::kLas:
      return {p, j.attained * j.g, j.arrival};
    case Order::kFtf:
      return {p, ((c.now - j.arrival) + rem(j, c)) / (j.t * j.N), j.arrival};
    case Order::kDrf:
      return {p, std::max({j.g / c.totals[kGpu], j.c / c.totals[kCpu], j.m / c.totals[kMem]}), j.arrival};
    case Order::kTetris: {
      const double r = rem(j, c);
      return {p, ((0 + (j.g / c.totals[kGpu]) * r) + (j.c / c.totals[kCpu]) * r) + (j.m / c.totals[kMem]) * r,
              j.arrival};
    }
  }
  return {};
}

}  // namespace rm::synergy
