#include <fmt/format.h>

#include <cmath>

#include "core/error.h"
#include "core/rng.h"
#include "workload/generators.h"

namespace rm {

// Spec A.3.1, the authors' final model table (10 GbE simulator).
const std::vector<P1Model>& p1_models() {
  static const std::vector<P1Model> v = {
      {"vgg16", 526.4, 36, 54, 16, 4527},
      {"resnet50", 99.2, 25, 37, 16, 3213},
      {"inception3", 103.0, 35, 52, 16, 3291},
      {"lstm", 251.8, 32, 47, 64, 2751},
  };
  return v;
}

int microsoft_mix_gpus(int i, int n) {
  const long x = static_cast<long>(i) * 80 / n;
  if (x < 40) return 1;
  if (x < 47) return 2;
  if (x < 60) return 4;
  if (x < 75) return 8;
  if (x < 79) return 16;
  return 32;
}

GeneratedTrace generate_wang2020(const GenOptions& opt) {
  if (opt.jobs < 1) throw InputError("--jobs", 0, "", "must be >= 1");
  if (!(opt.scale >= 1) || opt.scale != std::floor(opt.scale)) throw InputError("--scale", 0, "", "must be an integer >= 1");
  const auto scale = static_cast<std::uint64_t>(opt.scale);
  Rng rng(mix_seed(opt.seed, 0x3a9e2020));
  std::string out = "job_id,arrival_ms,model,num_gpus,iterations,fw_ms,bw_ms,model_size_mb,gpu_mem_mb,batch_size\n";
  for (int i = 0; i < opt.jobs; ++i) {
    const P1Model& m = p1_models()[rng.below(4)];
    const std::uint64_t iters = scale + rng.below(5 * scale + 1);
    const auto arrival = static_cast<std::uint64_t>(std::floor(rng.uniform() * 1200.0 * static_cast<double>(scale)));
    fmt::format_to(std::back_inserter(out), "{},{},{},{},{},{},{},{},{},{}\n", i, arrival, m.name,
                   microsoft_mix_gpus(i, opt.jobs), iters, m.fw_ms, m.bw_ms, m.size_mb, m.mem_mb, m.batch);
  }
  return {out, "wang2020"};
}

const std::vector<std::pair<std::string, std::string>>& workload_generators() {
  static const std::vector<std::pair<std::string, std::string>> v = {
      {"wang2020", "Wang et al. 2020: 160 jobs, Microsoft GPU mix, P1's four models (--scale, --seed)"},
      {"yu2022", "Yu et al. 2022: 160 jobs at time 0, Microsoft GPU mix, F in 1000..6000 (--seed; cluster yu2022)"},
      {"yu2022-physical", "the same jobs with P1's four models (compute, gradient) for the planners' model=physical"},
      {"luo2025", "recurring mixed-parallelism jobs (CNNs, BERT/GPT with TP and PP) for A-SRPT (--jobs, --load, --gpus, "
                  "--templates, --seed; cluster luo128)"},
  };
  return v;
}

GeneratedTrace generate_workload(const std::string& name, const GenOptions& opt) {
  if (name == "wang2020") return generate_wang2020(opt);
  if (name == "yu2022") return generate_yu2022(opt);
  if (name == "yu2022-physical") return generate_yu2022_physical(opt);
  if (name == "luo2025") return generate_luo2025(opt);
  std::string known;
  for (const auto& [n, d] : workload_generators()) known += (known.empty() ? "" : ", ") + n;
  throw InputError("--workload", 0, name, "unknown workload generator '" + name + "' (" + known + ")");
}

}  // namespace rm
