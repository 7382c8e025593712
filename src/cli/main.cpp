// The `ringmaster` command.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/sweep.h"
#include "cluster/cluster_config.h"
#include "core/embedded_data.h"
#include "core/error.h"
#include "core/suggest.h"
#include "engine/simulation.h"
#include "policy/registry.h"
#include "policy/task/task_registry.h"
#include "engine/round_runner.h"
#include "live/command.h"
#include "live/payload.h"
#include "live/replay.h"
#include "live/serve.h"
#include "metrics/compare.h"
#include "workload/generators.h"
#include "workload/parse_util.h"

namespace {

using namespace rm;

// A progress bar on stderr, only when stderr is a terminal, not --quiet, and the run has lasted over a second:
// jobs finished, simulated time against the makespan it points to, events per second, wall time.
class ProgressBar {
 public:
  explicit ProgressBar(bool quiet) : tty_(!quiet && isatty(STDERR_FILENO) != 0), t0_(std::chrono::steady_clock::now()) {}
  void update(const ProgressInfo& p) {
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
    std::string line = fmt::format("[{}{}] {:5.1f}% {}/{} jobs, simulated {}", std::string(done, '#'),
                                   std::string(w - done, '.'), frac * 100, p.done, p.total, hms(p.sim_s));
    if (frac > 0.02) line += " of ~" + hms(p.sim_s / frac);
    if (p.events > 0) line += fmt::format(", {:.2g} events/s", p.events / el);
    line += fmt::format(", {:.1f} s", el);
    std::fprintf(stderr, "\r%-100s", line.c_str());
    shown_ = true;
  }
  void finish() {
    if (shown_) std::fprintf(stderr, "\r%100s\r", "");
    shown_ = false;
  }

