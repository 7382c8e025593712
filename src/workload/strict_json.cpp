#include "workload/strict_json.h"

#include <nlohmann/json.hpp>

#include <set>
#include <vector>

#include "core/error.h"
#include "workload/parse_util.h"

namespace rm {

nlohmann::json parse_json_text(const std::string& text, const std::string& path, const std::string& what) {
  // Nesting first, in one pass over the text outside strings: the parser itself is not asked to go deep.
  int depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw InputError(path, 0, "", "not a " + what + ": nested more than " + std::to_string(kMaxJsonDepth) + " deep");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  // A key given twice in one object leaves the object with fewer members than the keys the parser read: each open
  // object counts its keys. Only then is the text read again, keeping each object's keys, to name the duplicate (a
  // set per object for every file cost a fifth of --compat gavel's run on its 1.2-MB throughput table).
  std::vector<std::size_t> counts;  // per open object
  bool twice = false;
  const nlohmann::json::parser_callback_t count = [&](int, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (ev == E::object_start) counts.push_back(0);
    else if (ev == E::key && !counts.empty()) ++counts.back();
    else if (ev == E::object_end && !counts.empty()) {
      twice = twice || counts.back() != parsed.size();
      counts.pop_back();
    }
    return true;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text, count);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, 0, "", "not a " + what + ": " + e.what());
  }
  if (!twice) return j;
  std::vector<std::set<std::string>> keys;  // per open object
  std::string duplicate;
  const nlohmann::json::parser_callback_t name = [&](int, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (ev == E::object_start) keys.emplace_back();
    else if (ev == E::object_end && !keys.empty()) keys.pop_back();
    else if (ev == E::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second && duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  const nlohmann::json again = nlohmann::json::parse(text, name);
  throw InputError(path, 0, duplicate, "not a " + what + ": the key appears twice in one object");
}

nlohmann::json parse_json_file(const std::string& path, const std::string& what) {
  return parse_json_text(read_input_file(path, kMaxConfigBytes, what), path, what);
}

}  // namespace rm
