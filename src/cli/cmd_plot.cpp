// `ringmaster plot`: figures from sweep/simulate/replay folders (the bundled plot.py under python3-matplotlib).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/subcommand.h"
#include "core/embedded_data.h"
#include "core/error.h"
#include "live/command.h"
#include "workload/parse_util.h"

namespace rm::cli {
namespace {

// `extra` holds the layout options (--where, --series-by, ...) passed through to the script, which checks them.
int run_plot(const std::vector<std::string>& dirs, const std::string& out, const std::string& format,
             const std::vector<std::string>& extra) {
  for (const auto& f : split_simple(format, ','))
    if (f != "png" && f != "svg" && f != "pdf") throw InputError("--format", 0, f, "png, svg or pdf (comma-separated)");
  const std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const auto probe = live::run_command({python, "-c", "import matplotlib"}, 60);
  if (!probe.ok())
    throw InputError("plot", 0, "python3-matplotlib",
                     "plot needs python3 with matplotlib: apt-get install python3-matplotlib (" + probe.err + ")");
  char tmpl[] = "/tmp/ringmaster-plot-XXXXXX.py";
  const int fd = mkstemps(tmpl, 3);
  if (fd < 0) throw InputError("plot", 0, "", "cannot create a temporary file for the plot script");
  const std::string_view text = embedded::get("plot.py");
  const bool wrote = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  std::vector<std::string> argv = {python, tmpl};
  argv.insert(argv.end(), dirs.begin(), dirs.end());
  argv.insert(argv.end(), {"--out", out, "--format", format});
  argv.insert(argv.end(), extra.begin(), extra.end());
  const auto r = wrote ? live::run_command(argv, 3600) : live::CommandResult{};
  std::filesystem::remove(tmpl);
  std::cout << r.out;
  std::cerr << r.err;
  if (!wrote) throw InputError("plot", 0, "", "cannot write the plot script");
  return r.ok() ? 0 : 2;
}

class Plot final : public Subcommand {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* plt = app.add_subcommand("plot", "figures from sweep/simulate/replay folders: JCT CDF, JCT vs load, utilisation "
                                           "and queue over time, GPU Gantt chart (PNG, SVG and PDF; python3-matplotlib)");
    plt->add_option("dirs", dirs_, "output folders of sweep, simulate or replay");
    plt->add_option("--out", out_, "folder for the figures");
    plt->add_flag("--list", list_, "list the figures (the names --only takes) and exit");
    plt->add_option("--format", format_, "png, svg and/or pdf, comma-separated")->capture_default_str();
    plt->add_option("--only,--figures", figures_,
                    "which figures, comma-separated (plot --list names them; default: all)");
    plt->add_option("--where", where_, "keep only runs with KEY=VALUE (a sweep parameter, folder, or policy.N: the "
                                       "N-th '+'-part of the policy); repeatable");
    plt->add_option("--series-by", series_, "one line per value of this key (as for --where)")->capture_default_str();
    plt->add_option("--panel-by", panel_, "one panel per value of this key (default: per load for the CDF)");
    plt->add_option("--rename", rename_, "OLD=NEW: the name shown for a series or panel value; repeatable");
    plt->add_option("--metrics", metrics_, "summary.json keys plotted against load")->capture_default_str();
    plt->add_flag("--log-y", log_y_, "logarithmic y axis for the metrics against load");
    plt->add_option("--load-label", load_label_, "x-axis label of the plots against load");
    plt->add_flag("--check-layout", check_layout_,
                  "an overlap in a figure's layout (a legend over data, texts over each other or cut off) is an "
                  "error, exit 2, not a warning");
    return plt;
  }
  int run() override {
    if (list_) {
      std::cout << "figures of `ringmaster plot` (--only NAME,NAME picks some; docs/sweep.md):\n";
      for (const auto& [name, what] : kFigures) std::cout << fmt::format("  {:<14} {}\n", name, what);
      return 0;
    }
    if (dirs_.empty()) throw InputError("plot", 0, "DIRS", "name the output folders to plot (or --list the figures)");
    if (out_.empty()) throw InputError("--out", 0, "", "name a folder for the figures");
    std::vector<std::string> extra = {"--series-by", series_, "--metrics", metrics_};
    if (!figures_.empty()) extra.insert(extra.end(), {"--figures", figures_});
    if (!panel_.empty()) extra.insert(extra.end(), {"--panel-by", panel_});
    if (!load_label_.empty()) extra.insert(extra.end(), {"--load-label", load_label_});
    if (log_y_) extra.push_back("--log-y");
    if (check_layout_) extra.push_back("--check-layout");
    for (const auto& w : where_) extra.insert(extra.end(), {"--where", w});
    for (const auto& r : rename_) extra.insert(extra.end(), {"--rename", r});
    return run_plot(dirs_, out_, format_, extra);
  }

 private:
  std::vector<std::string> dirs_, where_, rename_;
  std::string out_, format_ = "png,svg,pdf", series_ = "policy", panel_, metrics_ = "avg_jct_s,p50_jct_s,p99_jct_s", figures_,
              load_label_;
  bool log_y_ = false, list_ = false, check_layout_ = false;
  // What data/plot.py draws (its docstring says more).
  static constexpr std::pair<const char*, const char*> kFigures[] = {
      {"jct_cdf", "JCT CDF per policy, seeds pooled, one panel per load"},
      {"queue_cdf", "queueing delay (JCT minus run time) CDF per policy, one panel per load"},
      {"ftf_cdf", "finish-time fairness rho CDF per policy (1: as on its fair share), one panel per load"},
      {"jct_by_gpus", "mean JCT per GPU-count bucket (1, 2-4, 5-8, 9+), one bar per policy"},
      {"jct_vs_load", "average, median and p99 JCT against load: mean and 95 % CI over seeds (sweeps over --load)"},
      {"util_queue", "GPU utilisation and queue length over time, one line per policy"},
      {"elastic_gpus", "elastic runs: GPUs per elastic job over time, one panel per policy (mean and the most-changed jobs)"},
      {"gantt", "GPU occupancy per job, one panel per policy (a bounded sample of a large run, said in the caption)"},
  };
};

}  // namespace

std::unique_ptr<Subcommand> make_plot() { return std::make_unique<Plot>(); }

}  // namespace rm::cli
