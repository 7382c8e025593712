// Synthetic workload generators (--workload NAME). Each writes a job list in one of the trace
// formats, so `ringmaster generate` output read back with --trace gives the same run.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rm {

// Seconds per slot of Yu et al.'s abstract model (spec B.9 S3: tau in [0.01, 0.05] slot); exec/yu2022_model.h
// uses the same constant.
constexpr double kYu2022SlotS = 10;

struct GenOptions {
  std::uint64_t seed = 1;
  double scale = 10;  // wang2020: iterations in [scale, 6 scale], arrivals in [0, 1200 scale) ms
  int jobs = 160;
  int servers = 20;   // yu2022: servers of the generated cluster
  double load = 0.8;  // luo2025: offered GPU-seconds per second / gpus
  int gpus = 128;     // luo2025: the cluster the load is for
  int templates = 40; // luo2025: recurring-job templates
};

// GPU count of job i of n in the Microsoft (Philly) mix used by Wang et al. and Yu et al.: cumulative
// cut points 40, 47, 60, 75, 79, 80 per 80 jobs (80/14/26/30/8/2 jobs of 1/2/4/8/16/32 GPUs per 160).
int microsoft_mix_gpus(int i, int n);

// Wang et al.'s model table (spec A.3.1): gradient MB, forward / backward ms, batch, MB per worker.
struct P1Model { const char* name; double size_mb; int fw_ms, bw_ms, batch, mem_mb; };
const std::vector<P1Model>& p1_models();

struct GeneratedTrace {
  std::string text;    // the job list
  std::string format;  // its trace format
};

// Throws InputError for an unknown generator or bad options.
GeneratedTrace generate_workload(const std::string& name, const GenOptions& opt);
const std::vector<std::pair<std::string, std::string>>& workload_generators();  // name, description

// Wang et al. 2020 (spec A.7): the Microsoft GPU-count mix 80/14/26/30/8/2 of 1/2/4/8/16/32 GPUs per 160
// jobs (in id order), a model uniform over VGG-16 / ResNet-50 / Inception-v3 / LSTM (table A.3.1),
// iterations uniform in {scale..6 scale}, arrivals floor(U[0, 1200 scale)) ms.
GeneratedTrace generate_wang2020(const GenOptions& opt);

// Yu et al. 2022 (spec B.6, B.9 S3(b), S10): the same GPU mix, iterations F uniform in {1000..6000},
// contention-free iteration time tau0 uniform in [0.01, 0.05] slots, both redrawn until the estimate
// F tau0 >= 50 slots; all jobs at time 0. compute_ms = tau0 x the slot length (yu::ModelParams).
GeneratedTrace generate_yu2022(const GenOptions& opt);
// The same GPU mix and F with a P1 model per job (uniform), for the physical mode (spec B.9 S3(a)).
GeneratedTrace generate_yu2022_physical(const GenOptions& opt);
// Recurring mixed-parallelism jobs for A-SRPT (gen_luo2025.cpp): templates of (user, model, dataset,
// (D, P, T)) with Zipf popularity, 10 % one-offs, durations lognormal (sigma 0.3) around the template's
// mean, Poisson arrivals offering `load` x `gpus`.
GeneratedTrace generate_luo2025(const GenOptions& opt);
// Its cluster: opt.servers servers with GPUs uniform in {4, 8, 16, 32}, redrawn until there are >= 32.
std::string generate_yu2022_cluster(const GenOptions& opt);

}  // namespace rm
