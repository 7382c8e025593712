// libFuzzer entry (clang -fsanitize=fuzzer): FUZZ_TARGET names the harness target.
#include "harness.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rm::fuzz::run_one(FUZZ_TARGET, data, size);
  return 0;
}
