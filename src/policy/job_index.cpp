#include "policy/job_index.h"

#include "core/error.h"

namespace rm {

bool KeySet::insert(const PassKey& k, std::vector<Node>& spare) {
  if (spare.empty()) return set_.insert(k).second;
  Node n = std::move(spare.back());
  spare.pop_back();
  n.value() = k;
  auto r = set_.insert(std::move(n));
  if (!r.inserted) spare.push_back(std::move(r.node));
  return r.inserted;
}

bool KeySet::erase(const PassKey& k, std::vector<Node>& spare) {
  Node n = set_.extract(k);
  if (n.empty()) return false;
  spare.push_back(std::move(n));
  return true;
}

void WaitingIndex::insert(const JobState& j, double key) {
  if (by_gpus_[j.spec->num_gpus].insert(pass_key(j, key), spare_)) {
    sums_.insert(pass_key(j, key));
    gpus_ += j.spec->num_gpus;
  }
}

void WaitingIndex::erase(const JobState& j, double key) {
  auto c = by_gpus_.find(j.spec->num_gpus);
  if (c == by_gpus_.end() || !c->second.erase(pass_key(j, key), spare_))
    throw InvariantError("job " + j.spec->name + " is not in the waiting index under its key");
  sums_.erase(pass_key(j, key));
  gpus_ -= j.spec->num_gpus;
  if (c->second.set().empty()) by_gpus_.erase(c);
}

const PassKey& WaitingIndex::first() const {
  const PassKey* best = nullptr;
  for (const auto& [g, ks] : by_gpus_)
    if (!best || *ks.set().begin() < *best) best = &*ks.set().begin();
  if (!best) throw InvariantError("first() of an empty waiting index");
  return *best;
}

WaitingIndex::Walk::Walk(const WaitingIndex& w) {
  cursors_.reserve(w.by_gpus_.size());
  for (const auto& [g, ks] : w.by_gpus_) cursors_.push_back({g, ks.set().begin(), ks.set().end()});
}

const PassKey* WaitingIndex::Walk::next(int budget) {
  Cursor* best = nullptr;
  for (auto& c : cursors_) {
    if (c.gpus > budget) break;
    if (c.at != c.end && (!best || *c.at < *best->at)) best = &c;
  }
  if (!best) return nullptr;
  return &*best->at++;
}

RunningIndex::Slot& RunningIndex::slot(JobId id) {
  if (id >= static_cast<JobId>(slots_.size())) slots_.resize(static_cast<std::size_t>(id) + 1);
  return slots_[id];
}

void RunningIndex::insert(const JobState& j, double key, Time change) {
  Slot& s = slot(j.id());
  if (s.in) throw InvariantError("job " + j.spec->name + " is already in the running index");
  s.in = true;
  s.job = &j;
  s.key = key;
  ++s.stamp;
  set_.insert(pass_key(j, key), spare_);
  if (change != kNever) changes_.push({change, j.id(), s.stamp});
}

void RunningIndex::erase(const JobState& j) {
  Slot& s = slot(j.id());
  if (!s.in) throw InvariantError("job " + j.spec->name + " is not in the running index");
  set_.erase(pass_key(j, s.key), spare_);
  s.in = false;
  ++s.stamp;  // its pending change, if any, is stale
}

bool RunningIndex::contains(const JobState& j) const {
  return j.id() < static_cast<JobId>(slots_.size()) && slots_[j.id()].in;
}

void RunningIndex::rekey(const JobState& j, double key, Time change) {
  erase(j);
  insert(j, key, change);
}

void RunningIndex::take_due(Time now, std::vector<const JobState*>& out) {
  while (!changes_.empty() && changes_.top().at <= now) {
    const Change c = changes_.top();
    changes_.pop();
    Slot& s = slots_[c.id];
    if (!s.in || s.stamp != c.stamp) continue;
    ++s.stamp;  // taken: the caller re-keys the job with its next change
    out.push_back(s.job);
  }
}

Time RunningIndex::next_change() {
  while (!changes_.empty()) {
    const Change& c = changes_.top();
    const Slot& s = slots_[c.id];
    if (s.in && s.stamp == c.stamp) return c.at;
    changes_.pop();
  }
  return kNever;
}

}  // namespace rm
