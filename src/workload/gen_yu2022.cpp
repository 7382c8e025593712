#include <fmt/format.h>

#include "core/error.h"
#include "core/rng.h"
#include "workload/generators.h"

namespace rm {

GeneratedTrace generate_yu2022(const GenOptions& opt) {
  if (opt.jobs < 1) throw InputError("--jobs", 0, "", "must be >= 1");
  Rng rng(mix_seed(opt.seed, 0x59552022));
  const double slot_ms = kYu2022SlotS * 1000.0;
  std::string out = "job_id,submit_s,num_gpus,iterations,compute_ms,grad_mb,model,gpu_mem_mb\n";
  for (int i = 0; i < opt.jobs; ++i) {
    std::uint64_t f;
    double tau0;
    do {
      f = 1000 + rng.below(5001);
      tau0 = 0.01 + 0.04 * rng.uniform();
    } while (static_cast<double>(f) * tau0 < 50.0);
    fmt::format_to(std::back_inserter(out), "{},0,{},{},{},0,yu2022,0\n", i, microsoft_mix_gpus(i, opt.jobs), f,
                   tau0 * slot_ms);
  }
  return {out, "canonical"};
}

GeneratedTrace generate_yu2022_physical(const GenOptions& opt) {
  if (opt.jobs < 1) throw InputError("--jobs", 0, "", "must be >= 1");
  Rng rng(mix_seed(opt.seed, 0x59552023));
  std::string out = "job_id,submit_s,num_gpus,iterations,compute_ms,grad_mb,model,gpu_mem_mb\n";
  for (int i = 0; i < opt.jobs; ++i) {
    const P1Model& m = p1_models()[rng.below(4)];
    const std::uint64_t f = 1000 + rng.below(5001);
    fmt::format_to(std::back_inserter(out), "{},0,{},{},{},{},{},{}\n", i, microsoft_mix_gpus(i, opt.jobs), f,
                   m.fw_ms + m.bw_ms, m.size_mb, m.name, m.mem_mb);
  }
  return {out, "canonical"};
}

std::string generate_yu2022_cluster(const GenOptions& opt) {
  if (opt.servers < 1) throw InputError("--servers", 0, "", "must be >= 1");
  Rng rng(mix_seed(opt.seed, 0x59550001));
  static const int kSizes[] = {4, 8, 16, 32};
  std::vector<int> gpus;
  int total = 0;
  do {
    gpus.clear();
    total = 0;
    for (int s = 0; s < opt.servers; ++s) total += gpus.emplace_back(kSizes[rng.below(4)]);
  } while (total < 32);
  std::string y = fmt::format("name: yu2022-seed{}-{}servers\nnetwork: {{contention_a: 0.2745}}\nservers:\n",
                              opt.seed, opt.servers);
  for (int g : gpus) y += fmt::format("  - {{gpus: {}, gpu_mem_gb: 32, nic_gbps: 10}}\n", g);
  return y;
}

}  // namespace rm
