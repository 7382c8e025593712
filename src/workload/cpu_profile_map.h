// Which Synergy profile (CPU/memory sensitivity, throughput matrix) a job of another trace gets, so that the
// round model and the resource-sensitive allocations can run Philly, canonical, Tiresias and Gavel traces
// (docs/formats.md, "Profiles for other traces"). The rule, in order:
//   1. a profile of the same name ("alexnet", "gnmt", ...; a "gavel:" prefix is dropped);
//   2. a named equivalent: resnet18 -> res18, resnet50 -> res50, deepspeech2 -> deepspeech;
//   3. the model's task class by name (language: lstm, gnmt, transformer, bert, gpt*, megatron*;
//      speech: deepspeech*, m5, wav2letter; image: everything else), then a profile of that class chosen by
//      a hash of (seed, model name): every job of one model gets the same profile, stable under reordering.
#pragma once
#include <cstdint>
#include <string>

#include "workload/cpu_profiles.h"

namespace rm::synergy {

struct ProfileChoice {
  const Profile* profile = nullptr;
  bool by_hash = false;  // rule 3 was used
};
ProfileChoice profile_for(const ProfileSet& set, const std::string& model, std::uint64_t seed);

}  // namespace rm::synergy
