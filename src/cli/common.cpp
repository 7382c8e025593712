#include "cli/common.h"
#include "cli/subcommand.h"
#include "workload/parse_util.h"

#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <iostream>

#include "core/error.h"
#include "core/suggest.h"

namespace rm::cli {

CLI::Option* seed_check(CLI::Option* o) {
  return o->check(CLI::Validator(
      [](std::string& v) {
        return v.find_first_not_of("0123456789") == std::string::npos && !v.empty()
                   ? std::string()
                   : std::string("a seed is a whole number from 0 to 18446744073709551615, not '" + v + "'");
      },
      "SEED"));
}


const std::vector<std::string>& default_policies() {
  static const std::vector<std::string> v = {"fifo", "fifo-backfill", "sjf", "srtf", "srsf", "tiresias"};
  return v;
}

std::vector<RunPlan> plan_runs(SimConfig cfg, const std::vector<std::string>& policies, bool trace_given) {
  if (!cfg.workload.empty() && trace_given)
    throw InputError("--workload", 0, cfg.workload, "give either --trace or --workload, not both");
  std::vector<RunPlan> plans;
  std::set<std::string> seen;
  for (const auto& given : policies.empty() ? default_policies() : policies) {
    const auto [label, spec] = policy_label(given);
    // Two runs under one name would write one folder, the second over the first (or, with a seed, run the same
    // thing twice): refused by name; the same spec twice under two labels is fine.
    if (!seen.insert(label).second)
      throw InputError("--policy", 0, label, "given twice: each policy runs once (for repeats, sweep --seed; for the "
                                             "same spec twice, name each: --policy LABEL=SPEC)");
    cfg.policy = spec;
    plans.push_back(make_run_plan(cfg));
    plans.back().label = label;
  }
  return plans;
}

std::string replaced_model_note(const std::string& from, const std::string& to, const std::string& rule) {
  return "unknown model '" + from + "' simulated as '" + to + "' (--unknown-model " + rule + ")";
}

ProgressBar::ProgressBar(bool quiet, std::string label)
    : tty_(!quiet && isatty(STDERR_FILENO) != 0), label_(std::move(label)), t0_(std::chrono::steady_clock::now()) {}

void ProgressBar::update(const ProgressInfo& p) {
  if (!tty_) return;
  const auto now = std::chrono::steady_clock::now();
  const double el = std::chrono::duration<double>(now - t0_).count();
  if (el < 1.0 || now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const double frac = p.total > 0 ? static_cast<double>(p.done) / p.total : 0;
  const int w = 30, done = static_cast<int>(frac * w);
  const auto hms = [](double s) {
    return s >= 7200 ? fmt::format("{:.1f} h", s / 3600) : s >= 120 ? fmt::format("{:.1f} min", s / 60)
                                                                     : fmt::format("{:.0f} s", s);
  };
  std::string line = (label_.empty() ? "" : label_ + " ") +
                     fmt::format("[{}{}] {:5.1f}% {}/{} jobs, simulated {}", std::string(done, '#'),
                                 std::string(w - done, '.'), frac * 100, p.done, p.total, hms(p.sim_s));
  if (frac > 0.02) line += " of ~" + hms(p.sim_s / frac);
  if (p.events > 0) line += fmt::format(", {:.2g} events/s", p.events / el);
  line += fmt::format(", {:.1f} s", el);
  if (frac > 0.02 && frac < 1) line += ", ETA " + hms(el * (1 - frac) / frac);  // by the share of jobs done
  std::fprintf(stderr, "\r\033[K%s", line.c_str());  // a tty: the line cleared to its end, no residue
  shown_ = true;
}
void ProgressBar::finish() {
  if (shown_) std::fprintf(stderr, "\r\033[K");
  shown_ = false;
}

std::pair<std::string, std::string> policy_label(const std::string& policy) {
  const auto eq = policy.find('=');
  if (eq != std::string::npos && eq > 0 && policy.substr(0, eq).find(':') == std::string::npos) {
    const std::string label = trim(policy.substr(0, eq)), spec = trim(policy.substr(eq + 1));
    if (label.empty() || label.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.+") !=
                             std::string::npos)
      throw InputError("--policy", 0, label,
                       "a policy's label (LABEL=SPEC) may hold letters, digits, '_', '-', '.' and '+'");
    if (spec.empty()) throw InputError("--policy", 0, label, "LABEL=SPEC with no spec after '='");
    return {label, spec};
  }
  // No label: the spec, each Python part by its class (py:file=PATH;class=NAME, py:PATH:NAME) without its path.
  std::string label;
  for (const auto& part : split_simple(policy, '+')) {
    std::string shown = trim(part);
    if (shown.rfind("py:", 0) == 0) {
      if (const auto c = shown.find("class="); c != std::string::npos)
        shown = shown.substr(c + 6, shown.find(';', c) == std::string::npos ? std::string::npos : shown.find(';', c) - c - 6);
      else if (shown.find('=') == std::string::npos && shown.rfind(':') > 2)
        shown = shown.substr(shown.rfind(':') + 1);
    }
    label += (label.empty() ? "" : "+") + shown;
  }
  return {label, policy};
}

std::string dir_name(const std::string& policy) {
  std::string s;
  for (char c : policy) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  return s;
}

void print_table(const std::vector<std::pair<std::string, Summary>>& rows) {
  std::cout << fmt::format("{:<22} {:>7} {:>12} {:>12} {:>12} {:>12} {:>9} {:>8}\n", "policy", "jobs", "avg_jct_s",
                           "p50_jct_s", "p99_jct_s", "makespan_s", "gpu_util", "preempt");
  for (const auto& [p, s] : rows)
    std::cout << fmt::format("{:<22} {:>7} {:>12.1f} {:>12.1f} {:>12.1f} {:>12.1f} {:>9.3f} {:>8}\n", p, s.jobs,
                             s.avg_jct_s, s.p50_jct_s, s.p99_jct_s, s.makespan_s, s.gpu_util, s.preemptions);
}

// After a parse error: "did you mean" for the first unknown subcommand or flag.
std::string usage_hint(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> subs;
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) subs.push_back(s->get_name());
  if (argc < 2) return "";
  const std::string first = argv[1];
  const auto it = std::find(subs.begin(), subs.end(), first);
  if (it == subs.end()) {
    const std::string n = nearest_name(first, subs);
    return n.empty() ? "" : "\ndid you mean `ringmaster " + n + "`?";
  }
  const CLI::App* sub = app.get_subcommand(first);
  std::vector<std::string> flags;
  for (const CLI::Option* o : sub->get_options()) {
    for (const auto& l : o->get_lnames()) flags.push_back("--" + l);
    for (const auto& s : o->get_snames()) flags.push_back("-" + s);
  }
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() < 2 || a[0] != '-') continue;
    a = a.substr(0, a.find('='));
    if (std::find(flags.begin(), flags.end(), a) != flags.end()) continue;
    const std::string n = nearest_name(a, flags);
    if (!n.empty()) return "\ndid you mean " + n + " (for " + a + ")?";
  }
  return "";
}

