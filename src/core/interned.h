// A string held once for many holders: every job of a trace names the same file (JobSpec::file, for error messages),
// and a million jobs each with its own copy of a 30-character path held 80 B a job (docs/performance.md "The rate
// model at a million jobs"). An Interned shares one copy of its text with the Interned made just before it on the same
// thread from the same text (a reader's rows, one after another), and frees it with its last holder: a daemon's
// per-job origins ("slurm job 42") come and go with their jobs.
#pragma once
#include <memory>
#include <string>
#include <string_view>

namespace rm {

class Interned {
 public:
  Interned() = default;
  Interned(const std::string& s) : s_(share(s)) {}  // NOLINT: a std::string's stand-in, converted implicitly
  Interned(std::string_view s) : s_(share(s)) {}     // NOLINT
  Interned(const char* s) : s_(share(s)) {}          // NOLINT
  operator const std::string&() const { return str(); }  // NOLINT
  const std::string& str() const { return s_ ? *s_ : empty_text(); }
  const char* c_str() const { return str().c_str(); }
  bool empty() const { return str().empty(); }
  friend bool operator==(const Interned& a, const Interned& b) { return a.s_ == b.s_ || a.str() == b.str(); }
  friend bool operator==(const Interned& a, const std::string& b) { return a.str() == b; }
  friend bool operator==(const Interned& a, const char* b) { return a.str() == b; }

 private:
  static const std::string& empty_text();
  static std::shared_ptr<const std::string> share(std::string_view s);
  std::shared_ptr<const std::string> s_;  // null: empty
};

inline std::string operator+(const std::string& a, const Interned& b) { return a + b.str(); }
inline std::string operator+(const Interned& a, const std::string& b) { return a.str() + b; }
inline std::string operator+(const char* a, const Interned& b) { return a + b.str(); }
inline std::string operator+(const Interned& a, const char* b) { return a.str() + b; }

}  // namespace rm
