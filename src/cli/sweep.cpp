#include "cli/sweep.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "workload/parse_util.h"
#include "workload/strict_json.h"

namespace rm::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kUsage = R"(ringmaster sweep: a grid of `simulate` runs, K at a time, resumable.

  ringmaster sweep --cluster C (--trace T | --workload W) --policy P1 --policy P2 ... [--load 0.5:0.9:0.1]
                   [--seeds 1-5] [any simulate option, repeated or as a range a:b:step] [-j K] --out DIR
  ringmaster sweep ... --slurm-array DIR [--partition P] [--array-limit M] [--chunk C]
  ringmaster sweep --grid grid.json [-j K] --out DIR
  ringmaster sweep --merge DIR

Every simulate option may be given several times (one grid axis per option) or as an inclusive range
a:b:step. --load L: a trace's arrivals sped up L times (simulate --arrival-scale 1/L); a workload's own
--load. --seeds: 1-5 or 1,3,7 (simulate --seed). -j K: runs at a time (default: all cores).
Writes DIR/runs/NNNNN/ (each run's outputs) and DIR/results.csv (one row per run: the grid's parameters,
status, and every summary.json key). Re-run with the same arguments, it skips the runs already complete.
--slurm-array DIR writes DIR/grid.json and DIR/sweep.sbatch (one array task per C cells) instead of running;
--merge DIR gathers the finished runs of DIR into DIR/results.csv. --grid FILE runs any list of runs instead of
a product: {"cells": [{"index": 0, "params": [["name", "value"], ...], "args": [simulate arguments]}, ...]}.
)";

std::string trim_number(double v) {
  if (std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<long long>(std::round(v)));
  std::string s = fmt::format("{:.10g}", v);
  return s;
}

bool parse_double(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(v);
}

std::vector<std::string> split(const std::string& s, char c) {
  std::vector<std::string> out(1);
  for (char ch : s) {
    if (ch == c) out.emplace_back();
    else out.back() += ch;
  }
  return out;
}

// The sweep's own options, taken out of the arguments; the rest is simulate's.
struct SweepOptions {
  int parallel = 0;
  std::string out, slurm_array, merge, grid_file, partition;
  int task = -1, array_limit = 0, chunk = 1;
  bool quiet = false, help = false;
  std::vector<std::string> sim_args;
};

SweepOptions parse_sweep_options(const std::vector<std::string>& args) {
  SweepOptions o;
  const auto value = [&](std::size_t& i) -> const std::string& {
    if (i + 1 >= args.size()) throw InputError("sweep", 0, args[i], "needs a value");
    return args[++i];
  };
  const auto integer = [&](std::size_t& i, int lo) {
    const std::string name = args[i];
    double v = 0;
    if (!parse_double(value(i), v) || v != std::floor(v) || v < lo)
      throw InputError("sweep", 0, name, "'" + args[i] + "' is not an integer >= " + std::to_string(lo));
    return static_cast<int>(v);
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-j" || a == "--parallel") o.parallel = integer(i, 1);
    else if (a == "--out") o.out = value(i);
    else if (a == "--slurm-array") o.slurm_array = value(i);
    else if (a == "--merge") o.merge = value(i);
    else if (a == "--grid") o.grid_file = value(i);
    else if (a == "--task") o.task = integer(i, 0);
    else if (a == "--partition") o.partition = value(i);
    else if (a == "--array-limit") o.array_limit = integer(i, 0);
    else if (a == "--chunk") o.chunk = integer(i, 1);
    else if (a == "-q" || a == "--quiet") o.quiet = true;
    else if (a == "-h" || a == "--help") o.help = true;
    else o.sim_args.push_back(a);
  }
  return o;
}

std::string scalar(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

void write_atomic(const fs::path& p, const std::string& text) {
  const fs::path tmp = p.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc | std::ios::binary);
    f << text;
    if (!f) throw InputError(tmp.string(), 0, "", "cannot write");
  }
  fs::rename(tmp, p);
}

