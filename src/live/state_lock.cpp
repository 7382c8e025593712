#include "live/state_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>

#include "core/error.h"

namespace rm::live {

std::string host_name() {
  char h[256] = {};
  if (gethostname(h, sizeof h - 1) != 0) return "unknown";
  return h;
}

StateLock::StateLock(const std::string& state_dir, const std::string& what) {
  std::error_code ec;
  std::filesystem::create_directories(state_dir, ec);
  const std::string path = (std::filesystem::path(state_dir) / "serve.lock").string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw InputError("--state", 0, state_dir, "cannot open " + path + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string holder(512, '\0');
    const ssize_t n = ::pread(fd_, holder.data(), holder.size(), 0);
    holder.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0')) holder.pop_back();
    ::close(fd_);
    fd_ = -1;
    if (err != EWOULDBLOCK)
      throw InputError("--state", 0, state_dir, "cannot lock " + path + ": " + std::strerror(err));
    throw InputError("--state", 0, state_dir,
                     "another ringmaster serve is running on this state folder (" +
                         (holder.empty() ? std::string("it has not written its name yet") : holder) +
                         "); stop it first, or give this one another --state");
  }
  char stamp[32];
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
  const std::string me = "host " + host_name() + ", pid " + std::to_string(::getpid()) + ", " + what + ", since " + stamp + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
    // The lock holds whatever the file says; a full disk only loses the name a second daemon would print.
  }
}

StateLock::~StateLock() {
  if (fd_ >= 0) ::close(fd_);  // the lock goes with the descriptor
}

}  // namespace rm::live