 private:
  bool tty_, shown_ = false;
  std::chrono::steady_clock::time_point t0_, last_{};
};

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

// An exclusive lock on the output folder for the whole run (flock on the folder itself: nothing left behind), so
// two runs into one --out cannot interleave their files: the second is refused.
class OutLock {
 public:
  explicit OutLock(const std::string& dir) {
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
  ~OutLock() { close(fd_); }
  OutLock(const OutLock&) = delete;
  OutLock& operator=(const OutLock&) = delete;

 private:
  int fd_ = -1;
};

const std::vector<std::string> kDefaultPolicies = {"fifo", "fifo-backfill", "sjf", "srtf", "srsf", "tiresias"};

int cmd_simulate(SimConfig cfg, std::vector<std::string> policies, const std::string& out, bool quiet) {
  if (policies.empty()) policies = kDefaultPolicies;
  const OutLock lock(out);
  std::vector<std::pair<std::string, Summary>> rows;
  std::ofstream table;
  for (const auto& p : policies) {
    cfg.policy = p;
    ProgressBar bar(quiet);
    cfg.progress = [&bar](const ProgressInfo& p) { bar.update(p); };
    auto r = simulate(cfg);
    bar.finish();
    const std::string dir = policies.size() == 1 ? out : out + "/" + dir_name(p);
    write_outputs(dir, r->record, r->unschedulable, r->summary, r->info);
    for (const auto& u : r->unschedulable) std::cerr << "warning: unschedulable: " << u.reason << "\n";
    if (!quiet)
      for (const auto& [from, to] : r->models.replaced)
        std::cerr << "note: unknown model '" << from << "' simulated as '" << to << "' (--unknown-model "
                  << cfg.unknown_model << ")\n";
    if (!quiet && policies.size() > 1) std::cerr << fmt::format("{}: {:.2f}s -> {}\n", p, r->info.wall_s, dir);
    rows.emplace_back(p, r->summary);
  }
  if (policies.size() > 1) {
    std::ofstream f(out + "/summary.csv");
    f << "policy,jobs,avg_jct_s,p50_jct_s,p95_jct_s,p99_jct_s,makespan_s,avg_queue_s,gpu_util,preemptions\n";
    for (const auto& [p, s] : rows)
      f << fmt::format("{},{},{},{},{},{},{},{},{},{}\n", p, s.jobs, s.avg_jct_s, s.p50_jct_s, s.p95_jct_s,
                       s.p99_jct_s, s.makespan_s, s.avg_queue_s, s.gpu_util, s.preemptions);
  }
  if (!quiet) {
    print_table(rows);
    for (const auto& [p, sum] : rows)
      if (!sum.extra.empty()) {
        std::cout << p << ":";
        for (const auto& [k, v] : sum.extra) std::cout << fmt::format(" {}={}", k, v);
        std::cout << "\n";
      }
    std::cout << "results in " << out << "/\n";
  }
  return 0;
}

// `validate`: every check `simulate` with the same options makes (the same code: simulate's dry run), without
// running. Bad rows are all listed (file:line:field), then the first problem of each policy's run.
int cmd_validate(SimConfig cfg, std::vector<std::string> policies, bool quiet) {
  if (policies.empty()) policies = kDefaultPolicies;
  std::vector<std::string> errors;
  const auto add = [&](const std::string& e) {
    if (std::find(errors.begin(), errors.end(), e) == errors.end()) errors.push_back(e);
  };
  std::size_t jobs = 0;
  int max_gpus = 0;
  double last_submit = 0;
  for (const auto& p : policies) {
    SimConfig c = cfg;
    c.policy = p;
    c.dry_run = true;
    std::vector<std::string> errs;
    c.errors = &errs;
    try {
      const auto r = simulate(c);
      if (r->workload.jobs.size() > jobs) {
        jobs = r->workload.jobs.size();
        for (const auto& j : r->workload.jobs) max_gpus = std::max(max_gpus, j.num_gpus);
        last_submit = to_seconds(r->workload.jobs.back().submit);
      }
    } catch (const InputError& e) {
      errs.push_back(e.what());
    }
    for (const auto& e : errs) add(e);
  }
  const std::string what = cfg.workload.empty() ? cfg.trace : "workload " + cfg.workload;
  for (const auto& e : errors) std::cerr << "error: " << e << "\n";
  if (!errors.empty()) {
    std::cerr << errors.size() << " problem(s) in " << what << " (cluster " << cfg.cluster << ")\n";
    return 2;
  }
  if (!quiet) {
    std::string ps;
    for (const auto& p : policies) ps += (ps.empty() ? "" : ", ") + p;
    if (jobs > 0)
      std::cout << fmt::format("{}: {} jobs OK ({} GPUs max, last submit {:.0f} s) on cluster {} for {}\n", what, jobs,
                               max_gpus, last_submit, cfg.cluster, ps);
    else
      std::cout << fmt::format("{}: OK on cluster {} for {}\n", what, cfg.cluster, ps);
  }
  return 0;
}

// `extra` holds the layout options (--where, --series-by, ...) passed through to the script, which checks them.
int cmd_plot(const std::vector<std::string>& dirs, const std::string& out, const std::string& format,
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

// `simulate` and its options (also how `sweep` learns which options exist and which are flags).
// `validate` takes the same options (through this function, so the two cannot drift apart).
CLI::App* add_simulate(CLI::App& app, SimConfig& cfg, std::vector<std::string>& policies, std::string& out,
                       bool& quiet, const std::string& name = "simulate",
                       const std::string& help = "simulate a trace on a cluster under one or more policies") {
  auto* sim = app.add_subcommand(name, help);
  sim->add_option("--cluster", cfg.cluster, "cluster preset (list-clusters), YAML file, or yu2022 (generated)")
      ->capture_default_str();
  sim->add_option("--trace", cfg.trace, "trace file, or builtin:demo")->capture_default_str();
  sim->add_option("--format", cfg.format, "auto|canonical|philly|tiresias|gavel|synergy|wang2020")
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
  sim->add_option("--load", cfg.gen.load,
                  "luo2025: offered load (GPU-seconds per second / --gpus); synergy-*: arrivals per hour")
      ->capture_default_str();
  sim->add_option("--round", cfg.round_s, "round model: lease length R in seconds (Synergy, Blox: 300; Gavel: 360)")
      ->check(CLI::Range(1e-3, 1e7))
      ->capture_default_str();
  sim->add_flag("--static", cfg.is_static, "round model, replay: first round at t = 1 s (the Synergy authors' --static)");
  sim->add_option("--split", cfg.split, "synergy-* workloads: image,language,speech job shares in %")
      ->capture_default_str();
  sim->add_option("--measure-ids", cfg.measure_ids,
                  "round model: FIRST:LAST job ids whose JCTs are measured (synergy-* default 4000:4999; replay: all)");
  sim->add_option("--cpu-ratio", cfg.cpu_ratio, "round model and CPU/DRAM allocations: Synergy profile set 3..6 (default: the cluster's CPUs per GPU)");
  sim->add_option("--profiles", cfg.profiles, "round model and CPU/DRAM allocations: Synergy profiles folder or CSV (default: bundled)");
  sim->add_option("--speed-model", cfg.speed_model,
                  "round model and allocations: binary (best-case demand -> speedup, else 1; the authors') or matrix (the profile's "
                  "throughput at the allocation)")
      ->capture_default_str();
  sim->add_option("--job-list", cfg.job_list, "synergy-philly: a trace whose kept jobs give the GPU demands");
  sim->add_flag("--multigpu", cfg.multigpu, "synergy-philly: keep the job list's GPU demands (default: all 1)");
  sim->add_option("--gpus", cfg.gen.gpus, "luo2025: GPUs of the cluster the load is for")->capture_default_str();
  sim->add_option("--templates", cfg.gen.templates, "luo2025: recurring-job templates")->capture_default_str();
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
                  "at round boundaries)");
  sim->add_option("--seed", cfg.seed, "seed for every random choice")->capture_default_str();
  sim->add_option("--preempt-overhead", cfg.preempt_overhead_s, "seconds of checkpoint/restart cost on resume")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
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
  return sim;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ringmaster: scheduler and trace-driven simulator for distributed DL training jobs"};
  app.require_subcommand(1);
  SimConfig cfg;
  std::vector<std::string> policies;
  std::string out = "results";
  bool quiet = false;

  auto* sim = add_simulate(app, cfg, policies, out, quiet);

  auto* gen = app.add_subcommand("generate", "write a generated workload as a trace file");
  std::string gen_out;
  gen->add_option("--workload", cfg.workload,
                  "generator: wang2020, yu2022, yu2022-physical, luo2025, synergy-philly, synergy-synthetic (the "
                  "last two as a Synergy replay CSV)")
      ->required();
  gen->add_option("--split", cfg.split, "synergy-*: image,language,speech %")->capture_default_str();
  gen->add_option("--seed", cfg.seed, "seed")->capture_default_str();
  gen->add_option("--scale", cfg.gen.scale, "generator scale")->capture_default_str();
  gen->add_option("--jobs", cfg.gen.jobs, "job count")->capture_default_str()->check(CLI::Range(1, 10'000'000));
  gen->add_option("--load", cfg.gen.load, "luo2025: offered load")->capture_default_str();
  gen->add_option("--gpus", cfg.gen.gpus, "luo2025: GPUs the load is for")->capture_default_str();
  gen->add_option("--templates", cfg.gen.templates, "luo2025: templates")->capture_default_str();
  gen->add_option("--out", gen_out, "output file (default: standard output)");

  auto* lp = app.add_subcommand("list-policies", "every plugin and preset, one line each");
  auto* lc = app.add_subcommand("list-clusters", "built-in cluster presets");
  auto* lm = app.add_subcommand("list-models", "the model catalogue");
  std::string val_out;
  bool val_quiet = false;
  auto* val = add_simulate(app, cfg, policies, val_out, val_quiet, "validate",
                           "every check `simulate` with the same options makes, without running: bad rows by "
                           "file:line:field, jobs that do not fit --cluster, unknown policies");
  std::string val_file;
  val->add_option("file", val_file, "trace file (same as --trace)");

  auto* srv = app.add_subcommand("serve", "schedule a real cluster's jobs with a policy (a long-running daemon; docs/slurm.md)");
  live::ServeArgs sa;
  std::string interval = "1s";
  srv->add_option("--backend", sa.backend_kind, "cluster manager: slurm")->capture_default_str();
  srv->add_option("--policy", sa.backend.policy, "a job-level policy (list-policies): fifo, srsf, tiresias, a-srpt-p, ...")
      ->capture_default_str();
  srv->add_option("--partition", sa.backend.partition, "the Slurm partition whose held jobs ringmaster schedules")->required();
  srv->add_option("--state", sa.backend.state_dir, "directory for the daemon's state (restart-safe)")->required();
  srv->add_option("--interval", interval, "time between steps: 1s, 500ms, 2m")->capture_default_str();
  srv->add_option("--cluster", sa.backend.cluster, "cluster preset or YAML for GPU memory and network figures (servers come from Slurm)");
  srv->add_option("--seed", sa.backend.seed, "seed for the policy's random choices")->capture_default_str();
  srv->add_option("--default-duration", sa.backend.default_duration_s, "seconds assumed for a job without duration/iterations hints")
      ->capture_default_str();
  srv->add_flag("--once", sa.once, "one step, then write the outputs and exit");
  srv->add_flag("--exit-when-done", sa.exit_when_done, "exit once every adopted job has ended");
  srv->add_option("--max-idle", sa.max_idle_s, "with --exit-when-done: exit after this many seconds without any job")
      ->capture_default_str();
  srv->add_option("--out", sa.out, "where to write jobs.csv and summary.json at exit (default: the state directory)");

  auto* rep = app.add_subcommand("replay", "submit a trace's jobs to a real Slurm at scaled times and schedule them with a policy (docs/slurm.md)");
  live::ReplayArgs ra;
  std::string rep_interval = "500ms";
  rep->add_option("--backend", ra.serve.backend_kind, "cluster manager: slurm")->capture_default_str();
  rep->add_option("--trace", ra.trace.trace, "trace file, or builtin:demo")->required();
  rep->add_option("--format", ra.trace.format, "trace format")->capture_default_str();
  rep->add_option("--max-jobs", ra.trace.max_jobs, "keep only the first N jobs (0 = all)")->capture_default_str();
  rep->add_option("--time-scale", ra.time_scale, "K: submit times and durations divided by K")->required();
  rep->add_option("--policy", ra.serve.backend.policy, "a job-level policy")->capture_default_str();
  rep->add_option("--partition", ra.serve.backend.partition, "the Slurm partition to use")->required();
  rep->add_option("--state", ra.serve.backend.state_dir, "directory for the backend's state")->required();
  rep->add_option("--cluster", ra.serve.backend.cluster, "cluster preset or YAML for GPU memory and network figures");
  rep->add_option("--interval", rep_interval, "time between scheduling steps")->capture_default_str();
  rep->add_option("--overhead", ra.overhead_s, "payload restore cost after a requeue, seconds (scaled)")->capture_default_str();
  rep->add_option("--seed", ra.serve.backend.seed, "seed")->capture_default_str();
  rep->add_option("--timeout", ra.timeout_s, "give up after this many seconds")->capture_default_str();
  rep->add_option("--out", ra.serve.out, "output directory")->required();
  auto* pay = app.add_subcommand("payload", "the stand-in training job of `replay` (works, checkpoints, resumes)");
  live::PayloadArgs pa;
  pay->add_option("--work", pa.work_s, "seconds of work")->required();
  pay->add_option("--checkpoint", pa.checkpoint, "progress file")->capture_default_str();
  pay->add_option("--overhead", pa.overhead_s, "seconds lost when resuming")->capture_default_str();
  pay->add_option("--speed-file", pa.speed_file, "file with the placement's slowdown (wall seconds per second of work)")
      ->capture_default_str();
  pay->add_option("--times", pa.times_file, "file to append its launch and exit times to (epoch seconds)")
      ->capture_default_str();
  auto* cmp = app.add_subcommand("compare", "two runs' jobs.csv side by side: per-job and average JCT, start order");
  std::string cmp_a, cmp_b;
  cmp->add_option("a", cmp_a, "first run's output directory (e.g. simulate)")->required();
  cmp->add_option("b", cmp_b, "second run's output directory (e.g. replay)")->required();

  auto* plt = app.add_subcommand("plot", "figures from sweep/simulate/replay folders: JCT CDF, JCT vs load, utilisation "
                                          "and queue over time, GPU Gantt chart (PNG and SVG; python3-matplotlib)");
  std::vector<std::string> plot_dirs;
  std::string plot_out, plot_format = "png,svg";
  plt->add_option("dirs", plot_dirs, "output folders of sweep, simulate or replay")->required();
  plt->add_option("--out", plot_out, "folder for the figures")->required();
  plt->add_option("--format", plot_format, "png, svg or png,svg")->capture_default_str();
  std::vector<std::string> plot_where, plot_rename;
  std::string plot_series = "policy", plot_panel, plot_metrics = "avg_jct_s,p99_jct_s", plot_figures,
              plot_load_label;
  bool plot_log_y = false;
  plt->add_option("--figures", plot_figures, "which figures: jct_cdf,jct_vs_load,util_queue,gantt (default: all)");
  plt->add_option("--where", plot_where, "keep only runs with KEY=VALUE (a sweep parameter, folder, or policy.N: the "
                                         "N-th '+'-part of the policy); repeatable");
  plt->add_option("--series-by", plot_series, "one line per value of this key (as for --where)")->capture_default_str();
  plt->add_option("--panel-by", plot_panel, "one panel per value of this key (default: per load for the CDF)");
  plt->add_option("--rename", plot_rename, "OLD=NEW: the name shown for a series or panel value; repeatable");
  plt->add_option("--metrics", plot_metrics, "summary.json keys plotted against load")->capture_default_str();
  plt->add_flag("--log-y", plot_log_y, "logarithmic y axis for the metrics against load");
  plt->add_option("--load-label", plot_load_label, "x-axis label of the plots against load");
  auto* swp = app.add_subcommand("sweep", "a grid of simulate runs (policies x loads x seeds x any option), K at a time, "
                                           "resumable, or as a Slurm job array; `ringmaster sweep --help`");
  swp->prefix_command();
  swp->set_help_flag();
  swp->allow_extras();

  // Usage errors exit 2 (README: 0 ok, 2 bad input or usage, 3 internal error, 4 Slurm), with a "did you
  // mean" for a mistyped subcommand or flag.
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "error: " << e.what() << usage_hint(app, argc, argv) << "\nRun with --help for more information.\n";
    return 2;
  }
  try {
    if (*swp) {
      CLI::App probe;  // simulate's options: their names, and which are flags
      SimConfig c2;
      std::vector<std::string> p2;
      std::string o2;
      bool q2 = false;
      std::vector<sweep::SimOption> opts;
      for (const CLI::Option* op : add_simulate(probe, c2, p2, o2, q2)->get_options())
        for (const auto& n : op->get_lnames()) opts.push_back({"--" + n, op->get_type_size() != 0});
      return sweep::run(swp->remaining(), opts, std::filesystem::read_symlink("/proc/self/exe").string());
    }
    if (*plt) {
      std::vector<std::string> extra = {"--series-by", plot_series, "--metrics", plot_metrics};
      if (!plot_figures.empty()) extra.insert(extra.end(), {"--figures", plot_figures});
      if (!plot_panel.empty()) extra.insert(extra.end(), {"--panel-by", plot_panel});
      if (!plot_load_label.empty()) extra.insert(extra.end(), {"--load-label", plot_load_label});
      if (plot_log_y) extra.push_back("--log-y");
      for (const auto& w : plot_where) extra.insert(extra.end(), {"--where", w});
      for (const auto& r : plot_rename) extra.insert(extra.end(), {"--rename", r});
      return cmd_plot(plot_dirs, plot_out, plot_format, extra);
    }
    if (*sim) {
      if (!cfg.workload.empty() && sim->count("--trace"))
        throw InputError("--workload", 0, cfg.workload, "give either --trace or --workload, not both");
      return cmd_simulate(cfg, policies, out, quiet);
    }
    if (*gen) {
      GenOptions g = cfg.gen;
      g.seed = cfg.seed;
      const std::string text = is_synergy_workload(cfg.workload) ? synergy_workload_csv(cfg, cfg.gen.jobs)
                                                                 : generate_workload(cfg.workload, g).text;
      if (gen_out.empty()) {
        std::cout << text;
      } else {
        std::ofstream f(gen_out, std::ios::binary);
        if (!(f << text)) throw InputError(gen_out, 0, "--out", "cannot write");
      }
      return 0;
    }
    if (*lp) {
      for (const auto& p : policy_catalogue()) std::cout << fmt::format("{:<12} {:<18} {}\n", p.point, p.name, p.help);
      for (const auto& p : task::task_policy_catalogue())
        std::cout << fmt::format("{:<12} {:<18} {}\n", p.point, p.name, p.help);
      using Rows = std::vector<std::pair<const char*, const char*>>;
      const auto table = [](const char* point, const Rows& rows) {
        for (const auto& [n, h] : rows) std::cout << fmt::format("{:<12} {:<18} {}\n", point, n, h);
      };
      table("planner", Rows{
               {"sjf-bco", "Yu et al.'s SJF-BCO: bisection on the load cap, kappa loop, FA-FFP / LBSGF "
                           "(kappa=, lambda=, horizon=1200, u=1, lbsgf=prefix|global)"},
               {"ls", "list scheduling: least-loaded GPUs under the cap, bisection (horizon=, u=)"},
               {"ff", "first-fit under the cap, bisection (horizon=, u=)"},
               {"rand", "random idle GPUs, no cap, seeded (horizon=)"}});
      std::cout << "\nWhich execution model runs which policy (--exec; a test runs every cell):\n";
      std::cout << fmt::format("{:<20} {:<11}", "policy", "family");
      for (const char* m : kExecModels) std::cout << fmt::format(" {:<6}", m);
      std::cout << "\n";
      std::vector<std::string> reasons;
      for (const auto& row : exec_support()) {
        std::cout << fmt::format("{:<20} {:<11}", row.policy, row.family);
        for (int m = 0; m < 4; ++m) {
          std::string cell = "yes";
          if (!row.why_not[m].empty()) {
            auto it = std::find(reasons.begin(), reasons.end(), row.why_not[m]);
            if (it == reasons.end()) it = reasons.insert(reasons.end(), row.why_not[m]);
            cell = "no(" + std::to_string(it - reasons.begin() + 1) + ")";
          }
          std::cout << fmt::format(" {:<6}", cell);
        }
        std::cout << "\n";
      }
      for (std::size_t i = 0; i < reasons.size(); ++i) std::cout << fmt::format("  ({}) {}\n", i + 1, reasons[i]);
    }
    if (*lc) {
      for (const auto& p : cluster_presets()) {
        const auto c = parse_cluster_yaml(p.yaml, p.name);
        std::cout << fmt::format("{:<12} {:>4} servers {:>5} GPUs  {:>4} Gbps  a={}\n", p.name, c.servers.size(),
                                 c.total_gpus(), c.servers[0].nic_gbps, c.network.contention_a);
      }
      return 0;
    }
    if (*lm) {
      for (const auto& m : load_catalogue(cfg.models).rows())
        std::cout << fmt::format("{:<22} batch {:>5} compute {:>8.3f} ms grad {:>7.1f} MB mem {:>6.0f} MB  [{}]\n",
                                 m.name, m.batch, m.compute_ms, m.grad_mb, m.gpu_mem_mb, m.source);
      return 0;
    }
    if (*val) {
      if (!val_file.empty()) {
        if (val->count("--trace")) throw InputError("validate", 0, "", "give the trace once: as FILE or as --trace");
        cfg.trace = val_file;
      }
      if (!cfg.workload.empty() && (val->count("--trace") || !val_file.empty()))
        throw InputError("--workload", 0, cfg.workload, "give either a trace or --workload, not both");
      return cmd_validate(cfg, policies, val_quiet);
    }
    if (*rep) {
      ra.serve.interval_s = live::parse_interval(rep_interval, "--interval");
      ra.trace.seed = ra.serve.backend.seed;
      return live::run_replay(ra);
    }
    if (*pay) return live::run_payload(pa);
    if (*cmp) {
      std::cout << compare_runs(cmp_a, cmp_b);
      return 0;
    }
    if (*srv) {
      sa.interval_s = live::parse_interval(interval, "--interval");
      return live::run_serve(sa);
    }
  } catch (const InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const live::SlurmError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 4;
  } catch (const InvariantError& e) {
    std::cerr << "internal error (invariant broken, please report): " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