fs::path run_dir(const fs::path& out, int index) { return out / "runs" / fmt::format("{:05d}", index); }

json cell_json(const Cell& c) {
  json p = json::array();
  for (const auto& [k, v] : c.params) p.push_back({k, v});
  return {{"index", c.index}, {"params", p}, {"args", c.args}};
}

Cell cell_of(const json& j) {
  Cell c;
  c.index = j.at("index").get<int>();
  for (const auto& p : j.at("params")) c.params.push_back({p.at(0).get<std::string>(), p.at(1).get<std::string>()});
  c.args = j.at("args").get<std::vector<std::string>>();
  return c;
}

// Whether a run's folder holds a complete run of exactly these arguments: its marker and every output a run writes
// (a run whose jobs.csv or timeseries.csv went missing is run again).
bool complete(const fs::path& out, const Cell& c) {
  const fs::path done = run_dir(out, c.index) / "cell.json";
  for (const char* f : {"summary.json", "jobs.csv", "timeseries.csv"}) {
    // present, and not cut short: a file a killed run left empty or mid-line is redone
    const fs::path p = run_dir(out, c.index) / f;
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    if (ec || size == 0) return false;
    std::ifstream in(p, std::ios::binary);
    in.seekg(-1, std::ios::end);
    char last = 0;
    if (!in.get(last) || last != '\n') return false;
  }
  if (!fs::exists(done)) return false;
  try {  // a damaged run (a cell file or summary that does not parse) is run again
    const json j = parse_json_file(done.string(), "sweep cell file");
    parse_json_file((run_dir(out, c.index) / "summary.json").string(), "summary.json");
    return j.at("args").get<std::vector<std::string>>() == c.args;
  } catch (const std::exception&) {
    return false;
  }
}

// Runs `self simulate ARGS --out DIR -q` with stderr to DIR/stderr.txt; the child dies with its parent
// thread's process (PR_SET_PDEATHSIG), so a killed sweep leaves no run going on behind it. Returns the
// exit status (128 + signal when killed).
int spawn_simulate(const std::string& self, const Cell& c, const fs::path& dir) {
  fs::create_directories(dir);
  std::vector<std::string> argv = {self, "simulate"};
  argv.insert(argv.end(), c.args.begin(), c.args.end());
  argv.insert(argv.end(), {"--out", dir.string(), "-q"});
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  const std::string err = (dir / "stderr.txt").string();
  const pid_t parent = getpid();
  // vfork: the child borrows the parent's memory until it execs, so a run costs the sweep no page-table copy
  // (fork's share of a sweep of short runs); the child makes only system calls before execv or _exit.
  const pid_t pid = vfork();
  if (pid < 0) return 127;
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    const int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) dup2(fd, 2);
    if (null >= 0) dup2(null, 1);
    execv(cargv[0], cargv.data());
    _exit(127);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

std::string last_lines(const fs::path& p, int n) {
  std::ifstream f(p);
  std::vector<std::string> lines;
  std::string l;
  while (std::getline(f, l))
    if (!l.empty()) lines.push_back(l);
  std::string s;
  for (std::size_t i = lines.size() > static_cast<std::size_t>(n) ? lines.size() - n : 0; i < lines.size(); ++i)
    s += (s.empty() ? "" : " | ") + lines[i];
  return s;
}

// Runs one cell and records its outcome: cell.json when complete, failed.json otherwise. Returns whether it
// completed.
bool run_cell(const std::string& self, const fs::path& out, const Cell& c, std::string* error) {
  const fs::path dir = run_dir(out, c.index);
  fs::remove(dir / "cell.json");
  fs::remove(dir / "failed.json");
  const int st = spawn_simulate(self, c, dir);
  if (st == 0 && fs::exists(dir / "summary.json")) {
    write_atomic(dir / "cell.json", cell_json(c).dump(1) + "\n");
    return true;
  }
  const std::string why = fmt::format("exit status {}: {}", st, last_lines(dir / "stderr.txt", 3));
  json f = cell_json(c);
  f["status"] = st;
  f["error"] = why;
  write_atomic(dir / "failed.json", f.dump(1) + "\n");
  if (error) *error = why;
  return false;
}

