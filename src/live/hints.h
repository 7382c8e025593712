// The hints a job carries to ringmaster, whatever its cluster manager: the text `rm:key=value;key=value` that a
// backend finds where its manager keeps a job's note (Slurm: the job's comment; the fake: the script's hints).
// Neutral: every backend reads them with this one parser (docs/slurm.md lists the keys).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace rm::live {

// The hints a job carries in its comment: `rm:key=value;key=value` (docs/slurm.md). Known keys: model, user, key,
// iterations, duration (seconds), tp, pp, name. A bad value is left out and reported in `errors` as
// "<field>: <why>"; the job runs anyway.
struct JobHints {
  std::string name;  // the job's name in outputs (a replayed trace's job id); default: the manager's job id
  std::string model;
  std::string user, key;  // the predictor's user and recurrence key (default: the manager's user; user/job name/GPUs)
  std::optional<double> iterations, duration_s;
  int tp = 1, pp = 1;
  std::vector<std::string> errors;
};
JobHints parse_hints(const std::string& comment);

}  // namespace rm::live
