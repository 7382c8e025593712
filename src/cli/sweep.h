// `ringmaster sweep`: a grid of `simulate` runs (every simulate option may be given several times or as a
// range; --load and --seeds are the usual axes), run K at a time as child processes of this binary, resumable,
// with a progress line; or written as a Slurm job array and merged afterwards. docs/sweep.md.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace rm::sweep {

// One long option of `simulate` (`--policy`), and whether it takes a value (flags do not).
struct SimOption {
  std::string name;
  bool takes_value = true;
};

// One run of the grid: its index, the swept values by axis name (`policy`, `load`, `seed`, ...) and the
// `simulate` arguments that make it (without --out).
struct Cell {
  int index = 0;
  std::vector<std::pair<std::string, std::string>> params;
  std::vector<std::string> args;
};

// The values one occurrence of an option stands for: "a:b:step" (three numbers) is an inclusive range,
// anything else itself. For --seeds also "a-b" and "a,b,c"; for --load also "a,b,c".
std::vector<std::string> expand_values(const std::string& option, const std::string& value);

// The grid of a sweep's arguments (what follows `ringmaster sweep`, sweep-only options removed by the caller
// or not: they are ignored here). Throws InputError naming the option for unknown options or bad values.
std::vector<Cell> expand_grid(const std::vector<std::string>& args, const std::vector<SimOption>& sim_options);

// `ringmaster sweep ARGS`; `self` is this binary (run as `self simulate ...`). Returns the exit status:
// 0 all runs complete, 1 some failed (listed), 2 bad arguments.
int run(const std::vector<std::string>& args, const std::vector<SimOption>& sim_options, const std::string& self);

}  // namespace rm::sweep