std::string params_text(const Cell& c) {
  std::string s;
  for (const auto& [k, v] : c.params) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

// DIR/results.csv from the runs of the grid: one row per cell in grid order, the swept parameters, status
// (ok | failed | missing), error, then every summary.json key (nested objects as parent.key), columns in order
// of first appearance. Returns {complete, failed, missing}.
std::array<int, 3> write_results(const fs::path& out, const std::vector<Cell>& cells) {
  std::vector<std::string> axes;
  for (const auto& c : cells)
    for (const auto& [k, v] : c.params)
      if (std::find(axes.begin(), axes.end(), k) == axes.end()) axes.push_back(k);
  std::vector<std::string> keys;
  std::vector<std::map<std::string, std::string>> rows;
  std::array<int, 3> n{0, 0, 0};
  for (const auto& c : cells) {
    std::map<std::string, std::string> r;
    for (const auto& [k, v] : c.params) r["param:" + k] = v;
    const fs::path dir = run_dir(out, c.index);
    if (complete(out, c)) {
      r["status"] = "ok";
      ++n[0];
      const json s = parse_json_file((dir / "summary.json").string(), "summary.json");
      for (const auto& [k, v] : s.items()) {
        const auto add = [&](const std::string& key, const json& x) {
          if (std::find(axes.begin(), axes.end(), key) != axes.end()) return;  // the swept value is its column
          if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
          r[key] = scalar(x);
        };
        if (v.is_object()) {
          for (const auto& [k2, v2] : v.items()) add(k + "." + k2, v2);
        } else {
          add(k, v);
        }
      }
    } else if (fs::exists(dir / "failed.json")) {
      r["status"] = "failed";
      ++n[1];
      try {
        std::ifstream f(dir / "failed.json");
        r["error"] = json::parse(f).value("error", "");
      } catch (const std::exception&) {
        r["error"] = "unreadable failed.json";
      }
    } else {
      r["status"] = "missing";
      ++n[2];
    }
    rows.push_back(std::move(r));
  }
  std::string text;
  for (const auto& a : axes) text += csv_field(a) + ",";
  text += "status,error";
  for (const auto& k : keys) text += "," + csv_field(k);
  text += "\n";
  for (const auto& r : rows) {
    const auto get = [&](const std::string& k) {
      const auto it = r.find(k);
      return it == r.end() ? std::string() : csv_field(it->second);
    };
    for (const auto& a : axes) text += get("param:" + a) + ",";
    text += get("status") + "," + get("error");
    for (const auto& k : keys) text += "," + get(k);
    text += "\n";
  }
  write_atomic(out / "results.csv", text);
  return n;
}

// Progress on stderr: one rewritten line on a terminal, a plain line every 5 s (and at the end) otherwise.
class Progress {
 public:
  Progress(int total, int skipped, bool quiet)
      : total_(total), skipped_(skipped), quiet_(quiet), tty_(isatty(STDERR_FILENO) != 0),
        t0_(std::chrono::steady_clock::now()), last_(t0_) {}
  void show(int done, int failed, bool final) {
    if (quiet_) return;
    const auto now = std::chrono::steady_clock::now();
    if (!final && !tty_ && now - last_ < std::chrono::seconds(5)) return;
    last_ = now;
    const double el = std::chrono::duration<double>(now - t0_).count();
    const int ran = done - skipped_;
    const double rate = el > 0 ? ran / el : 0;
    const double eta = rate > 0 ? (total_ - done) / rate : 0;
    const std::string line =
        fmt::format("sweep: {}/{} runs ({} skipped as complete, {} failed), {:.2f} runs/s, {:.0f} s elapsed, ETA {:.0f} s",
                    done, total_, skipped_, failed, rate, el, eta);
    if (tty_) std::fprintf(stderr, "\r\033[K%s%s", line.c_str(), final ? "\n" : "");  // cleared to the end: no residue
    else std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  }

 private:
  int total_, skipped_;
  bool quiet_, tty_;
  std::chrono::steady_clock::time_point t0_, last_;
};

std::vector<Cell> read_grid(const fs::path& p) {
  std::ifstream f(p);
  if (!f) throw InputError(p.string(), 0, "", "no grid file (written by sweep --slurm-array)");
  json j;
  try {
    j = json::parse(f);
  } catch (const std::exception& e) {
    throw InputError(p.string(), 0, "", std::string("unreadable grid: ") + e.what());
  }
  std::vector<Cell> cells;
  try {
    for (const auto& c : j.at("cells")) cells.push_back(cell_of(c));
  } catch (const std::exception& e) {
    throw InputError(p.string(), 0, "cells", std::string("each cell needs index, params [[name, value], ...] and args: ") + e.what());
  }
  for (std::size_t i = 0; i < cells.size(); ++i)
    if (cells[i].index != static_cast<int>(i))
      throw InputError(p.string(), static_cast<long>(i + 1), "index", "cells must be numbered 0, 1, 2, ... in order");
  return cells;
}

void write_grid(const fs::path& out, const std::vector<Cell>& cells) {
  json j;
  j["cells"] = json::array();
  for (const auto& c : cells) j["cells"].push_back(cell_json(c));
  fs::create_directories(out);
  write_atomic(out / "grid.json", j.dump(1) + "\n");
}

// Runs that differ only in their seed and gave byte-identical jobs.csv: the seed changes nothing there (a trace with
// its own models, no random placement or sampled predictor). Said once per such group, not silently averaged over.
void warn_seeds_that_change_nothing(const fs::path& out, const std::vector<Cell>& cells) {
  std::map<std::string, std::vector<std::pair<std::string, std::size_t>>> groups;  // other params -> (seed, hash)
  for (const auto& c : cells) {
    std::string seed, rest;
    for (const auto& [k, v] : c.params) {
      if (k == "seed") seed = v;
      else rest += k + "=" + v + " ";
    }
    if (seed.empty() || !complete(out, c)) continue;
    std::ifstream f(run_dir(out, c.index) / "jobs.csv", std::ios::binary);
    std::ostringstream text;
    text << f.rdbuf();
    groups[rest].push_back({seed, std::hash<std::string>{}(text.str())});
  }
  for (const auto& [rest, runs] : groups) {
    if (runs.size() < 2) continue;
    bool same = true;
    std::string seeds;
    for (const auto& [seed, h] : runs) {
      same = same && h == runs.front().second;
      seeds += (seeds.empty() ? "" : ",") + seed;
    }
    if (same)
      std::cerr << fmt::format("sweep: warning: seeds {} gave identical jobs.csv{}: the seed changes nothing in these "
                               "runs (no random placement, generated workload, assigned models or sampled predictor), "
                               "so their spread is not a confidence interval\n",
                               seeds, rest.empty() ? "" : " for " + rest.substr(0, rest.size() - 1));
  }
}

int report(const fs::path& out, const std::vector<Cell>& cells, bool quiet) {
  const auto n = write_results(out, cells);
  for (const auto& c : cells) {
    const fs::path f = run_dir(out, c.index) / "failed.json";
    if (!complete(out, c) && fs::exists(f)) {
      std::ifstream in(f);
      std::cerr << fmt::format("sweep: run {} failed ({}): {}\n", c.index, params_text(c),
                               json::parse(in).value("error", ""));
    }
  }
  warn_seeds_that_change_nothing(out, cells);
  if (!quiet)
    std::cerr << fmt::format("sweep: {} complete, {} failed, {} missing; {}\n", n[0], n[1], n[2],
                             (out / "results.csv").string());
  return n[1] + n[2] > 0 ? 1 : 0;
}

}  // namespace

