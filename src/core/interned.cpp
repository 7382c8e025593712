#include "core/interned.h"

#include <mutex>
#include <unordered_set>

namespace rm {

const std::string& Interned::empty_text() {
  static const std::string e;
  return e;
}

// One set for the process (its nodes never move, so the pointers stay good), behind a lock: runs in a sweep's
// threads intern their traces' names too. The last text interned on a thread answers first without the lock (a
// trace's rows name one file).
const std::string* Interned::intern(std::string_view s) {
  if (s.empty()) return &empty_text();
  thread_local const std::string* last = nullptr;
  if (last && *last == s) return last;
  static std::mutex mu;
  static std::unordered_set<std::string>* texts = new std::unordered_set<std::string>();  // never destroyed
  std::lock_guard<std::mutex> lock(mu);
  last = &*texts->emplace(s).first;
  return last;
}

}  // namespace rm
