#include "metrics/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "workload/parse_util.h"
#include "workload/strict_json.h"

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
  const auto head = split_csv(line, ',', path, 1);
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
    const auto v = split_csv(line, ',', path, ln);
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

namespace rm {
namespace {

struct RunRow {
  std::string run;                                   // where it came from (folder, or sweep:index)
  std::vector<std::pair<std::string, std::string>> params;  // a sweep's swept values
  nlohmann::json summary;
};

nlohmann::json read_summary(const std::filesystem::path& p) {
  return parse_json_file(p.string(), "summary.json");
}

void collect(const std::string& dir, std::vector<RunRow>& rows) {
  namespace fs = std::filesystem;
  const fs::path d(dir);
  if (!fs::is_directory(d)) throw InputError(dir, 0, "", "not a folder");
  if (fs::exists(d / "grid.json") && fs::is_directory(d / "runs")) {  // a sweep: its complete runs
    std::ifstream g(d / "grid.json");
    nlohmann::json grid;
    try {
      grid = nlohmann::json::parse(g);
    } catch (const std::exception& e) {
      throw InputError((d / "grid.json").string(), 0, "", std::string("not a sweep's grid: ") + e.what());
    }
    for (const auto& c : grid.at("cells")) {
      const fs::path run = d / "runs" / fmt::format("{:05d}", c.at("index").get<int>());
      if (!fs::exists(run / "summary.json") || !fs::exists(run / "jobs.csv")) continue;
      RunRow r{dir + ":" + fmt::format("{:05d}", c.at("index").get<int>()), {}, read_summary(run / "summary.json")};
      for (const auto& p : c.at("params")) r.params.push_back({p.at(0).get<std::string>(), p.at(1).get<std::string>()});
      rows.push_back(std::move(r));
    }
    return;
  }
  if (fs::exists(d / "summary.json")) {
    rows.push_back({dir, {}, read_summary(d / "summary.json")});
    return;
  }
  std::vector<fs::path> subs;
  for (const auto& e : fs::directory_iterator(d))
    if (e.is_directory() && fs::exists(e.path() / "summary.json")) subs.push_back(e.path());
  if (subs.empty()) throw InputError(dir, 0, "", "no summary.json, run folders or sweep in it");
  std::sort(subs.begin(), subs.end());
  for (const auto& s : subs) rows.push_back({s.string(), {}, read_summary(s / "summary.json")});
}

// A summary's value as text. full: the CSV's, every digit (the shortest text that reads back as the same double);
// else the text and Markdown tables', plain decimals at a precision that suits the size (5459220, 13136.42, 0.734),
// never an exponent (issue 46: "5.45922e+06" in every format before).
std::string cell(const nlohmann::json& s, const char* key, bool full = false) {
  if (!s.contains(key) || s[key].is_null()) return "";
  const auto& v = s[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (!v.is_number()) return v.dump();
  const double x = v.get<double>();
  if (full) return fmt::format("{}", x);
  const double a = std::fabs(x);
  if (a >= 1000 || a == 0) return fmt::format("{:.0f}", x);
  if (a >= 1) return fmt::format("{:.2f}", x);
  if (a >= 0.001) return fmt::format("{:.3f}", x);
  return fmt::format("{:.3g}", x);
}

}  // namespace

CompareTable compare_table(const std::vector<std::string>& dirs) {
  std::vector<RunRow> rows;
  for (const auto& d : dirs) collect(d, rows);
  // The columns: the run, the sweeps' parameters, what ran it, then the figures (those a row has).
  // The sweeps' parameters that vary across the rows (a grid option every run shares is no column).
  std::vector<std::string> params;
  for (const auto& r : rows)
    for (const auto& [k, v] : r.params)
      if (k != "policy" && std::find(params.begin(), params.end(), k) == params.end()) params.push_back(k);
  std::erase_if(params, [&](const std::string& p) {
    std::set<std::string> values;
    for (const auto& r : rows) {
      std::string v;
      for (const auto& [k, x] : r.params)
        if (k == p) v = x;
      values.insert(v);
    }
    return values.size() < 2 && rows.size() > 1;
  });
  static const char* const kWho[] = {"policy", "exec", "perf_model", "cluster", "trace"};
  static const char* const kFigures[] = {"jobs",         "offered_load", "avg_jct_s",   "p50_jct_s",   "p99_jct_s",
                                         "makespan_s",   "avg_queue_s",  "queue_p99_s", "gpu_util",    "preemptions",
                                         "gpu_time_inflation", "stretch_p50", "stretch_p99", "ftf_rho_mean",
                                         "ftf_rho_max",  "deadline_met_ratio", "jain_user_gpu_share"};
  std::vector<std::string> figures;
  for (const char* f : kFigures)
    for (const auto& r : rows)
      if (r.summary.contains(f)) {
        figures.push_back(f);
        break;
      }
  std::vector<std::string> header = {"run"};
  header.insert(header.end(), params.begin(), params.end());
  header.insert(header.end(), std::begin(kWho), std::end(kWho));
  header.insert(header.end(), figures.begin(), figures.end());
  std::vector<std::vector<std::string>> table, full_table;
  std::vector<std::string> execs, perfs;
  for (const auto& r : rows) {
    std::vector<std::string> line = {r.run};
    for (const auto& p : params) {
      std::string v;
      for (const auto& [k, x] : r.params)
        if (k == p) v = x;
      line.push_back(v);
    }
    for (const char* w : kWho)  // a labelled policy by its label (--policy LABEL=SPEC, a Python class's name)
      line.push_back(cell(r.summary, std::string(w) == "policy" && r.summary.contains("policy_label") ? "policy_label" : w));
    std::vector<std::string> full = line;  // the CSV's row: every digit
    for (const auto& f : figures) {
      line.push_back(cell(r.summary, f.c_str()));
      full.push_back(cell(r.summary, f.c_str(), true));
    }
    full_table.push_back(std::move(full));
    const std::string e = cell(r.summary, "exec"), pm = cell(r.summary, "perf_model");
    if (std::find(execs.begin(), execs.end(), e) == execs.end()) execs.push_back(e);
    if (std::find(perfs.begin(), perfs.end(), pm) == perfs.end()) perfs.push_back(pm);
    table.push_back(std::move(line));
  }
  CompareTable t;
  t.rows = static_cast<int>(table.size());
  const auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + (x.empty() ? std::string("(none)") : x);
    return s;
  };
  if (execs.size() > 1) t.mixed += "execution models " + join(execs);
  if (perfs.size() > 1) t.mixed += (t.mixed.empty() ? "" : "; ") + std::string("performance models ") + join(perfs);
  // Text: columns padded to their widths.
  std::vector<std::size_t> w(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) {
    w[i] = header[i].size();
    for (const auto& l : table) w[i] = std::max(w[i], l[i].size());
  }
  const auto text_line = [&](const std::vector<std::string>& l) {
    std::string s;
    for (std::size_t i = 0; i < l.size(); ++i)
      s += (i ? "  " : "") + (i < header.size() - figures.size() ? fmt::format("{:<{}}", l[i], w[i])
                                                                  : fmt::format("{:>{}}", l[i], w[i]));
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  t.text = text_line(header);
  for (const auto& l : table) t.text += text_line(l);
  for (std::size_t i = 0; i < header.size(); ++i) t.csv += (i ? "," : "") + csv_field(header[i]);
  t.csv += "\n";
  for (const auto& l : full_table) {
    for (std::size_t i = 0; i < l.size(); ++i) t.csv += (i ? "," : "") + csv_field(l[i]);
    t.csv += "\n";
  }
  const auto md_line = [](const std::vector<std::string>& l) {
    std::string s = "|";
    for (const auto& x : l) {
      std::string e;
      for (char c : x) e += c == '|' ? std::string("\\|") : std::string(1, c);
      s += " " + e + " |";
    }
    return s + "\n";
  };
  t.markdown = md_line(header);
  std::string sep = "|";
  for (std::size_t i = 0; i < header.size(); ++i) sep += i < header.size() - figures.size() ? "---|" : "---:|";
  t.markdown += sep + "\n";
  for (const auto& l : table) t.markdown += md_line(l);
  if (!t.mixed.empty()) t.markdown += "\nThese rows mix " + t.mixed + ": their figures come from different models.\n";
  return t;
}

}  // namespace rm
