// Running a program with arguments (no shell) and capturing its output: the seam between the Slurm backend
// and the machine. Tests replace it with recorded outputs; the daemon uses run_command.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace rm::live {

struct CommandResult {
  int status = -1;       // exit status; -1 if it could not be started or was killed (timeout)
  std::string out, err;  // stdout, stderr
  bool ok() const { return status == 0; }
};

using CommandRunner = std::function<CommandResult(const std::vector<std::string>& argv)>;

// fork + execvp with pipes; kills the child (SIGKILL) after timeout_s. Never throws on a failing program.
CommandResult run_command(const std::vector<std::string>& argv, double timeout_s = 30);

}  // namespace rm::live
