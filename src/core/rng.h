// Seeded, platform-independent random numbers. std::mt19937_64's sequence is fixed by the
// standard; the std distributions are not, so we derive values ourselves.
#pragma once
#include <cstdint>
#include <random>

namespace rm {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : gen_(seed) {}
  std::uint64_t next() { return gen_(); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(gen_() >> 11) * (1.0 / 9007199254740992.0); }
  // Uniform integer in [0, n), n > 0 (rejection sampling, no modulo bias).
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    std::uint64_t x;
    do x = gen_(); while (x >= limit);
    return x % n;
  }
  template <class It>
  void shuffle(It first, It last) {  // Fisher-Yates with our own below()
    for (auto n = last - first; n > 1; --n) std::swap(first[n - 1], first[below(n)]);
  }

 private:
  std::mt19937_64 gen_;
};

// A stable 64-bit mix (splitmix64) for deriving per-item seeds from (seed, index).
inline std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a * 0x9E3779B97F4A7C15ULL + b + 0x632BE59BD9B4E5FULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace rm
