#include "live/metrics_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace rm::live {

MetricsServer::MetricsServer(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) throw InputError("--metrics", 0, address, "expected HOST:PORT, e.g. 127.0.0.1:9464");
  const std::string host = address.substr(0, colon);
  int port = -1;
  try {
    std::size_t used = 0;
    port = std::stoi(address.substr(colon + 1), &used);
    if (used != address.size() - colon - 1) port = -1;
  } catch (...) {
  }
  if (port < 0 || port > 65535) throw InputError("--metrics", 0, address, "the port must be a number from 0 to 65535");
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<std::uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &sa.sin_addr) != 1)
    throw InputError("--metrics", 0, address, "the host must be an IPv4 address such as 127.0.0.1");
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd_, 8) != 0) {
    const std::string why = std::strerror(errno);
    if (fd_ >= 0) ::close(fd_);
    throw InputError("--metrics", 0, address, "cannot listen there: " + why);
  }
  socklen_t len = sizeof sa;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&sa), &len);
  port_ = ntohs(sa.sin_port);
  thread_ = std::thread([this] { serve(); });
}

MetricsServer::~MetricsServer() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) ::close(fd_);
}

void MetricsServer::publish(std::string text) {
  std::lock_guard<std::mutex> g(mu_);
  text_ = std::move(text);
}

void MetricsServer::serve() {
  while (!stop_) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) continue;
    // The request line is all it reads (a client sends its headers; they are not needed): up to 2 s for it.
    std::string req;
    char buf[1024];
    for (int waited = 0; req.find("\r\n") == std::string::npos && req.find('\n') == std::string::npos && waited < 10;) {
      pollfd q{c, POLLIN, 0};
      if (::poll(&q, 1, 200) <= 0) {
        ++waited;
        continue;
      }
      const ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) break;
      req.append(buf, static_cast<std::size_t>(n));
      if (req.size() > 8192) break;
    }
    std::string body, status = "200 OK", type = "text/plain; version=0.0.4; charset=utf-8";
    if (req.rfind("GET /metrics ", 0) == 0 || req.rfind("GET /metrics?", 0) == 0) {
      std::lock_guard<std::mutex> g(mu_);
      body = text_;
    } else {
      status = "404 Not Found";
      type = "text/plain";
      body = "ringmaster serve: metrics are at /metrics\n";
    }
    const std::string resp = "HTTP/1.0 " + status + "\r\nContent-Type: " + type + "\r\nContent-Length: " +
                             std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    std::size_t sent = 0;
    while (sent < resp.size()) {
      const ssize_t n = ::send(c, resp.data() + sent, resp.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
    ::close(c);
  }
}

}  // namespace rm::live
