#include "workload/cpu_profile_map.h"

#include <map>

#include "core/rng.h"

namespace rm::synergy {
namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

Task task_of(const std::string& m) {
  if (starts_with(m, "lstm") || starts_with(m, "gnmt") || starts_with(m, "transformer") || starts_with(m, "bert") ||
      starts_with(m, "gpt") || starts_with(m, "megatron") || starts_with(m, "lm"))
    return Task::kLanguage;
  if (starts_with(m, "deepspeech") || m == "m5" || starts_with(m, "wav2letter")) return Task::kSpeech;
  return Task::kImage;
}

// FNV-1a of the name, mixed with the seed.
std::uint64_t name_hash(const std::string& s, std::uint64_t seed) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return mix_seed(seed, h);
}

}  // namespace

ProfileChoice profile_for(const ProfileSet& set, const std::string& model, std::uint64_t seed) {
  std::string m = model;
  if (starts_with(m, "gavel:")) m = m.substr(6);
  for (auto& c : m) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (const Profile* p = set.find(m)) return {p, false};
  static const std::map<std::string, std::string> kSame = {
      {"resnet18", "res18"}, {"resnet50", "res50"}, {"deepspeech2", "deepspeech"}};
  if (auto it = kSame.find(m); it != kSame.end())
    if (const Profile* p = set.find(it->second)) return {p, false};
  const auto& zoo = ProfileSet::zoo(task_of(m));
  const std::string& pick = zoo[name_hash(m, seed) % zoo.size()];
  return {&set.get(pick), true};
}

}  // namespace rm::synergy
