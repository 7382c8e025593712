#include "core/read_file.h"

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace rm {

std::string read_input_file(const std::string& path, std::uintmax_t max_bytes, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw InputError(path, 0, "", "no such file");
  if (fs::is_directory(st)) throw InputError(path, 0, "", "is a folder, not a " + what + " file");
  if (fs::is_character_file(st) || fs::is_block_file(st) || fs::is_socket(st))
    throw InputError(path, 0, "", "is a device, not a " + what + " file");
  if (fs::is_regular_file(st)) {
    const auto size = fs::file_size(path, ec);
    if (!ec && size > max_bytes)
      throw InputError(path, 0, "", "is " + std::to_string(size) + " bytes, more than a " + what + " may be (" +
                                        std::to_string(max_bytes) + ")");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open the " + what);
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes)
      throw InputError(path, 0, "", "is more than " + std::to_string(max_bytes) + " bytes, more than a " + what + " may be");
  }
  if (in.bad()) throw InputError(path, 0, "", "cannot read the " + what);
  return text;
}

}  // namespace rm
