#include "policy/coin.h"

#include "core/error.h"
#include "core/lazy_lib.h"

namespace rm {

const CoinKernels& coin() {
  static const CoinKernels* k = [] {
    using Get = const CoinKernels* (*)();
    const auto* got = reinterpret_cast<Get>(plugin_symbol("ringmaster_coin", "rm_coin_kernels"))();
    if (got->version != kCoinKernelsVersion) throw InvariantError("libringmaster_coin.so is from another build");
    return got;
  }();
  return *k;
}

}  // namespace rm
