#include "metrics/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
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
  std::string source;                                // the folder it was found under (a DIR argument)
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
      RunRow r{dir + ":" + fmt::format("{:05d}", c.at("index").get<int>()), dir, {}, read_summary(run / "summary.json")};
      for (const auto& p : c.at("params")) r.params.push_back({p.at(0).get<std::string>(), p.at(1).get<std::string>()});
      rows.push_back(std::move(r));
    }
    return;
  }
  if (fs::exists(d / "summary.json")) {
    rows.push_back({dir, dir, {}, read_summary(d / "summary.json")});
    return;
  }
  std::vector<fs::path> subs;
  for (const auto& e : fs::directory_iterator(d))
    if (e.is_directory() && fs::exists(e.path() / "summary.json")) subs.push_back(e.path());
  if (subs.empty()) throw InputError(dir, 0, "", "no summary.json, run folders or sweep in it");
  std::sort(subs.begin(), subs.end());
  for (const auto& s : subs) rows.push_back({s.string(), dir, {}, read_summary(s / "summary.json")});
}

// A number in the text and Markdown tables: plain decimals at a precision that suits the size (5459220, 13136.42,
// 0.734), never an exponent (issue 46: "5.45922e+06" in every format before).
std::string plain(double x) {
  const double a = std::fabs(x);
  if (a >= 1000 || a == 0) return fmt::format("{:.0f}", x);
  if (a >= 1) return fmt::format("{:.2f}", x);
  if (a >= 0.001) return fmt::format("{:.3f}", x);
  return fmt::format("{:.3g}", x);
}

