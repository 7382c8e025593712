// `ringmaster payload`: the stand-in for a training job in `replay --backend slurm`. It "trains" for
// `work_s` seconds of its own progress at the rate in its speed file, writing that progress to a checkpoint
// file as it goes (atomically, every quarter second and on SIGTERM), and resumes from the file after a requeue, paying `overhead_s` first
// (the checkpoint-restart cost the simulator's --preempt-overhead models).
#pragma once
#include <string>

namespace rm::live {

struct PayloadArgs {
  double work_s = 0;                      // seconds of work at the ideal speed
  std::string checkpoint = "checkpoint";
  std::string speed_file = "slowdown";    // if present: wall seconds per second of work, re-read every 0.25 s
  double overhead_s = 0;
  std::string times_file = "times";       // appends "launch <epoch s>" and "done|stopped <epoch s>" (replay's latencies)
};

// Exit status: 0 when the work is done, 143 when stopped by SIGTERM (progress saved).
int run_payload(const PayloadArgs& a);

}  // namespace rm::live
