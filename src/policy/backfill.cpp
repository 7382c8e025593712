// EASY and conservative backfill (backfill.h).
#include "policy/backfill.h"

#include <algorithm>
#include <limits>

namespace rm {
namespace {
constexpr double kEps = 1e-9;
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

Backfill::Backfill(Reservation kind, const SchedContext& ctx, int free_now)
    : kind_(kind), now_(to_seconds(ctx.now)), free_now_(free_now), ctx_(&ctx) {}

void Backfill::ensure() {
  if (built_) return;
  built_ = true;
  // A running job ends when its remaining iterations run out at the speed it has now (its placement's and the
  // links' slowdowns included: what the backend measures), else at its ideal speed.
  for (const JobState* j : ctx_->active)
    if (j->running()) {
      const double left = j->iter_time > 0 ? j->remaining_at(ctx_->now) * j->iter_time : j->remaining_time_s(ctx_->now);
      steps_[now_ + left] += j->spec->num_gpus;
    }
  for (const auto& [end, n] : pending_) steps_[end] += n;
  pending_.clear();
}

int Backfill::free_at(double t) const {
  int f = free_now_;
  for (const auto& [at, d] : steps_) {
    if (at > t + kEps) break;
    f += d;
  }
  return f;
}

double Backfill::earliest(int n, double dur_s, bool after_now) const {
  // The free level from now on as (time, level) steps; a start c fits if every level in [c, c + dur) holds n. One
  // pass: a level below n rules out every start up to it, so the next candidate is the step after it.
  std::vector<std::pair<double, int>> level{{now_, free_now_}};
  for (const auto& [at, d] : steps_) {
    if (at <= now_ + kEps) level.front().second += d;
    else level.push_back({at, level.back().second + d});
  }
  std::size_t i = after_now ? 1 : 0;
  while (i < level.size()) {
    std::size_t k = i;
    while (k < level.size() && (k == i || level[k].first < level[i].first + dur_s - kEps) && level[k].second >= n) ++k;
    if (k == level.size() || (k > i && level[k].first >= level[i].first + dur_s - kEps)) return level[i].first;
    i = k + 1;  // level k is short of n: no start at or before it fits
  }
  return kInf;
}

bool Backfill::wants_every_job() const {
  return kind_ == Reservation::Conservative || (kind_ == Reservation::Easy && !reserved_);
}

bool Backfill::admits(int n, double dur_s) {
  if (kind_ == Reservation::Easy) return !reserved_ || now_ + dur_s <= shadow_ + kEps || n <= extra_;
  if (kind_ == Reservation::Conservative && depth_ > 0) {
    ensure();
    return earliest(n, dur_s, false) <= now_ + kEps;
  }
  return true;
}

void Backfill::started(int n, double dur_s) {
  if (kind_ == Reservation::None) return;
  free_now_ -= n;
  if (built_) steps_[now_ + dur_s] += n;
  else pending_.push_back({now_ + dur_s, n});
  if (kind_ == Reservation::Easy && reserved_ && now_ + dur_s > shadow_ + kEps) extra_ -= n;
}

bool Backfill::blocked(int n, double dur_s) {
  if (kind_ == Reservation::Easy) {
    if (reserved_) return true;
    ensure();
    reserved_ = true;
    // The shadow time: the earliest time the running jobs' ends free n GPUs; the extra GPUs: what is free beyond n.
    shadow_ = kInf;
    extra_ = 0;
    int f = free_now_;
    if (f >= n) {  // free by count now (the placement could not use them): it may start at the next end
      shadow_ = now_;
      extra_ = f - n;
      return true;
    }
    for (const auto& [at, d] : steps_) {
      f += d;
      if (f >= n) {
        shadow_ = at;
        extra_ = f - n;
        break;
      }
    }
    (void)dur_s;
    return true;
  }
  if (kind_ == Reservation::Conservative) {
    if (depth_ >= kConservativeDepth) return false;
    ensure();
    ++depth_;
    const double t = earliest(n, dur_s, true);
    if (t == kInf) return true;
    steps_[t] -= n;
    steps_[t + dur_s] += n;
  }
  return true;
}

}  // namespace rm
