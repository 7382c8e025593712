// JSON that a user hands ringmaster (measured tables, a sweep's summaries): read with the input-file checks
// (workload/parse_util.h read_input_file: no folder, device or oversized file), refused with the file's name when
// malformed, when an object repeats a key (nlohmann keeps the last silently) or when it nests deeper than
// kMaxJsonDepth (a 100,000-deep array crashed a sweep merge).
#pragma once
#include <nlohmann/json_fwd.hpp>

#include <string>

namespace rm {

constexpr int kMaxJsonDepth = 256;
nlohmann::json parse_json_file(const std::string& path, const std::string& what);
nlohmann::json parse_json_text(const std::string& text, const std::string& path, const std::string& what);

}  // namespace rm