std::vector<std::string> expand_values(const std::string& option, const std::string& value) {
  if (option == "--seeds") {
    std::vector<std::string> out;
    for (const auto& part : split(value, ',')) {
      const auto dash = part.find('-', 1);
      double a = 0, b = 0;
      if (dash != std::string::npos && parse_double(part.substr(0, dash), a) && parse_double(part.substr(dash + 1), b)) {
        if (a != std::floor(a) || b != std::floor(b) || a < 0 || b < a || b - a > 1e6)
          throw InputError("sweep", 0, "--seeds", "'" + part + "' is not a range of seeds a-b with 0 <= a <= b");
        for (long long s = static_cast<long long>(a); s <= static_cast<long long>(b); ++s) out.push_back(std::to_string(s));
      } else if (parse_double(part, a) && a == std::floor(a) && a >= 0) {
        out.push_back(trim_number(a));
      } else {
        throw InputError("sweep", 0, "--seeds", "'" + part + "' is not a seed, a range a-b or a list a,b,c");
      }
    }
    return out;
  }
  const auto parts = split(value, ':');
  double a = 0, b = 0, step = 0;
  if (parts.size() == 3 && parse_double(parts[0], a) && parse_double(parts[1], b) && parse_double(parts[2], step)) {
    if (!(step > 0) || b < a || (b - a) / step > 1e6)
      throw InputError("sweep", 0, option, "'" + value + "': a range a:b:step needs a <= b and step > 0");
    std::vector<std::string> out;
    for (long long i = 0;; ++i) {
      const double v = a + i * step;
      if (v > b + step * 1e-9) break;
      out.push_back(trim_number(std::round(v * 1e9) / 1e9));
    }
    return out;
  }
  if (option == "--load" && value.find(',') != std::string::npos) {
    std::vector<std::string> out;
    for (const auto& p : split(value, ',')) {
      if (!parse_double(p, a) || !(a > 0)) throw InputError("sweep", 0, "--load", "'" + p + "' is not a load > 0");
      out.push_back(p);
    }
    return out;
  }
  if (option == "--load" && (!parse_double(value, a) || !(a > 0)))
    throw InputError("sweep", 0, "--load", "'" + value + "' is not a load > 0, a list a,b or a range a:b:step");
  return {value};
}

