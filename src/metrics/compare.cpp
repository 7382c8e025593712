#include "metrics/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <vector>

#include "core/error.h"
#include "workload/parse_util.h"

namespace rm {

namespace {
struct Row {
  double start = NAN, jct = NAN;
  std::string status;
};

std::map<std::string, Row> read_jobs(const std::string& dir, std::vector<std::string>& order) {
  const std::string path = dir + "/jobs.csv";
  std::ifstream f(path);
  if (!f) throw InputError(path, 0, "", "cannot open (is " + dir + " a run's output directory?)");
  std::string line;
  if (!std::getline(f, line)) throw InputError(path, 1, "", "empty file");
  const auto head = split_simple(line, ',');
  const auto col = [&](const char* name) {
    const auto it = std::find(head.begin(), head.end(), name);
    if (it == head.end()) throw InputError(path, 1, name, "missing column");
    return static_cast<std::size_t>(it - head.begin());
  };
  const std::size_t c_id = col("job_id"), c_start = col("first_start_s"), c_jct = col("jct_s"), c_st = col("status");
  std::map<std::string, Row> out;
  long ln = 1;
  while (std::getline(f, line)) {
    ++ln;
    if (trim(line).empty()) continue;
    const auto v = split_simple(line, ',');
    if (v.size() < head.size()) throw InputError(path, ln, "", "expected " + std::to_string(head.size()) + " fields");
    Row r;
    r.status = v[c_st];
    if (!trim(v[c_start]).empty()) r.start = parse_double(v[c_start], path, ln, "first_start_s");
    if (!trim(v[c_jct]).empty()) r.jct = parse_double(v[c_jct], path, ln, "jct_s");
    if (!out.emplace(v[c_id], r).second) throw InputError(path, ln, "job_id", "duplicate job '" + v[c_id] + "'");
    order.push_back(v[c_id]);
  }
  return out;
}
}  // namespace

std::string compare_runs(const std::string& dir_a, const std::string& dir_b) {
  std::vector<std::string> ids_a, ids_b;
  const auto a = read_jobs(dir_a, ids_a), b = read_jobs(dir_b, ids_b);
  std::string s = fmt::format("{:<16} {:>12} {:>12} {:>10} {:>8}\n", "job", "jct_a_s", "jct_b_s", "b-a_s", "b/a-1");
  double sum_a = 0, sum_b = 0, sum_abs = 0;
  int n = 0, only_a = 0;
  std::vector<std::string> both;
  for (const auto& id : ids_a) {
    const auto it = b.find(id);
    if (it == b.end()) {
      ++only_a;
      continue;
    }
    const Row &x = a.at(id), &y = it->second;
    both.push_back(id);
    s += fmt::format("{:<16} {:>12.2f} {:>12.2f} {:>+10.2f} {:>+7.1f}%\n", id, x.jct, y.jct, y.jct - x.jct,
                     x.jct > 0 ? 100 * (y.jct / x.jct - 1) : 0.0);
    if (std::isfinite(x.jct) && std::isfinite(y.jct)) {
      sum_a += x.jct;
      sum_b += y.jct;
      sum_abs += std::fabs(y.jct - x.jct);
      ++n;
    }
  }
  const int only_b = static_cast<int>(ids_b.size()) - static_cast<int>(both.size());
  s += fmt::format("jobs in both: {} (only in A: {}, only in B: {})\n", both.size(), only_a, only_b);
  if (n > 0)
    s += fmt::format("average JCT: A {:.2f} s, B {:.2f} s, B vs A {:+.2f} %; mean |difference| {:.2f} s\n", sum_a / n,
                     sum_b / n, sum_a > 0 ? 100 * (sum_b / sum_a - 1) : 0.0, sum_abs / n);
  // Start order: the common jobs sorted by start time in each run, A's ties by id, B's in A's order: jobs that
  // B's time stamps cannot tell apart (Slurm's have 1-s resolution) are not an order difference.
  std::vector<std::string> oa = both;
  std::stable_sort(oa.begin(), oa.end(), [&](const std::string& x, const std::string& y) {
    return a.at(x).start < a.at(y).start || (a.at(x).start == a.at(y).start && x < y);
  });
  std::map<std::string, std::size_t> rank_a;
  for (std::size_t i = 0; i < oa.size(); ++i) rank_a[oa[i]] = i;
  std::vector<std::string> ob = both;
  std::stable_sort(ob.begin(), ob.end(), [&](const std::string& x, const std::string& y) {
    const double sx = b.at(x).start, sy = b.at(y).start;
    return sx < sy || (sx == sy && rank_a.at(x) < rank_a.at(y));
  });
  int tied = 0;  // jobs of B that start at the same time stamp as the one before them
  for (std::size_t i = 1; i < ob.size(); ++i) tied += b.at(ob[i]).start == b.at(ob[i - 1]).start;
  int same = 0;
  std::string first_diff;
  for (std::size_t i = 0; i < oa.size(); ++i) {
    if (oa[i] == ob[i]) ++same;
    else if (first_diff.empty()) first_diff = fmt::format(" (first at position {}: {} in A, {} in B)", i + 1, oa[i], ob[i]);
  }
  s += same == static_cast<int>(oa.size()) ? "start order: identical"
                                           : fmt::format("start order: {} of {} positions differ{}",
                                                         oa.size() - same, oa.size(), first_diff);
  s += tied > 0 ? fmt::format(" (B's start time stamps tie {} times; tied jobs taken in A's order)\n", tied) : "\n";
  return s;
}

}  // namespace rm
