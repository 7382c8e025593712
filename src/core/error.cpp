#include "core/error.h"

namespace rm {

std::string location(const std::string& file, long line, const std::string& field) {
  std::string s;
  s.reserve(file.size() + field.size() + 24);
  s.append(file);
  if (line > 0) s.append(":").append(std::to_string(line));
  if (!field.empty()) s.append(":").append(field);
  return s;
}

InputError::InputError(const std::string& file, long line, const std::string& field,
                       const std::string& msg)
    : std::runtime_error(location(file, line, field) + ": " + msg) {}

}  // namespace rm
