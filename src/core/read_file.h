// Reading a file a user names (a trace, a cluster YAML, a measured table): refused by name, never read forever.
#pragma once
#include <cstdint>
#include <string>

namespace rm {

// The whole of an input file, refused with a message naming it when it is a folder, a device (/dev/zero: it
// would be read forever), missing, unreadable or larger than max_bytes (read in chunks, so a pipe is capped too).
std::string read_input_file(const std::string& path, std::uintmax_t max_bytes, const std::string& what);
constexpr std::uintmax_t kMaxTraceBytes = std::uintmax_t{16} << 30;   // 16 GiB
constexpr std::uintmax_t kMaxConfigBytes = std::uintmax_t{64} << 20;  // 64 MiB: YAML, JSON, catalogues, tables

}  // namespace rm