std::vector<Cell> expand_grid(const std::vector<std::string>& args, const std::vector<SimOption>& sim_options) {
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;  // option -> values, in order given
  std::vector<std::string> flags;
  bool workload = false, arrival_scale = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string name = a, inline_value;
    bool has_inline = false;
    if (const auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = a.substr(0, eq);
      inline_value = a.substr(eq + 1);
      has_inline = true;
    }
    const bool own = name == "--load" || name == "--seeds";
    const auto it = std::find_if(sim_options.begin(), sim_options.end(), [&](const SimOption& o) { return o.name == name; });
    if (!own && it == sim_options.end())
      throw InputError("sweep", 0, a,
                       "unknown option (sweep takes simulate's options, --load, --seeds, -j, --out, --slurm-array, "
                       "--partition, --array-limit, --chunk, --merge; `ringmaster sweep --help`)");
    if (!own && name == "--out") throw InputError("sweep", 0, a, "give the output folder as `--out DIR`");
    if (!own && !it->takes_value) {
      if (std::find(flags.begin(), flags.end(), name) == flags.end()) flags.push_back(name);
      continue;
    }
    std::string v;
    if (has_inline) {
      v = inline_value;
    } else {
      if (i + 1 >= args.size()) throw InputError("sweep", 0, name, "needs a value");
      v = args[++i];
    }
    if (name == "--workload") workload = true;
    if (name == "--arrival-scale") arrival_scale = true;
    auto ax = std::find_if(axes.begin(), axes.end(), [&](const auto& x) { return x.first == name; });
    if (ax == axes.end()) ax = axes.insert(axes.end(), {name, {}});
    for (auto& x : expand_values(name, v)) ax->second.push_back(std::move(x));
  }
  for (const auto& [name, vals] : axes) {
    std::set<std::string> seen;
    for (const auto& v : vals)
      if (!seen.insert(v).second) throw InputError("sweep", 0, name, "value '" + v + "' given twice");
  }
  if (!workload && arrival_scale &&
      std::any_of(axes.begin(), axes.end(), [](const auto& x) { return x.first == "--load"; }))
    throw InputError("sweep", 0, "--load", "a trace's --load sets its arrival rate (to that offered load), as "
                     "--arrival-scale does: give one of them");
  // Grid order: the axes as first given, the last one fastest.
  std::vector<Cell> cells;
  std::vector<std::size_t> at(axes.size(), 0);
  for (int index = 0;; ++index) {
    Cell c;
    c.index = index;
    for (std::size_t k = 0; k < axes.size(); ++k) {
      const std::string& name = axes[k].first;
      const std::string& v = axes[k].second[at[k]];
      c.params.push_back({name.substr(2), v});
      if (name == "--seeds") {
        c.args.insert(c.args.end(), {"--seed", v});
      } else {
        c.args.insert(c.args.end(), {name, v});
      }
    }
    for (auto& p : c.params)
      if (p.first == "seeds") p.first = "seed";
    c.args.insert(c.args.end(), flags.begin(), flags.end());
    cells.push_back(std::move(c));
    std::size_t k = axes.size();
    while (k > 0) {
      --k;
      if (++at[k] < axes[k].second.size()) break;
      at[k] = 0;
      if (k == 0) return cells;
    }
    if (axes.empty()) return cells;
  }
}

