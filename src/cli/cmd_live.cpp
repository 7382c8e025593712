// The live subcommands: `serve` (a policy scheduling a real cluster's jobs), `replay` (a trace submitted to a
// real cluster), and `payload` (replay's stand-in training job). docs/slurm.md.
#include <CLI/CLI.hpp>

#include "cli/subcommand.h"
#include "live/command.h"
#include "live/payload.h"
#include "live/replay.h"
#include "live/serve.h"
#include "live/status.h"

#include <iostream>

namespace rm::cli {
namespace {

class Serve final : public Subcommand {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* srv = app.add_subcommand("serve", "schedule a real cluster's jobs with a policy (a long-running daemon; docs/slurm.md)");
    srv->add_option("--backend", sa_.backend_kind, "cluster manager: slurm, or fake / sim (in-process; docs/slurm.md)")
        ->capture_default_str();
    srv->add_option("--policy", sa_.backend.policy, "a job-level policy (list-policies): fifo, srsf, tiresias, a-srpt-p, ...")
        ->capture_default_str();
    srv->add_option("--partition", sa_.backend.partition, "the Slurm partition whose held jobs ringmaster schedules")->required();
    srv->add_option("--state", sa_.backend.state_dir, "directory for the daemon's state (restart-safe)")->required();
    srv->add_option("--interval", interval_, "time between steps: 1s, 500ms, 2m")->capture_default_str();
    srv->add_option("--cluster", sa_.backend.cluster,
                    "cluster preset or YAML for GPU memory and network figures (servers come from Slurm)");
    seed_check(srv->add_option("--seed", sa_.backend.seed, "seed for the policy's random choices")->capture_default_str());
    srv->add_option("--default-duration", sa_.backend.default_duration_s,
                    "seconds assumed for a job without duration/iterations hints")
        ->capture_default_str();
    srv->add_option("--start-timeout", start_timeout_,
                    "a released job Slurm has not started after this long is held again and its GPUs returned "
                    "(then offered again after a back-off): 30s, 2m")
        ->capture_default_str();
    srv->add_flag("--once", sa_.once, "one step, then write the outputs and exit");
    srv->add_flag("--release-all", sa_.release_all,
                  "uninstall: clear ringmaster's node pins and refusal comments from the partition's pending jobs, "
                  "release them to Slurm, cancel the lease, and exit (no daemon may be running)");
    srv->add_flag("--exit-when-done", sa_.exit_when_done, "exit once every adopted job has ended (a refused, unschedulable one counts as ended)");
    srv->add_option("--max-idle", sa_.max_idle_s, "with --exit-when-done: exit after this many seconds without any job")
        ->capture_default_str();
    srv->add_option("--out", sa_.out, "where to write jobs.csv, summary.json, timeseries.csv and runs.csv at exit (default: the state directory)");
    srv->add_flag("--recover", sa_.backend.recover,
                  "with no usable state file: rebuild the books from Slurm (running jobs on the GPUs Slurm gave them)");
    srv->add_option("--log-file", sa_.log_file, "append the log to this file instead of stderr");
    srv->add_option("--log-level", sa_.log_level, "error, warn, info or debug")->capture_default_str();
    srv->add_option("--metrics", sa_.metrics, "serve Prometheus metrics at HOST:PORT/metrics, e.g. 127.0.0.1:9464");
    return srv;
  }
  int run() override {
    sa_.interval_s = live::parse_interval(interval_, "--interval");
    sa_.backend.start_timeout_s = live::parse_interval(start_timeout_, "--start-timeout");
    return live::run_serve(sa_);
  }

 private:
  live::ServeArgs sa_;
  std::string interval_ = "1s", start_timeout_ = "30s";
};

class Replay final : public Subcommand {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* rep = app.add_subcommand(
        "replay", "submit a trace's jobs to a real Slurm at scaled times and schedule them with a policy (docs/slurm.md)");
    rep->add_option("--backend", ra_.serve.backend_kind, "cluster manager: slurm, or fake / sim (in-process; docs/slurm.md)")
        ->capture_default_str();
    rep->add_option("--trace", ra_.trace.trace, "trace file, or builtin:demo")->required();
    rep->add_option("--format", ra_.trace.format, "trace format")->capture_default_str();
    rep->add_option("--max-jobs", ra_.trace.max_jobs, "keep only the first N jobs (0 = all)")->capture_default_str();
    rep->add_option("--time-scale", ra_.time_scale, "K: submit times and durations divided by K")->required();
    rep->add_option("--policy", ra_.serve.backend.policy, "a job-level policy")->capture_default_str();
    rep->add_option("--partition", ra_.serve.backend.partition, "the Slurm partition to use")->required();
    rep->add_option("--state", ra_.serve.backend.state_dir, "directory for the backend's state")->required();
    rep->add_option("--cluster", ra_.serve.backend.cluster, "cluster preset or YAML for GPU memory and network figures");
    rep->add_option("--interval", interval_, "time between scheduling steps")->capture_default_str();
    rep->add_option("--overhead", ra_.overhead_s, "payload restore cost after a requeue, seconds (scaled)")->capture_default_str();
    seed_check(rep->add_option("--seed", ra_.serve.backend.seed, "seed")->capture_default_str());
    rep->add_option("--timeout", ra_.timeout_s, "give up after this many seconds")->capture_default_str();
    rep->add_option("--out", ra_.serve.out, "output directory")->required();
    return rep;
  }
  int run() override {
    ra_.serve.interval_s = live::parse_interval(interval_, "--interval");
    ra_.trace.seed = ra_.serve.backend.seed;
    return live::run_replay(ra_);
  }

 private:
  live::ReplayArgs ra_;
  std::string interval_ = "500ms";
};

class Payload final : public Subcommand {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* pay = app.add_subcommand("payload", "the stand-in training job of `replay` (works, checkpoints, resumes)");
    pay->add_option("--work", pa_.work_s, "seconds of work")->required();
    pay->add_option("--checkpoint", pa_.checkpoint, "progress file")->capture_default_str();
    pay->add_option("--overhead", pa_.overhead_s, "seconds lost when resuming")->capture_default_str();
    pay->add_option("--speed-file", pa_.speed_file, "file with the placement's slowdown (wall seconds per second of work)")
        ->capture_default_str();
    pay->add_option("--times", pa_.times_file, "file to append its launch and exit times to (epoch seconds)")
        ->capture_default_str();
    return pay;
  }
  int run() override { return live::run_payload(pa_); }

 private:
  live::PayloadArgs pa_;
};

}  // namespace

class Status final : public Subcommand {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* st = app.add_subcommand("status", "what a `serve` daemon last saw and did: queue, running jobs, step times");
    st->add_option("--state", dir_, "the state directory of `serve --state`")->required();
    return st;
  }
  int run() override {
    live::print_status(dir_, live::wall_now(), std::cout);
    return 0;
  }

 private:
  std::string dir_;
};

std::unique_ptr<Subcommand> make_status() { return std::make_unique<Status>(); }
std::unique_ptr<Subcommand> make_serve() { return std::make_unique<Serve>(); }
std::unique_ptr<Subcommand> make_replay() { return std::make_unique<Replay>(); }
std::unique_ptr<Subcommand> make_payload() { return std::make_unique<Payload>(); }

}  // namespace rm::cli
