// Synergy model profiles (spec S.2.2, S.9 Q3): best-case CPUs and GB per GPU, the speedup there over the
// GPU-proportional share, the iteration time at that share, and the 9x5 throughput matrix. Four sets, one
// per CPU:GPU ratio (3 = the default cluster, 4, 5, 6). Bundled as data/synergy_profiles.csv; the shared
// profiles folder (synergy_model_profiles.csv) loads too.
#pragma once
#include <array>
#include <string>
#include <vector>

namespace rm::synergy {

enum class Task { kImage = 0, kLanguage = 1, kSpeech = 2 };

inline constexpr std::array<double, 9> kCpuLevels = {1, 2, 3, 4, 5, 6, 9, 12, 24};
inline constexpr std::array<double, 5> kMemLevels = {62.5 / 3, 62.5, 125, 187.5, 250};

struct Profile {
  std::string model;
  Task task = Task::kImage;
  double cpus_per_gpu = 3, mem_per_gpu = 62.5, speedup = 1, iter_time_s = 1;
  std::array<std::array<double, 5>, 9> tput{};  // [cpu level][mem level]
  // Throughput at a per-GPU allocation: the matrix cell of the largest levels not above it (0 below the
  // first level).
  double tput_at(double cpus_per_gpu, double mem_per_gpu) const;
};

// One server's capacities: GPUs, CPU cores, DRAM GB, storage MB/s.
struct ServerShape {
  double gpus = 8, cpus = 24, mem_gb = 500, storage = 500;
};
// A job's best-case demand on such servers (spec S.2.3): CPUs, GB and storage for g GPUs at the profile's
// best case, capped to one server (a job bigger than a server gets its proportional share and no speedup);
// sigma is the speedup there, interpolated linearly in CPUs when the cap binds.
struct BestCase {
  double cpus = 0, mem_gb = 0, storage = 0, sigma = 1;
};
BestCase best_case(const Profile& p, int g, const ServerShape& server);

class ProfileSet {
 public:
  // ratio 3, 4, 5 or 6; `source` empty = bundled, else a profiles folder or a CSV (either format).
  static ProfileSet load(int ratio, const std::string& source = "");
  // Throws InputError naming `file:line` and the field when the model is unknown.
  const Profile& get(const std::string& model, const std::string& file = "", long line = 0) const;
  const Profile* find(const std::string& model) const;
  // The model zoo in class-id order: alexnet, res18, res50, mobilenet, shufflenet, gnmt, transformer, lstm,
  // m5, deepspeech (spec S.2.2).
  static const std::vector<std::string>& zoo(Task t);
  int ratio() const { return ratio_; }

 private:
  int ratio_ = 3;
  std::vector<Profile> profiles_;
};

}  // namespace rm::synergy
