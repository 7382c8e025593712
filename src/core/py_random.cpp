#include "core/py_random.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

namespace rm::synergy {

void PyRandom::seed_int(std::uint64_t seed) {
  // key = 32-bit little-endian words of the seed (at least one).
  std::vector<std::uint32_t> key;
  do {
    key.push_back(static_cast<std::uint32_t>(seed & 0xffffffffu));
    seed >>= 32;
  } while (seed != 0);
  mt_[0] = 19650218u;
  for (std::uint32_t i = 1; i < 624; ++i) mt_[i] = 1812433253u * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + i;
  std::uint32_t i = 1, j = 0;
  const std::uint32_t n = static_cast<std::uint32_t>(key.size());
  for (std::uint32_t k = std::max<std::uint32_t>(624, n); k > 0; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525u)) + key[j] + j;
    ++i;
    ++j;
    if (i >= 624) {
      mt_[0] = mt_[623];
      i = 1;
    }
    if (j >= n) j = 0;
  }
  for (std::uint32_t k = 623; k > 0; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941u)) - i;
    ++i;
    if (i >= 624) {
      mt_[0] = mt_[623];
      i = 1;
    }
  }
  mt_[0] = 0x80000000u;
  pos_ = 624;
}

std::uint32_t PyRandom::u32() {
  if (pos_ >= 624) {
    constexpr std::uint32_t kUpper = 0x80000000u, kLower = 0x7fffffffu, kMatrix = 0x9908b0dfu;
    for (int k = 0; k < 624; ++k) {
      const std::uint32_t y = (mt_[k] & kUpper) | (mt_[(k + 1) % 624] & kLower);
      mt_[k] = mt_[(k + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? kMatrix : 0u);
    }
    pos_ = 0;
  }
  std::uint32_t y = mt_[pos_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

double PyRandom::random() {
  const std::uint32_t a = u32() >> 5, b = u32() >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

std::uint32_t PyRandom::getrandbits(int k) { return u32() >> (32 - k); }

std::uint32_t PyRandom::randbelow(std::uint32_t n) {
  const int bits = std::bit_width(n);  // CPython's _randbelow: getrandbits(n.bit_length()) until below n
  std::uint32_t r;
  do r = getrandbits(bits);
  while (r >= n);
  return r;
}

int PyRandom::randint(int lo, int hi) { return lo + static_cast<int>(randbelow(static_cast<std::uint32_t>(hi - lo + 1))); }

std::vector<std::size_t> PyRandom::sample(std::size_t n, std::size_t k) {
  std::vector<std::size_t> out;
  std::size_t setsize = 21;  // CPython: the size of a small set minus an empty list's
  if (k > 5) setsize += static_cast<std::size_t>(std::pow(4.0, std::ceil(std::log(static_cast<double>(k * 3)) / std::log(4.0))));
  if (n <= setsize) {
    std::vector<std::size_t> pool(n);
    for (std::size_t i = 0; i < n; ++i) pool[i] = i;
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t j = randbelow(static_cast<std::uint32_t>(n - i));
      out.push_back(pool[j]);
      pool[j] = pool[n - i - 1];
    }
  } else {
    for (std::size_t i = 0; i < k; ++i) {
      std::size_t j;
      do j = randbelow(static_cast<std::uint32_t>(n));
      while (std::find(out.begin(), out.end(), j) != out.end());
      out.push_back(j);
    }
  }
  return out;
}

}  // namespace rm::synergy
