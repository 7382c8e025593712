// `ringmaster status --state DIR`: what a running (or stopped) `serve` last wrote to DIR/state.json, for an
// operator: where it schedules, its last step and how long steps and decisions take, whether the partition is as
// at start, the running jobs, the queue with each job's place and why it waits, and refused jobs.
#pragma once
#include <iosfwd>
#include <string>

namespace rm::live {

// Prints the status; InputError (exit 2) when DIR is not a serve state folder.
void print_status(const std::string& state_dir, double now_s, std::ostream& out);

}  // namespace rm::live
