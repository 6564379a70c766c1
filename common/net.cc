#include "common/net.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <thread>

namespace tony {

ReservedPort::ReservedPort(ReservedPort&& other) noexcept
    : fd_(other.fd_), port_(other.port_), reuse_port_(other.reuse_port_) {
  other.fd_ = -1;
}

ReservedPort& ReservedPort::operator=(ReservedPort&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = other.fd_;
    port_ = other.port_;
    reuse_port_ = other.reuse_port_;
    other.fd_ = -1;
  }
  return *this;
}

ReservedPort::~ReservedPort() { Release(); }

void ReservedPort::Release() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Result<ReservedPort> ReservedPort::Reserve(uint16_t port, bool reuse_port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoStatus("socket", errno);
  int one = 1;
  if (reuse_port && ::setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoStatus("setsockopt(SO_REUSEPORT)", err);
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = htons(port);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoStatus("cannot bind port " + std::to_string(port), err);
  }
  socklen_t len = sizeof(addr);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoStatus("getsockname", err);
  }
  ReservedPort r;
  r.fd_ = fd;
  r.port_ = ntohs(addr.sin_port);
  r.reuse_port_ = reuse_port;
  return r;
}

bool WaitForTcpListener(const std::string& host, int port, int64_t timeout_ms) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  do {
    addrinfo* res = nullptr;
    if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) == 0) {
      for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
        int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        bool ok = ::connect(fd, a->ai_addr, a->ai_addrlen) == 0;
        ::close(fd);
        if (ok) {
          ::freeaddrinfo(res);
          return true;
        }
      }
      ::freeaddrinfo(res);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  } while (std::chrono::steady_clock::now() < deadline);
  return false;
}

std::string AdvertisedHost() {
  for (const char* var : {"TONY_HOST", "NM_HOST"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && *v != '\0') return v;
  }
  char buf[256] = {0};
  if (::gethostname(buf, sizeof(buf) - 1) == 0 && buf[0] != '\0') return buf;
  return "127.0.0.1";
}

}  // namespace tony
