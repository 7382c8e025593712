// `serve --metrics HOST:PORT`: the daemon's figures in Prometheus' text exposition format over plain HTTP/1.0
// (GET /metrics; anything else 404), from a thread of its own. The loop publishes a new text after every step;
// a scrape reads the latest. POSIX sockets, one connection at a time: a scrape every few seconds needs no more
// (docs/design.md, "Dependencies", on why not an HTTP library).
#pragma once
#include <atomic>
#include <mutex>
#include <string>
#include <thread>

namespace rm::live {

class MetricsServer {
 public:
  // Listens on `address` ("127.0.0.1:9464"; an IPv4 literal and a port). Throws InputError naming --metrics on a
  // bad address or one it cannot bind (in use, not local).
  explicit MetricsServer(const std::string& address);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;
  void publish(std::string text);
  int port() const { return port_; }

 private:
  void serve();
  int fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::string text_;
  std::thread thread_;
};

}  // namespace rm::live