OutLock::OutLock(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir, 0, "--out", "cannot create directory: " + ec.message());
  fd_ = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) throw InputError(dir, 0, "--out", "cannot open the output folder");
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    close(fd_);
    throw InputError(dir, 0, "--out", "another ringmaster run is writing to this folder; wait for it or pick another --out");
  }
}

OutLock::~OutLock() { close(fd_); }

namespace {

// The inputs: cluster, trace or generator, policies.
void add_input_options(CLI::App* sim, SimConfig& cfg, std::vector<std::string>& policies) {
  sim->add_option("--cluster", cfg.cluster, "cluster preset (list-clusters), YAML file, or yu2022 (generated)")
      ->capture_default_str();
  sim->add_option("--trace", cfg.trace, "trace file, or builtin:demo")->capture_default_str();
  sim->add_option("--format", cfg.format, "auto|canonical|philly|tiresias|gavel|synergy|wang2020")
      ->capture_default_str();
  sim->add_option("--columns", cfg.columns,
                  "read any CSV: canonical columns from the file's, CANONICAL=COLUMN,... (COLUMN/K, COLUMN*K, A-B too); "
                  "other columns ignored and listed (docs/formats.md)");
  sim->add_option("--header", cfg.header, "the column names of a CSV without a header row, comma-separated");
  sim->add_option("--time-unit", cfg.time_unit, "the trace's unit of submit, duration and deadline: s|ms|us")
      ->capture_default_str();
  sim->add_option("--policy", policies,
                  "a preset, order+placement+allocation+flags, a task-model policy or a planner (list-policies); repeat to "
                  "compare several "
                  "(default: fifo, fifo-backfill, sjf, srtf, srsf, tiresias)");
  sim->add_option("--workload", cfg.workload,
                  "generate the jobs instead of reading a trace: wang2020, yu2022, yu2022-physical, luo2025, "
                  "synergy-philly, synergy-synthetic");
  sim->add_option("--scale", cfg.gen.scale, "generator scale (wang2020: iterations in [scale, 6 scale])")
      ->capture_default_str();
  sim->add_option("--jobs", cfg.gen.jobs, "generator job count")->capture_default_str()->check(CLI::Range(1, 10'000'000));
  sim->add_option("--servers", cfg.gen.servers, "servers of the generated yu2022 cluster (--cluster yu2022)")
      ->check(CLI::Range(1, 100'000))
      ->capture_default_str();
  sim->add_option("--load", cfg.load,
                  "a trace: rescale its arrivals to this offered load (GPU-seconds demanded at the ideal over the "
                  "cluster's GPU-seconds across the arrival span; summary.json offered_load); luo2025: offered load "
                  "(default 0.8); synergy-*: arrivals per hour (default 0.8)")
      ->check(CLI::Range(1e-9, 1e9));
}

// The round model, Synergy's workloads and profiles, luo2025's generator.
void add_round_options(CLI::App* sim, SimConfig& cfg) {
  sim->add_option("--round", cfg.round_s,
                  "round model: lease length R in seconds (default: the model's; Synergy, Blox: 300; --compat gavel: 360; --compat pollux: 60, its --interval)")
      ->check(CLI::Range(1e-3, 1e7));
  sim->add_flag("--static", cfg.is_static, "round model, replay: first round at t = 1 s (the Synergy authors' --static)");
  sim->add_option("--split", cfg.split, "synergy-* workloads: image,language,speech job shares in %")
      ->capture_default_str();
  sim->add_option("--measure-ids", cfg.measure_ids,
                  "round model: FIRST:LAST job ids whose JCTs are measured (synergy-* default 4000:4999; replay: all)");
  sim->add_option("--cpu-ratio", cfg.cpu_ratio, "round model and CPU/DRAM allocations: Synergy profile set 3..6 (default: the cluster's CPUs per GPU)");
  sim->add_option("--profiles", cfg.profiles, "round model and CPU/DRAM allocations: Synergy profiles folder or CSV (default: bundled)");
  sim->add_option("--perf-model", cfg.perf_model,
                  "what turns a placement into run time (docs/perf-model.md): analytic (compute + ring all-reduce under "
                  "the contention law), measured:pollux|sia|gavel|elasticflow (the measured tables under --data-dir; a "
                  "job without one runs analytic and is counted) or trace (the trace's duration whatever the placement); "
                  "--exec rate or graph")
      ->capture_default_str();
  sim->add_option("--job-model", cfg.job_model,
                  "how a job trains (docs/elastic.md): fixed (its trace's iterations at its batch), pollux (Pollux's "
                  "jobs: progress in epochs scaled by statistical efficiency, the batch re-chosen by the goodput model "
                  "fitted to the job's own steps), pollux-tuned (the same jobs at their trace's batch) or sia (Sia's jobs: "
                  "one profile and fitted model per GPU type, docs/sia.md); they need a Pollux/Sia workload (--format "
                  "pollux), --exec rate and --perf-model measured:pollux (sia: measured:sia)")
      ->capture_default_str();
  sim->add_option("--interference", cfg.interference,
                  "--compat pollux: the share of goodput a distributed job loses on a node that another distributed job "
                  "also uses (Pollux's --interference; default 0)")
      ->check(CLI::Range(0.0, 1.0));
  sim->add_option("--throughputs", cfg.throughputs,
                  "--compat gavel: Gavel's throughput table (default: philly-gavel-vc/throughputs/"
                  "simulation_throughputs.json under --data-dir)");
  sim->add_option("--data-dir", cfg.data_dir,
                  "where the measured tables and profiles are read in place (Pollux/Sia/Gavel/ElasticFlow folders)")
      ->capture_default_str();
  sim->add_option("--trace-gpu-type", cfg.trace_gpu_type,
                  "the GPU type a trace's durations were measured on (default: the cluster's first type)");
  sim->add_option("--speed-model", cfg.speed_model,
                  "round model and allocations: binary (best-case demand -> speedup, else 1; the authors') or matrix (the profile's "
                  "throughput at the allocation)")
      ->capture_default_str();
  sim->add_option("--job-list", cfg.job_list, "synergy-philly: a trace whose kept jobs give the GPU demands");
  sim->add_flag("--multigpu", cfg.multigpu, "synergy-philly: keep the job list's GPU demands (default: all 1)");
  sim->add_option("--gpus", cfg.gen.gpus, "luo2025: GPUs of the cluster the load is for")->capture_default_str();
  sim->add_option("--templates", cfg.gen.templates, "luo2025: recurring-job templates")->capture_default_str();
}

// How the run goes: scaling, execution model, compat, costs, models, outputs.
void add_run_options(CLI::App* sim, SimConfig& cfg, std::string& out, bool& quiet) {
  sim->add_option("--arrival-scale", cfg.arrival_scale,
                  "multiply every submit time by this (< 1 raises the load of a trace)")->capture_default_str();
  sim->add_option("--max-jobs", cfg.max_jobs, "keep only the first N jobs by submit time (0 = all)")
      ->capture_default_str();
  sim->add_option("--xi", cfg.yu.xi, "Yu et al.'s contention/overhead scale for the planners' model")
      ->capture_default_str();
  sim->add_option("--exec", cfg.exec, "execution model: rate | task | graph | round | auto (task for task-model policies, graph for a-srpt and for "
                  "jobs with tensor/pipeline parallelism, round for Synergy workloads and --compat synergy)")
      ->capture_default_str();
  sim->add_option("--compat", cfg.compat,
                  "reproduce a paper's own simulator: wang2020 (task model: 1-ms steps and the authors' quirks), "
                  "yu2022 (planners: whole-iteration slots), synergy (round model: progress credited per round, jobs end "
                  "at round boundaries), tiresias and gavel (their simulators' own loops and policies)");
  seed_check(sim->add_option("--seed", cfg.seed, "seed for every random choice")->capture_default_str());
  sim->add_option("--preempt-overhead", cfg.preempt_overhead_s,
                  "seconds without progress when a preempted job resumes, the same for every job (default: the "
                  "checkpoint-restore model, 25 s + the job's weights and optimizer state written and read at 200 MB/s; "
                  "docs/perf-model.md)")
      ->check(CLI::Range(0.0, 1e9));
  sim->add_option("--start-delay", cfg.start_delay_s,
                  "seconds without progress after every start, GPUs held (a real cluster's dispatch latency; "
                  "`replay --backend slurm` measures it)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e9));
  sim->add_option("--models", cfg.models, "model catalogue CSV (default: the built-in data/models.csv)");
  sim->add_option("--model-alias", cfg.model_alias,
                  "FROM=TO: run the trace's model FROM as the catalogue's TO (repeatable; counted in summary.json)");
  sim->add_option("--unknown-model", cfg.unknown_model,
                  "a model the catalogue lacks: error, nearest (closest catalogue name) or by-hash (a catalogue model "
                  "picked by a seeded hash of the name); counted in summary.json as models_replaced")
      ->capture_default_str();
  sim->add_flag("!--no-fast-forward", cfg.fast_forward,
                "task model: simulate every task and flow instead of jumping over the periods of a steady state "
                "(same JCTs; slower; the check of the fast-forward)");
  sim->add_flag("--skip-unschedulable", cfg.skip_unschedulable,
                "report jobs that can never fit (jobs.csv status) instead of failing");
  sim->add_option("--out", out, "output directory")->capture_default_str();
  sim->add_flag("--quiet,-q", quiet, "print nothing on success");
}

}  // namespace

CLI::App* add_simulate_options(CLI::App& app, SimArgs& a, const std::string& name, const std::string& help) {
  auto* sim = app.add_subcommand(name, help);
  add_input_options(sim, a.cfg, a.policies);
  add_round_options(sim, a.cfg);
  add_run_options(sim, a.cfg, a.out, a.quiet);
  return sim;
}

std::vector<sweep::SimOption> sweep_simulate_options() {
  CLI::App probe;
  SimArgs a;
  std::vector<sweep::SimOption> opts;
  for (const CLI::Option* op : add_simulate_options(probe, a, "simulate", "")->get_options())
    for (const auto& n : op->get_lnames()) opts.push_back({"--" + n, op->get_type_size() != 0});
  return opts;
}

}  // namespace rm::cli
