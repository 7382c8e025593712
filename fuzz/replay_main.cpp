// fuzz_replay TARGET FILE|DIR...: runs every file through the fuzz harness, as libFuzzer would, in any build
// (ctest runs the seed corpus and the regression cases this way). Exit 1 on the first bug, naming the file.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "harness.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: fuzz_replay TARGET FILE|DIR...\n";
    return 2;
  }
  std::vector<std::filesystem::path> files;
  for (int i = 2; i < argc; ++i) {
    if (std::filesystem::is_directory(argv[i])) {
      for (const auto& e : std::filesystem::directory_iterator(argv[i]))
        if (e.is_regular_file()) files.push_back(e.path());
    } else {
      files.emplace_back(argv[i]);
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      rm::fuzz::run_one(argv[1], reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    } catch (const std::exception& e) {
      std::cerr << f.string() << ": " << e.what() << "\n";
      return 1;
    }
  }
  std::cout << argv[1] << ": " << files.size() << " inputs OK\n";
  return 0;
}
