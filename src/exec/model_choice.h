// The execution models by name: how a run turns GPUs and time into progress (docs/design.md).
#pragma once
#include <array>
#include <string>

namespace rm {

enum class ExecModel { Rate, Graph, Task, Round };
inline constexpr std::array<ExecModel, 4> kExecModelList = {ExecModel::Rate, ExecModel::Graph, ExecModel::Task,
                                                             ExecModel::Round};

inline const char* exec_name(ExecModel m) {
  switch (m) {
    case ExecModel::Rate: return "rate";
    case ExecModel::Graph: return "graph";
    case ExecModel::Task: return "task";
    case ExecModel::Round: return "round";
  }
  return "?";
}

// A paper's own simulator reproduced exactly (--compat).
enum class Compat { None, Wang2020, Yu2022, Synergy, Tiresias, Gavel, Pollux, Sia };

inline const char* compat_name(Compat c) {
  switch (c) {
    case Compat::None: return "";
    case Compat::Wang2020: return "wang2020";
    case Compat::Yu2022: return "yu2022";
    case Compat::Synergy: return "synergy";
    case Compat::Tiresias: return "tiresias";
    case Compat::Gavel: return "gavel";
    case Compat::Pollux: return "pollux";
    case Compat::Sia: return "sia";
  }
  return "?";
}

}  // namespace rm
