// Backfill with reservations, as Slurm and PBS users mean it (docs/policies.md, "Backfill"): the flags easy-backfill
// and conservative-backfill of a non-preemptive composed policy. Placement-independent: reservations count GPUs,
// and times come from the jobs' expected run times (JobState::remaining_time_s / total_time_s: the trace's declared
// duration, or iterations at the job's ideal speed), as a real scheduler reads its users' time limits.
//
// EASY: the first job that cannot start (the queue's head) gets a reservation at the shadow time, the earliest time
// the running jobs' expected ends free enough GPUs for it; a later job may start now only if it is expected to end by
// then, or if it takes only GPUs the head will not need at that time (the extra GPUs).
// Conservative: every job that cannot start gets the earliest reservation that fits beside the earlier ones; a later
// job may start now only if it delays none of them. Like Slurm's bf_max_job_test, a pass considers at most kDepth
// jobs after the first that cannot start (EASY) or gives at most kDepth reservations (conservative), then stops: a
// pass costs O(running + kDepth), not O(queue).
#pragma once
#include <map>
#include <vector>

#include "core/time.h"
#include "sched/decisions.h"

namespace rm {

enum class Reservation { None, Easy, Conservative };

class Backfill {
 public:
  static constexpr int kDepth = 100;
  // A running job's expected seconds left, as the reservations read them: its remaining iterations at the speed it
  // has now (its placement's and the links' slowdowns included), else at its ideal speed.
  static double expected_left_s(const JobState& j, Time now) {
    return j.iter_time > 0 ? j.remaining_at(now) * j.iter_time : j.remaining_time_s(now);
  }
  // f(job) for each job running before this pass: from the caller's list where it keeps one (O(running)), else from
  // every active job.
  template <class F>
  void for_each_running(F&& f) const {
    if (running_) {
      for (const JobState* j : *running_)
        if (j->running()) f(*j);
    } else {
      for (const JobState* j : ctx_->active)
        if (j->running()) f(*j);
    }
  }
  // `running`: the running jobs where the caller keeps them (null: read from ctx.active, every active job).
  Backfill(Reservation kind, const SchedContext& ctx, int free_now, const std::vector<const JobState*>* running);
  bool on() const { return kind_ != Reservation::None; }
  // The pass has considered as many jobs as it may (EASY) after the head.
  bool exhausted() const { return kind_ == Reservation::Easy && reserved_ && considered_ >= kDepth; }
  // Whether the pass must see every waiting job, also those asking for more GPUs than are free (they get
  // reservations), rather than only those that fit.
  bool wants_every_job() const;
  // Whether job j (asking for n GPUs, expected to run `dur_s`) may start now without delaying a reservation.
  bool admits(int n, double dur_s);
  // Job j started now (it holds n GPUs until now + dur_s).
  void started(int n, double dur_s);
  // Job j could not start now: it gets its reservation (EASY: only the first). False when the pass should stop
  // considering later jobs (conservative, past its depth).
  bool blocked(int n, double dur_s);
  // EASY: the head (n GPUs) waits for its shape (the servers it needs), which frees later than its GPU count does:
  // the shadow moves to t, and the extra GPUs are those free by count at t beyond n.
  void delay_shadow(double t_s, int n);
  double shadow_s() const { return shadow_; }
  double now_s() const { return now_; }

 private:
  // The running jobs' expected ends, read at the first reservation (a pass without one costs nothing more).
  void ensure();
  // Free GPUs from time t on, by the running jobs' expected ends and the reservations: a step function.
  int free_at(double t) const;
  // The earliest time (>= now, or after now) at which n GPUs are free for dur_s (every step in [t, t + dur_s)).
  double earliest(int n, double dur_s, bool after_now) const;
  Reservation kind_;
  double now_;
  std::map<double, int> steps_;  // time -> change of free GPUs at that time (running ends +, reservations -/+)
  int free_now_;
  const SchedContext* ctx_;
  const std::vector<const JobState*>* running_;
  std::vector<std::pair<double, int>> ends_;  // EASY: the running jobs' expected ends and GPUs
  bool built_ = false;
  std::vector<std::pair<double, int>> pending_;  // starts of this pass before the first reservation
  // EASY's reservation.
  bool reserved_ = false;
  double shadow_ = 0;
  int extra_ = 0;
  int depth_ = 0;       // conservative: reservations given
  int considered_ = 0;  // EASY: jobs considered after the head's reservation
};

}  // namespace rm
