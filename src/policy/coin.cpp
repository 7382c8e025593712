#include "policy/coin.h"

#include <stdexcept>

#include "core/lazy_lib.h"

namespace rm {

const CoinKernels& coin() {
  static const CoinKernels* k = [] {
    using Get = const CoinKernels* (*)();
    const auto* got = reinterpret_cast<Get>(plugin_symbol("ringmaster_coin", "rm_coin_kernels"))();
    if (got->version != kCoinKernelsVersion) throw std::runtime_error("libringmaster_coin.so is from another build (rebuild, or set RINGMASTER_PLUGIN_DIR)");
    return got;
  }();
  return *k;
}

}  // namespace rm
