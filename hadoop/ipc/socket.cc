#include "hadoop/ipc/socket.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tony::hadoop::ipc {
namespace {

// Waits for `events` on fd; kDeadlineExceeded when the deadline passes first.
Status WaitFor(int fd, short events, Deadline deadline) {
  while (true) {
    int timeout_ms = -1;
    if (deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          *deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return DeadlineExceeded("timed out waiting for the socket");
      timeout_ms = static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
    }
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, timeout_ms);
    if (n > 0) return Status::Ok();
    if (n < 0 && errno != EINTR) return ErrnoStatus("poll", errno);
  }
}

Status ConnectOne(int fd, const addrinfo* ai, Deadline deadline) {
  int flags = ::fcntl(fd, F_GETFL, 0);
  if (::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return ErrnoStatus("fcntl", errno);
  if (::connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
    if (errno != EINPROGRESS) return ErrnoStatus("connect", errno);
    TONY_RETURN_IF_ERROR(WaitFor(fd, POLLOUT, deadline));
    int err = 0;
    socklen_t len = sizeof(err);
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) {
      return ErrnoStatus("getsockopt", errno);
    }
    if (err != 0) return ErrnoStatus("connect", err);
  }
  if (::fcntl(fd, F_SETFL, flags) < 0) return ErrnoStatus("fcntl", errno);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return Status::Ok();
}

}  // namespace

Result<int> ConnectTcp(const std::string& host, uint16_t port, std::chrono::milliseconds timeout) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  std::string service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &list); rc != 0) {
    return Unavailable("resolving " + host + ": " + ::gai_strerror(rc));
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  Status last = Unavailable("no address for " + host);
  for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      last = ErrnoStatus("socket", errno);
      continue;
    }
    last = ConnectOne(fd, ai, deadline);
    if (last.ok()) {
      ::freeaddrinfo(list);
      return fd;
    }
    ::close(fd);
  }
  ::freeaddrinfo(list);
  StatusCode code =
      last.code() == StatusCode::kDeadlineExceeded ? last.code() : StatusCode::kUnavailable;
  return Status(code, "connecting to " + host + ":" + service + ": " + last.message());
}

Status WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status(StatusCode::kUnavailable, "send: " + std::string(std::strerror(errno)));
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status ReadExactly(int fd, size_t n, std::string* out, Deadline deadline) {
  out->resize(n);
  size_t got = 0;
  while (got < n) {
    if (deadline) TONY_RETURN_IF_ERROR(WaitFor(fd, POLLIN, deadline));
    ssize_t r = ::recv(fd, out->data() + got, n - got, 0);
    if (r == 0) return Unavailable("connection closed by the server");
    if (r < 0) {
      if (errno == EINTR) continue;
      return Status(StatusCode::kUnavailable, "recv: " + std::string(std::strerror(errno)));
    }
    got += static_cast<size_t>(r);
  }
  return Status::Ok();
}

}  // namespace tony::hadoop::ipc
