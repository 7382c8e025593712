// A string held once for many holders: every job of a trace names the same file (JobSpec::file, for error messages),
// and a million jobs each with its own copy of a 30-character path held 80 B a job (docs/performance.md "The rate
// model at a million jobs"). An Interned is a pointer to the one copy of its text, kept for the life of the process
// (a run's file names are few; the live backend's per-job origins are as many as its jobs, as before).
#pragma once
#include <string>
#include <string_view>

namespace rm {

class Interned {
 public:
  Interned() : s_(&empty_text()) {}
  Interned(const std::string& s) : s_(intern(s)) {}  // NOLINT: a std::string's stand-in, converted implicitly
  Interned(std::string_view s) : s_(intern(s)) {}     // NOLINT
  Interned(const char* s) : s_(intern(s)) {}          // NOLINT
  operator const std::string&() const { return *s_; }  // NOLINT
  const std::string& str() const { return *s_; }
  const char* c_str() const { return s_->c_str(); }
  bool empty() const { return s_->empty(); }
  friend bool operator==(const Interned& a, const Interned& b) { return a.s_ == b.s_; }  // one copy per text
  friend bool operator==(const Interned& a, const std::string& b) { return *a.s_ == b; }
  friend bool operator==(const Interned& a, const char* b) { return *a.s_ == b; }

 private:
  static const std::string& empty_text();
  static const std::string* intern(std::string_view s);
  const std::string* s_;
};

inline std::string operator+(const std::string& a, const Interned& b) { return a + b.str(); }
inline std::string operator+(const Interned& a, const std::string& b) { return a.str() + b; }
inline std::string operator+(const char* a, const Interned& b) { return a + b.str(); }
inline std::string operator+(const Interned& a, const char* b) { return a.str() + b; }

}  // namespace rm
