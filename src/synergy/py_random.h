// CPython's `random` module, bit for bit (spec synergy-and-a-srpt.md S.10 item 4, Part C.3): MT19937 seeded
// by init_by_array like random.seed(int), random() from two 32-bit words, uniform(), randint(0, n) by
// rejection on getrandbits. The Synergy authors' workload generator draws from it; --compat synergy needs
// the same stream. std::mt19937 has the same twist but a different seeding, hence this port.
#pragma once
#include <array>
#include <cstdint>

namespace rm::synergy {

class PyRandom {
 public:
  explicit PyRandom(std::uint64_t seed = 42) { seed_int(seed); }
  void seed_int(std::uint64_t seed);  // random.seed(n) for n >= 0
  std::uint32_t u32();                // one tempered MT19937 output
  double random();                    // random.random(): 53 bits in [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * random(); }
  int randint(int lo, int hi);        // random.randint(lo, hi), inclusive

 private:
  std::array<std::uint32_t, 624> mt_{};
  int pos_ = 624;
};

}  // namespace rm::synergy
