#include "live/replay.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "core/error.h"
#include "exec/comm_model.h"

namespace rm::live {

namespace fs = std::filesystem;

namespace {
std::string quoted(const std::string& s) {  // for sbatch --wrap (sh)
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}
}  // namespace

int run_replay(const ReplayArgs& a) {
  if (!(a.time_scale > 0)) throw InputError("--time-scale", 0, "", "must be > 0");
  if (a.serve.out.empty()) throw InputError("--out", 0, "", "name an output directory");
  ServeOptions o = a.serve.backend;
  o.log = stderr_log("replay");
  const fs::path out = fs::absolute(a.serve.out);
  o.on_rate = [out](const JobSpec& j, double slowdown) {  // the payload re-reads it as it works
    const fs::path dir = out / "work" / j.name;
    fs::create_directories(dir);
    std::ofstream f(dir / "slowdown.tmp", std::ios::trunc);
    f.precision(17);
    f << slowdown << "\n";
    f.close();
    fs::rename(dir / "slowdown.tmp", dir / "slowdown");
  };
  SlurmCtl ctl;
  SlurmBackend b(ctl, o);
  b.connect(wall_now());
  std::vector<Unschedulable> unsched;
  Workload w = load_workload(a.trace, b.cluster(), &unsched, nullptr);
  if (!unsched.empty()) throw InputError(unsched.front().reason);
  fs::create_directories(out / "work");
  const std::string bin = a.binary.empty() ? fs::read_symlink("/proc/self/exe").string() : a.binary;
  struct Sub {
    std::string name, model;
    int gpus;
    double at_s, work_s;
  };
  std::vector<Sub> subs;
  {
    std::ofstream t(out / "trace_scaled.csv");
    t << "job_id,submit_s,num_gpus,model,duration_s\n";
    t.precision(12);
    for (const auto& j : w.jobs) {
      const double work = j.iterations * ideal_iteration_time_s(j, b.cluster()) / a.time_scale;
      subs.push_back({j.name, j.model, j.num_gpus, to_seconds(j.submit) / a.time_scale, work});
      t << j.name << "," << subs.back().at_s << "," << j.num_gpus << "," << j.model << "," << work << "\n";
    }
    std::ofstream c(out / "cluster.yaml");
    c << "# the Slurm partition as ringmaster saw it (replay), for `simulate --cluster`\nname: slurm-replay\n"
      << "network: {contention_a: " << b.cluster().network.contention_a << "}\nservers:\n";
    for (const auto& s : b.cluster().servers)
      c << "  - {count: 1, gpus: " << s.gpus << ", gpu_mem_gb: " << s.gpu_mem_gb << ", cpus: " << s.cpus
        << ", dram_gb: " << s.dram_gb << ", nic_gbps: " << s.nic_gbps << "}\n";
  }
  o.log(fmt::format("replaying {} jobs at time scale {} (last submission at {:.1f} s)", subs.size(), a.time_scale,
                    subs.empty() ? 0.0 : subs.back().at_s));
  const double start = wall_now();
  std::size_t next = 0;
  while (true) {
    const double now = wall_now();
    for (; next < subs.size() && subs[next].at_s <= now - start; ++next) {
      const Sub& s = subs[next];
      const fs::path dir = out / "work" / s.name;
      fs::create_directories(dir);
      const std::string cmd = quoted(bin) + " payload --work " + fmt::format("{:.6f}", s.work_s) +
                              " --checkpoint checkpoint --overhead " + fmt::format("{:.6f}", a.overhead_s);
      try {
        ctl.submit({"-H", "-p", o.partition, "--gpus=" + std::to_string(s.gpus), "-c", "1", "--mem=100M", "-J",
                    s.name, "-D", dir.string(), "-o", (dir / "slurm.out").string(), "--open-mode=append", "--comment",
                    fmt::format("rm:name={};model={};duration={:.6f}", s.name, s.model, s.work_s), "--wrap", cmd});
      } catch (const SlurmError& e) {
        o.log("submission of " + s.name + " failed, retrying: " + e.what());
        break;
      }
    }
    int left = 1;
    try {
      left = b.step(now);
    } catch (const SlurmError& e) {
      o.log(std::string("Slurm unreachable, retrying: ") + e.what());
    }
    if (next == subs.size() && left == 0 && b.jobs().size() == subs.size()) break;
    if (now - start > a.timeout_s) {
      b.write_outputs(out.string());
      o.log("timed out; partial outputs in " + out.string());
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(a.serve.interval_s));
  }
  b.write_outputs(out.string());
  o.log(fmt::format("done: {} jobs in {:.1f} s; outputs in {}; compare with:\n  ringmaster simulate --cluster {} "
                    "--trace {} --policy {} --out SIMDIR && ringmaster compare SIMDIR {}",
                    subs.size(), wall_now() - start, out.string(), (out / "cluster.yaml").string(),
                    (out / "trace_scaled.csv").string(), o.policy, out.string()));
  return 0;
}

}  // namespace rm::live
