// `ringmaster calibrate`: the analytic law's communication constants fitted on Pollux's and Gavel's measured
// step times, its error on them and, without refitting, on Sia's; the contention term against DeepShare's
// pairwise ratios (run/calibration.h). Prints markdown tables; --out DIR writes calibration.json and points.csv.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/subcommand.h"
#include "core/error.h"
#include "run/calibration.h"

namespace rm::cli {
namespace {

std::string gbps(double v) { return std::isinf(v) ? "free" : fmt::format("{:.3g} Gb/s", v); }
std::string pct(double v) { return fmt::format("{:.1f} %", 100 * v); }

void print_rows(const std::vector<ErrorRow>& rows) {
  std::cout << "| source | GPU type | application | placement | points | median abs error | p90 abs error | median error "
               "| median abs error, no communication |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : rows)
    std::cout << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", r.source, r.type, r.app, r.placement,
                             r.points, pct(r.median_abs), pct(r.p90_abs), pct(r.median), pct(r.median_abs_no_comm));
}

nlohmann::json rows_json(const std::vector<ErrorRow>& rows) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& r : rows)
    a.push_back({{"source", r.source}, {"gpu_type", r.type}, {"app", r.app}, {"placement", r.placement},
                 {"points", r.points}, {"median_abs_error", r.median_abs}, {"p90_abs_error", r.p90_abs},
                 {"median_error", r.median}, {"median_abs_error_no_comm", r.median_abs_no_comm}});
  return a;
}

void write_out(const std::string& dir, const CalibrationReport& r) {
  std::filesystem::create_directories(dir);
  nlohmann::json j;
  const auto num = [](double v) { return std::isinf(v) ? nlohmann::json("inf") : nlohmann::json(v); };
  j["constants"] = {{"intra_gbps", num(r.fitted.intra_gbps)}, {"net_gbps", r.fitted.net_gbps},
                    {"latency_us", r.fitted.latency_us}};
  j["totals"] = rows_json(r.totals);
  nlohmann::json refit = nlohmann::json::array();
  for (const auto& [c, e] : r.refit)
    refit.push_back({{"gpu_type", e.type}, {"intra_gbps", num(c.intra_gbps)}, {"net_gbps", c.net_gbps},
                     {"latency_us", c.latency_us}, {"median_abs_error", e.median_abs}, {"p90_abs_error", e.p90_abs}});
  j["sia_refitted"] = refit;
  j["groups"] = rows_json(r.rows);
  nlohmann::json c = nlohmann::json::array();
  for (const auto& x : r.contention)
    c.push_back({{"model", x.model}, {"g", x.g}, {"test_pairs", x.test_pairs}, {"median_abs_error", x.median_abs},
                 {"p90_abs_error", x.p90_abs}, {"median_abs_error_no_contention", x.median_abs_no_contention}});
  j["contention"] = c;
  j["contention_total"] = {{"test_pairs", r.contention_total.test_pairs},
                           {"median_abs_error", r.contention_total.median_abs},
                           {"p90_abs_error", r.contention_total.p90_abs},
                           {"median_abs_error_no_contention", r.contention_total.median_abs_no_contention}};
  j["skipped"] = r.skipped;
  std::ofstream(dir + "/calibration.json") << j.dump(2) << "\n";
  std::ofstream p(dir + "/points.csv");
  p << "source,gpu_type,app,placement,local_bsz,grad_mb,single_s,measured_s,predicted_s,error\n";
  for (const auto& x : r.points) {
    std::string id;
    for (int g : x.m.shape) id += (id.empty() ? "" : "-") + std::to_string(g);
    p << fmt::format("{},{},{},{},{},{},{:.6g},{:.6g},{:.6g},{:.6f}\n", x.m.source, x.m.type, x.m.app, id, x.m.local_bsz,
                     x.grad_mb, x.m.single_s, x.m.step_s, x.predicted_s, x.error());
  }
  if (!p) throw InputError(dir, 0, "--out", "cannot write points.csv");
}

class Calibrate final : public Subcommand {
 public:
  CLI::App* add(CLI::App& app) override {
    CLI::App* c = app.add_subcommand(
        "calibrate", "fit the analytic law's communication constants on Pollux's and Gavel's tables; its error there, "
                     "on Sia's, and of its contention term on DeepShare's");
    c->add_option("--data-dir", data_dir_, "the measured tables (default ../shared/traces)");
    c->add_option("--out", out_, "write calibration.json and points.csv here");
    return c;
  }
  int run() override {
    if (!std::filesystem::is_directory(data_dir_))
      throw InputError("--data-dir", 0, data_dir_, "no such folder (the measured tables are read from it)");
    const CalibrationReport r = calibrate(data_dir_);
    std::size_t fit = 0;
    for (const auto& p : r.points) fit += p.m.source != "sia";
    std::cout << fmt::format("Constants fitted on Pollux's and Gavel's tables ({} multi-GPU steps): intra-server {}, "
                             "network {}, latency {} us per ring step\n\n",
                             fit, gbps(r.fitted.intra_gbps), gbps(r.fitted.net_gbps), r.fitted.latency_us);
    std::cout << "Per source and GPU type (sia: validation, not refitted)\n\n";
    print_rows(r.totals);
    std::cout << "\nDiagnosis: each Sia type refitted on its own steps (in sample)\n\n| GPU type | intra-server | network "
                 "| latency us | median abs error | p90 abs error |\n|---|---|---|---|---|---|\n";
    for (const auto& [c, e] : r.refit)
      std::cout << fmt::format("| {} | {} | {} | {} | {} | {} |\n", e.type, gbps(c.intra_gbps), gbps(c.net_gbps),
                               c.latency_us, pct(e.median_abs), pct(e.p90_abs));
    std::cout << "\nPer application and placement\n\n";
    print_rows(r.rows);
    std::cout << "\nContention (DeepShare, two multi-node jobs sharing nodes): g fitted per model on configurations 1, 3, "
                 "5; error on 2, 4, 6\n\n| model | g = f (1 + a) | test pairs | median abs error | p90 abs error | "
                 "median abs error, no contention |\n|---|---|---|---|---|---|\n";
    for (const auto& c : r.contention)
      std::cout << fmt::format("| {} | {:.3f} | {} | {} | {} | {} |\n", c.model, c.g, c.test_pairs, pct(c.median_abs),
                               pct(c.p90_abs), pct(c.median_abs_no_contention));
    const auto& t = r.contention_total;
    std::cout << fmt::format("| all | | {} | {} | {} | {} |\n", t.test_pairs, pct(t.median_abs), pct(t.p90_abs),
                             pct(t.median_abs_no_contention));
    for (const auto& s : r.skipped) std::cout << "skipped: " << s << "\n";
    if (!out_.empty()) write_out(out_, r);
    return 0;
  }

 private:
  std::string data_dir_ = "../shared/traces", out_;
};

}  // namespace

std::unique_ptr<Subcommand> make_calibrate() { return std::make_unique<Calibrate>(); }

}  // namespace rm::cli
