// Errors with a location: every bad input names file:line:field.
#pragma once
#include <stdexcept>
#include <string>

namespace rm {

// A problem with user input (trace, cluster file, CLI value). The CLI prints what() and exits 2.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, long line, const std::string& field, const std::string& msg);
  explicit InputError(const std::string& msg) : std::runtime_error(msg) {}
};

// A broken invariant inside the engine (a bug, never bad input). The CLI exits 3.
class InvariantError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

std::string location(const std::string& file, long line, const std::string& field);

}  // namespace rm