// A summary's value as text: plain(), or with full the CSV's, every digit (the shortest text that reads back as the
// same double).
std::string cell(const nlohmann::json& s, const char* key, bool full = false) {
  if (!s.contains(key) || s[key].is_null()) return "";
  const auto& v = s[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (!v.is_number()) return v.dump();
  return full ? fmt::format("{}", v.get<double>()) : plain(v.get<double>());
}

// Student's t quantile t(0.975, df): the table for 1..30 degrees of freedom, beyond it the Cornish-Fisher expansion
// around the normal quantile (error < 1e-4 at df = 31).
double t975(int df) {
  static const double kT[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                              2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                              2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return NAN;
  if (df <= 30) return kT[df - 1];
  const double z = 1.959963984540054, n = df;
  return z + (z * z * z + z) / (4 * n) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n);
}

// Mean and the half-width of its 95 % confidence interval (t); the half-width is NaN for fewer than two values.
std::pair<double, double> mean_ci(const std::vector<double>& v) {
  if (v.empty()) return {NAN, NAN};
  double sum = 0;
  for (double x : v) sum += x;
  const double m = sum / static_cast<double>(v.size());
  if (v.size() < 2) return {m, NAN};
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  const double sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
  return {m, t975(static_cast<int>(v.size()) - 1) * sd / std::sqrt(static_cast<double>(v.size()))};
}

// A mean or a half-width as compare's text shows it (cell()'s precision).
std::string shown(double x) {
  if (std::isnan(x)) return "";
  if (x == std::floor(x) && std::fabs(x) < 1e15) return fmt::format("{:.0f}", x);  // a count's mean: 200, not 200.00
  return plain(x);
}

std::string param_of(const RunRow& r, const std::string& key) {
  for (const auto& [k, v] : r.params)
    if (k == key) return v;
  return "";
}

// The run's policy as the tables name it: its label (--policy LABEL=SPEC, a Python class's name), else its spec.
std::string policy_of(const RunRow& r) {
  const char* k = r.summary.contains("policy_label") ? "policy_label" : "policy";
  return r.summary.contains(k) && r.summary[k].is_string() ? r.summary[k].get<std::string>() : "";
}

std::optional<double> number(const nlohmann::json& s, const std::string& key) {
  if (!s.contains(key) || !s[key].is_number()) return std::nullopt;
  const double x = s[key].get<double>();
  return std::isfinite(x) ? std::optional<double>(x) : std::nullopt;
}

// Columns a UTF-8 string takes on a terminal (each code point one column: the tables' text is ASCII and '±').
std::size_t utf8_width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// A table as padded text (left columns left-aligned, the figures right-aligned), CSV and Markdown.
struct Rendered {
  std::string text, csv, markdown;
};
Rendered render(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& table,
                const std::vector<std::string>& csv_header, const std::vector<std::vector<std::string>>& csv_table,
                std::size_t left) {
  Rendered out;
  std::vector<std::size_t> w(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) {
    w[i] = header[i].size();
    for (const auto& l : table) w[i] = std::max(w[i], utf8_width(l[i]));
  }
  const auto text_line = [&](const std::vector<std::string>& l) {
    std::string s;
    for (std::size_t i = 0; i < l.size(); ++i) {
      const std::string pad(w[i] - std::min(w[i], utf8_width(l[i])), ' ');
      s += (i ? "  " : "") + (i < left ? l[i] + pad : pad + l[i]);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  out.text = text_line(header);
  for (const auto& l : table) out.text += text_line(l);
  for (std::size_t i = 0; i < csv_header.size(); ++i) out.csv += (i ? "," : "") + csv_field(csv_header[i]);
  out.csv += "\n";
  for (const auto& l : csv_table) {
    for (std::size_t i = 0; i < l.size(); ++i) out.csv += (i ? "," : "") + csv_field(l[i]);
    out.csv += "\n";
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
  out.markdown = md_line(header);
  std::string sep = "|";
  for (std::size_t i = 0; i < header.size(); ++i) sep += i < left ? "---|" : "---:|";
  out.markdown += sep + "\n";
  for (const auto& l : table) out.markdown += md_line(l);
  return out;
}


// --baseline NAME: each run against the baseline policy's run with the same parameters and seed from the same folder
// (a sweep's cell, a multi-policy folder's sibling); per-seed ratios of each metric, pooled over the seeds of one
// setting into their mean and 95 % confidence interval (Student's t), the number of seeds below 1, min and max.
void paired_table(const std::vector<RunRow>& rows, std::vector<std::string> params, const CompareOptions& opt,
                  CompareTable& t) {
  std::erase(params, std::string("seed"));
  std::vector<std::string> metrics = opt.metrics;
  if (metrics.empty()) metrics = {"avg_jct_s", "p50_jct_s", "p99_jct_s"};
  for (const auto& m : metrics)
    if (std::none_of(rows.begin(), rows.end(), [&](const RunRow& r) { return number(r.summary, m).has_value(); }))
      throw InputError("--metrics", 0, m, "no run's summary.json has this number");
  // A run's setting: its folder and every parameter but the policy (the seed included).
  const auto setting = [](const RunRow& r) {
    std::string k = r.source;
    for (const auto& [p, v] : r.params)
      if (p != "policy") k += "\x1f" + p + "=" + v;
    return k;
  };
  std::map<std::string, const RunRow*> base;
  std::set<std::string> names;
  for (const auto& r : rows) {
    names.insert(policy_of(r));
    if (policy_of(r) == opt.baseline) base.emplace(setting(r), &r);
  }
  if (base.empty()) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throw InputError("--baseline", 0, opt.baseline, "no run of this policy in these folders (their policies: " + known + ")");
  }
  struct Group {
    std::vector<std::string> key;
    std::vector<std::vector<double>> ratios;  // per metric, per seed
  };
  std::vector<Group> groups;
  int unpaired = 0;
  for (const auto& r : rows) {
    if (policy_of(r) == opt.baseline) continue;
    const auto b = base.find(setting(r));
    if (b == base.end()) {
      ++unpaired;
      continue;
    }
    std::vector<std::string> key = {r.source};
    for (const auto& p : params) key.push_back(param_of(r, p));
    key.push_back(policy_of(r));
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.key == key; });
    if (g == groups.end()) g = groups.insert(groups.end(), Group{key, std::vector<std::vector<double>>(metrics.size())});
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      const auto x = number(r.summary, metrics[i]), y = number(b->second->summary, metrics[i]);
      if (x && y && *y > 0) g->ratios[i].push_back(*x / *y);
    }
  }
  std::vector<std::string> header = {"source"};
  header.insert(header.end(), params.begin(), params.end());
  header.insert(header.end(), {"policy", "seeds"});
  const std::size_t left = header.size() - 1;
  std::vector<std::string> csv_header = header;
  for (const auto& m : metrics) {
    header.insert(header.end(), {m + " ratio", "below 1"});
    for (const char* c : {"_ratio", "_ratio_ci95", "_ratio_min", "_ratio_max", "_below_1"}) csv_header.push_back(m + c);
  }
  std::vector<std::vector<std::string>> table, csv_table;
  const auto r3 = [](double x) { return std::isnan(x) ? std::string() : fmt::format("{:.3f}", x); };
  for (const auto& g : groups) {
    std::vector<std::string> line = g.key, full = g.key;
    std::size_t seeds = 0;
    for (const auto& v : g.ratios) seeds = std::max(seeds, v.size());
    line.push_back(std::to_string(seeds));
    full.push_back(std::to_string(seeds));
    for (const auto& v : g.ratios) {
      const auto [m, hw] = mean_ci(v);
      const auto below = std::count_if(v.begin(), v.end(), [](double x) { return x < 1; });
      line.push_back(std::isnan(hw) ? r3(m) : r3(m) + " ± " + r3(hw));
      line.push_back(v.empty() ? "" : fmt::format("{}/{}", below, v.size()));
      full.push_back(std::isnan(m) ? "" : fmt::format("{}", m));
      full.push_back(std::isnan(hw) ? "" : fmt::format("{}", hw));
      full.push_back(v.empty() ? "" : fmt::format("{}", *std::min_element(v.begin(), v.end())));
      full.push_back(v.empty() ? "" : fmt::format("{}", *std::max_element(v.begin(), v.end())));
      full.push_back(std::to_string(below));
    }
    table.push_back(std::move(line));
    csv_table.push_back(std::move(full));
  }
  const Rendered out = render(header, table, csv_header, csv_table, left);
  t.paired_text = out.text;
  t.paired_csv = out.csv;
  const std::string caption = "against " + opt.baseline + ": each run's metric over " + opt.baseline +
                              "'s with the same parameters and seed (below 1: smaller than the baseline's), the "
                              "mean ratio over the seeds ± the half-width of its 95 % confidence interval (Student's t)";
  t.paired_caption = caption + (unpaired ? fmt::format("; {} run(s) without a baseline run of the same setting left out",
                                                       unpaired)
                                         : "");
  t.markdown += "\n" + t.paired_caption + ":\n\n" + out.markdown;
}

}  // namespace

