// One daemon per state folder: `serve` takes an exclusive flock(2) on <state>/serve.lock for its whole life (the
// kernel drops it when the process dies, kill -9 included) and writes its host, pid, partition and start time in
// it, so that a second `serve` on the same --state is refused (exit 2) naming the one running.
#pragma once
#include <string>

namespace rm::live {

class StateLock {
 public:
  // Takes the lock or throws InputError naming the daemon that holds it (its host and pid, as it wrote them).
  StateLock(const std::string& state_dir, const std::string& what);
  ~StateLock();
  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;

 private:
  int fd_ = -1;
};

// "host" of this machine (gethostname), for the lock and the lease.
std::string host_name();

}  // namespace rm::live
