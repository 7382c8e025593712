// CPython's `random` module, bit for bit (spec synergy-and-a-srpt.md S.10 item 4, Part C.3): MT19937 seeded
// by init_by_array like random.seed(int), random() from two 32-bit words, uniform(), randint(0, n) by
// rejection on getrandbits; shuffle and sample (Gavel's simulator draws them). The Synergy authors' workload generator draws from it; --compat synergy needs
// the same stream. std::mt19937 has the same twist but a different seeding, hence this port.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace rm::synergy {

class PyRandom {
 public:
  explicit PyRandom(std::uint64_t seed = 42) { seed_int(seed); }
  void seed_int(std::uint64_t seed);  // random.seed(n) for n >= 0
  std::uint32_t u32();                // one tempered MT19937 output
  double random();                    // random.random(): 53 bits in [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * random(); }
  int randint(int lo, int hi);        // random.randint(lo, hi), inclusive
  std::uint32_t getrandbits(int k);   // random.getrandbits(k), 1 <= k <= 32
  std::uint32_t randbelow(std::uint32_t n);  // Random._randbelow(n), n >= 1 (randrange(n))
  // random.shuffle(x) (CPython 3.11: Fisher-Yates from the end, j = randbelow(i + 1)).
  template <class T>
  void shuffle(std::vector<T>& x) {
    for (std::size_t i = x.size(); i-- > 1;) std::swap(x[i], x[randbelow(static_cast<std::uint32_t>(i + 1))]);
  }
  // random.sample(population, k) for a population of n: the positions picked, in the order drawn (CPython 3.11:
  // a pool for small n, else rejection against the positions already picked).
  std::vector<std::size_t> sample(std::size_t n, std::size_t k);

 private:
  std::array<std::uint32_t, 624> mt_{};
  int pos_ = 624;
};

}  // namespace rm::synergy