CompareTable compare_table(const std::vector<std::string>& dirs, const CompareOptions& opt) {
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
    for (const auto& r : rows) values.insert(param_of(r, p));
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
  const auto who = [&](const RunRow& r) {
    std::vector<std::string> v;
    for (const char* w : kWho)  // a labelled policy by its label (--policy LABEL=SPEC, a Python class's name)
      v.push_back(std::string(w) == "policy" ? policy_of(r) : cell(r.summary, w));
    return v;
  };
  CompareTable t;
  std::vector<std::string> execs, perfs;
  for (const auto& r : rows) {
    const std::string e = cell(r.summary, "exec"), pm = cell(r.summary, "perf_model");
    if (std::find(execs.begin(), execs.end(), e) == execs.end()) execs.push_back(e);
    if (std::find(perfs.begin(), perfs.end(), pm) == perfs.end()) perfs.push_back(pm);
  }
  const auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + (x.empty() ? std::string("(none)") : x);
    return s;
  };
  if (execs.size() > 1) t.mixed += "execution models " + join(execs);
  if (perfs.size() > 1) t.mixed += (t.mixed.empty() ? "" : "; ") + std::string("performance models ") + join(perfs);

  std::vector<std::string> header, csv_header;
  std::vector<std::vector<std::string>> table, csv_table;
  if (!opt.ci) {
    header = {"run"};
    header.insert(header.end(), params.begin(), params.end());
    header.insert(header.end(), std::begin(kWho), std::end(kWho));
    header.insert(header.end(), figures.begin(), figures.end());
    csv_header = header;
    for (const auto& r : rows) {
      std::vector<std::string> line = {r.run};
      for (const auto& p : params) line.push_back(param_of(r, p));
      const auto w = who(r);
      line.insert(line.end(), w.begin(), w.end());
      std::vector<std::string> full = line;  // the CSV's row: every digit
      for (const auto& f : figures) {
        line.push_back(cell(r.summary, f.c_str()));
        full.push_back(cell(r.summary, f.c_str(), true));
      }
      csv_table.push_back(std::move(full));
      table.push_back(std::move(line));
    }
    const Rendered out = render(header, table, csv_header, csv_table, header.size() - figures.size());
    t.text = out.text, t.csv = out.csv, t.markdown = out.markdown;
  } else {
    // --ci: the runs that differ only in their seed pooled into one row: each figure's mean over the seeds and the
    // half-width of its 95 % confidence interval (Student's t), "mean ± half-width"; the CSV has both columns.
    std::erase(params, std::string("seed"));
    std::vector<std::pair<std::vector<std::string>, std::vector<const RunRow*>>> groups;
    for (const auto& r : rows) {
      std::vector<std::string> key = {r.source};
      for (const auto& p : params) key.push_back(param_of(r, p));
      const auto w = who(r);
      key.insert(key.end(), w.begin(), w.end());
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
      if (it == groups.end()) groups.push_back({key, {&r}});
      else it->second.push_back(&r);
    }
    header = {"source"};
    header.insert(header.end(), params.begin(), params.end());
    header.insert(header.end(), std::begin(kWho), std::end(kWho));
    header.push_back("seeds");
    const std::size_t left = header.size() - 1;
    csv_header = header;
    header.insert(header.end(), figures.begin(), figures.end());
    for (const auto& f : figures) csv_header.insert(csv_header.end(), {f, f + "_ci95"});
    for (const auto& [key, members] : groups) {
      std::vector<std::string> line = key;
      line.push_back(std::to_string(members.size()));
      std::vector<std::string> full = line;
      for (const auto& f : figures) {
        std::vector<double> v;
        for (const RunRow* r : members)
          if (const auto x = number(r->summary, f)) v.push_back(*x);
        const auto [m, hw] = mean_ci(v);
        line.push_back(std::isnan(m) ? "" : std::isnan(hw) ? shown(m) : shown(m) + " ± " + shown(hw));
        full.push_back(std::isnan(m) ? "" : fmt::format("{}", m));
        full.push_back(std::isnan(hw) ? "" : fmt::format("{}", hw));
      }
      table.push_back(std::move(line));
      csv_table.push_back(std::move(full));
    }
    const Rendered out = render(header, table, csv_header, csv_table, left);
    t.text = out.text, t.csv = out.csv, t.markdown = out.markdown;
    t.notes.push_back("rows: runs that differ only in their seed pooled; each figure is the mean over the seeds ± the "
                      "half-width of its 95 % confidence interval (Student's t); no interval for one seed");
  }
  t.rows = static_cast<int>(table.size());
  if (!opt.baseline.empty()) paired_table(rows, params, opt, t);
  if (!t.mixed.empty()) t.markdown += "\nThese rows mix " + t.mixed + ": their figures come from different models.\n";
  return t;
}

}  // namespace rm
