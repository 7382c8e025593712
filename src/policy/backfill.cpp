// EASY and conservative backfill (backfill.h).
#include "policy/backfill.h"

#include <algorithm>
#include <limits>

namespace rm {
namespace {
constexpr double kEps = 1e-9;
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

Backfill::Backfill(Reservation kind, const SchedContext& ctx, int free_now,
                   const std::vector<const JobState*>* running)
    : kind_(kind), now_(to_seconds(ctx.now)), free_now_(free_now), ctx_(&ctx), running_(running) {}

void Backfill::ensure() {
  if (built_) return;
  built_ = true;
  // A running job ends when its remaining iterations run out at the speed it has now (expected_left_s).
  for_each_running([&](const JobState& j) { ends_.push_back({now_ + expected_left_s(j, ctx_->now), j.width()}); });
  ends_.insert(ends_.end(), pending_.begin(), pending_.end());
  pending_.clear();
  if (kind_ == Reservation::Conservative)
    for (const auto& [end, n] : ends_) steps_[end] += n;
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
  if (kind_ == Reservation::Easy) {
    if (!reserved_) return true;
    ++considered_;
    return now_ + dur_s <= shadow_ + kEps || n <= extra_;
  }
  if (kind_ == Reservation::Conservative && depth_ > 0) {
    ensure();
    return earliest(n, dur_s, false) <= now_ + kEps;
  }
  return true;
}

void Backfill::started(int n, double dur_s) {
  if (kind_ == Reservation::None) return;
  free_now_ -= n;
  if (!built_) pending_.push_back({now_ + dur_s, n});
  else if (kind_ == Reservation::Conservative) steps_[now_ + dur_s] += n;
  if (kind_ == Reservation::Easy && reserved_ && now_ + dur_s > shadow_ + kEps) extra_ -= n;
}

void Backfill::delay_shadow(double t_s, int n) {
  if (!reserved_ || !(t_s > shadow_)) return;
  shadow_ = t_s;
  int f = free_now_;
  for (const auto& [end, g] : ends_)
    if (end <= t_s + kEps) f += g;
  extra_ = std::max(0, f - n);
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
    // The earliest ends first, as many as it takes (a heap: O(running + k log running), not a sort).
    const auto later = [](const std::pair<double, int>& a, const std::pair<double, int>& b) { return a.first > b.first; };
    std::make_heap(ends_.begin(), ends_.end(), later);
    for (auto last = ends_.end(); last != ends_.begin();) {
      std::pop_heap(ends_.begin(), last, later);
      --last;
      f += last->second;
      if (f >= n) {
        shadow_ = last->first;
        while (last != ends_.begin() && ends_.front().first <= shadow_ + kEps) {  // the others ending then too
          std::pop_heap(ends_.begin(), last, later);
          --last;
          f += last->second;
        }
        extra_ = f - n;
        break;
      }
    }
    (void)dur_s;
    return true;
  }
  if (kind_ == Reservation::Conservative) {
    if (depth_ >= kDepth) return false;
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