namespace {

// One array task: the cells of chunk --task.
int run_array_task(const SweepOptions& o, const std::string& self) {
  const fs::path grid = o.grid_file;
  const fs::path out = o.out.empty() ? grid.parent_path() : fs::path(o.out);
  const auto cells = read_grid(grid);
  int failed = 0;
  for (std::size_t i = static_cast<std::size_t>(o.task) * o.chunk;
       i < cells.size() && i < static_cast<std::size_t>(o.task + 1) * o.chunk; ++i) {
    if (complete(out, cells[i])) continue;
    std::string err;
    if (!run_cell(self, out, cells[i], &err)) {
      ++failed;
      std::cerr << fmt::format("sweep: run {} failed ({}): {}\n", cells[i].index, params_text(cells[i]), err);
    }
  }
  return failed > 0 ? 1 : 0;
}

// The grid as a Slurm job array: grid.json, sweep.sbatch and a logs folder.
int write_slurm_array(const SweepOptions& o, const std::vector<Cell>& cells, const std::string& self) {
  const fs::path out = fs::absolute(o.slurm_array);
  write_grid(out, cells);
  fs::create_directories(out / "logs");
  const int tasks = static_cast<int>((cells.size() + o.chunk - 1) / o.chunk);
  std::string s = "#!/bin/bash\n# ringmaster sweep as a Slurm job array: " + std::to_string(cells.size()) + " runs, " +
                  std::to_string(o.chunk) + " per task. Submit with `sbatch " + (out / "sweep.sbatch").string() +
                  "`,\n# then gather the results with `ringmaster sweep --merge " + out.string() + "`.\n";
  s += "#SBATCH --job-name=ringmaster-sweep\n";
  s += fmt::format("#SBATCH --array=0-{}{}\n", tasks - 1, o.array_limit > 0 ? "%" + std::to_string(o.array_limit) : "");
  s += "#SBATCH --cpus-per-task=1\n";
  s += "#SBATCH --output=" + (out / "logs" / "%A_%a.out").string() + "\n";
  if (!o.partition.empty()) s += "#SBATCH --partition=" + o.partition + "\n";
  s += fmt::format("exec '{}' sweep --grid '{}' --task \"$SLURM_ARRAY_TASK_ID\" --chunk {} --out '{}'\n", self,
                   (out / "grid.json").string(), o.chunk, out.string());
  write_atomic(out / "sweep.sbatch", s);
  fs::permissions(out / "sweep.sbatch", fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
  std::cout << fmt::format("{} runs in {} array tasks: sbatch {}\nthen: {} sweep --merge {}\n", cells.size(), tasks,
                           (out / "sweep.sbatch").string(), self, out.string());
  return 0;
}

// K runs at a time as child processes, resumable, with a progress line; then the report.
int run_local(const SweepOptions& o, const std::vector<Cell>& cells, const std::string& self) {
  const fs::path out = o.out;
  fs::create_directories(out);
  // One sweep per folder at a time (two would run the same cells over each other).
  const int lock = ::open((out / "sweep.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  // Released when this sweep returns, not when the process ends: ringmaster.sweep() twice on one folder in one
  // Python process (a notebook cell run again) found its own first lock held (issue 46).
  struct Unlock {
    int fd;
    ~Unlock() {
      if (fd >= 0) ::close(fd);
    }
  } unlock{lock};
  if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) != 0)
    throw InputError(out.string(), 0, "--out", "another sweep is running in this folder (sweep.lock)");
  write_grid(out, cells);
  std::vector<int> todo;
  for (const auto& c : cells)
    if (!complete(out, c)) todo.push_back(c.index);
  const int skipped = static_cast<int>(cells.size() - todo.size());
  const int k = std::max(1, o.parallel > 0 ? o.parallel : static_cast<int>(std::thread::hardware_concurrency()));
  std::atomic<std::size_t> next{0};
  std::atomic<int> done{skipped}, failed{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < std::min<int>(k, static_cast<int>(todo.size())); ++w)
    workers.emplace_back([&] {
      for (std::size_t i; (i = next++) < todo.size();) {
        try {
          if (!run_cell(self, out, cells[todo[i]], nullptr)) ++failed;
        } catch (const std::exception& e) {  // the run's folder could not be written: a failed run, not a crash
          std::cerr << fmt::format("sweep: run {}: {}\n", todo[i], e.what());
          ++failed;
        }
        ++done;
      }
    });
  Progress bar(static_cast<int>(cells.size()), skipped, o.quiet);
  while (done < static_cast<int>(cells.size())) {
    bar.show(done, failed, false);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  for (auto& t : workers) t.join();
  bar.show(done, failed, true);
  const int status = report(out, cells, o.quiet);
  if (!o.quiet) {  // what the sweep itself cost next to its runs (CPU seconds)
    rusage self{}, kids{};
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    const auto secs = [](const rusage& r) {
      return r.ru_utime.tv_sec + r.ru_stime.tv_sec + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
    };
    std::cerr << fmt::format("sweep: CPU {:.2f} s in the runs, {:.3f} s in the sweep itself ({:.1f} %)\n", secs(kids),
                             secs(self), secs(kids) > 0 ? 100 * secs(self) / secs(kids) : 0.0);
  }
  return status;
}
}  // namespace

int run(const std::vector<std::string>& args, const std::vector<SimOption>& sim_options, const std::string& self) {
  const SweepOptions o = parse_sweep_options(args);
  if (o.help) {
    std::cout << kUsage;
    return 0;
  }
  if (!o.merge.empty()) {
    const fs::path out = o.merge;
    return report(out, read_grid(out / "grid.json"), o.quiet);
  }
  if (!o.grid_file.empty() && o.task >= 0) return run_array_task(o, self);
  if (!o.grid_file.empty() && !o.sim_args.empty())
    throw InputError("sweep", 0, o.sim_args.front(), "a --grid file is the whole grid: no simulate options beside it");
  // The grid: from the options, or a grid file (any list of runs, e.g. a script's irregular set of cells).
  const auto cells = o.grid_file.empty() ? expand_grid(o.sim_args, sim_options) : read_grid(o.grid_file);
  if (!o.slurm_array.empty()) return write_slurm_array(o, cells, self);
  if (o.out.empty()) throw InputError("sweep", 0, "--out", "name an output directory");
  return run_local(o, cells, self);
}

}  // namespace rm::sweep
