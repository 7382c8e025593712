#include "live/hints.h"

#include <cmath>
#include <cstdlib>

#include "workload/parse_util.h"

namespace rm::live {

JobHints parse_hints(const std::string& comment) {
  JobHints h;
  std::string c = trim(comment);
  if (c.rfind("rm:", 0) != 0) return h;  // not ours: no hints
  for (const auto& raw : split_simple(c.substr(3), ';')) {
    const std::string item = trim(raw);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos) {
      h.errors.push_back(item + ": expected key=value");
      continue;
    }
    const std::string k = trim(item.substr(0, eq)), v = trim(item.substr(eq + 1));
    const auto number = [&](double lo) -> std::optional<double> {
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(x) || x < lo) {
        h.errors.push_back(k + ": '" + v + "' is not a number >= " + std::to_string(static_cast<long>(lo)));
        return std::nullopt;
      }
      return x;
    };
    if (k == "name") {
      if (v.empty() || v.find(',') != std::string::npos) h.errors.push_back("name: empty or has a comma");
      else h.name = v;
    } else if (k == "model") {
      if (v.empty()) h.errors.push_back("model: empty");
      else h.model = v;
    } else if (k == "iterations" || k == "iters") {
      if (auto x = number(1)) h.iterations = x;
    } else if (k == "duration") {
      if (auto x = number(0)) h.duration_s = x;
    } else if (k == "user" || k == "key") {
      if (v.empty()) h.errors.push_back(k + ": empty");
      else (k == "user" ? h.user : h.key) = v;
    } else if (k == "tp" || k == "pp") {
      if (auto x = number(1)) (k == "tp" ? h.tp : h.pp) = static_cast<int>(*x);
    } else {
      h.errors.push_back(k + ": unknown hint (known: name, model, iterations, duration, tp, pp, user, key)");
    }
  }
  return h;
}

}  // namespace rm::live
