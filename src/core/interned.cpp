#include "core/interned.h"

namespace rm {

const std::string& Interned::empty_text() {
  static const std::string e;
  return e;
}

// The text made last on this thread answers a second request for the same text (no lock: each thread keeps its own);
// any other text gets a copy of its own.
std::shared_ptr<const std::string> Interned::share(std::string_view s) {
  if (s.empty()) return nullptr;
  thread_local std::shared_ptr<const std::string> last;
  if (!last || *last != s) last = std::make_shared<const std::string>(s);
  return last;
}

}  // namespace rm
