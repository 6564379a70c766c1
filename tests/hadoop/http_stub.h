// A one-thread HTTP server on loopback for WebHDFS tests (tests/hadoop): it plays a NameNode or
// a DataNode with canned replies. Not thread-safe apart from `served`.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdint>
#include <string>
#include <thread>

namespace tony::hadoop {

// A socket listening on an ephemeral loopback port (stored in *port), for the stubs here.
inline int ListenOnLoopback(int backlog, uint16_t* port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  ::listen(fd, backlog);
  return fd;
}

// A one-thread HTTP server on loopback that answers each of `replies` requests with
// `status_line`, `headers` (each line ending "\r\n", e.g. a Location) and `body`, in order, then
// stops; `served` counts the requests.
class HttpStub {
 public:
  HttpStub(std::string status_line, std::string body, int replies, std::string headers = "")
      : status_line_(std::move(status_line)), headers_(std::move(headers)), body_(std::move(body)) {
    fd_ = ListenOnLoopback(4, &port_);
    thread_ = std::thread([this, replies] {
      for (int i = 0; i < replies; ++i) {
        int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        std::string request;
        char buf[1024];
        while (request.find("\r\n\r\n") == std::string::npos) {
          ssize_t n = ::recv(c, buf, sizeof(buf), 0);
          if (n <= 0) break;
          request.append(buf, static_cast<size_t>(n));
        }
        // A PUT's bytes are read too: closing with them unread would reset the connection.
        size_t header_end = request.find("\r\n\r\n");
        size_t length = ContentLength(request.substr(0, header_end));
        while (header_end != std::string::npos && request.size() < header_end + 4 + length) {
          ssize_t n = ::recv(c, buf, sizeof(buf), 0);
          if (n <= 0) break;
          request.append(buf, static_cast<size_t>(n));
        }
        ++served;  // before the reply: the client may check the count as soon as it reads it
        std::string reply =
            status_line_ + "\r\n" + headers_ +
            "Content-Type: application/json\r\nContent-Length: " + std::to_string(body_.size()) +
            "\r\nConnection: close\r\n\r\n" + body_;
        (void)::send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
        ::close(c);
      }
    });
  }
  ~HttpStub() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  std::atomic<int> served{0};

 private:
  static size_t ContentLength(std::string headers) {
    for (char& ch : headers) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    size_t at = headers.find("\r\ncontent-length:");
    return at == std::string::npos ? 0 : std::stoul(headers.substr(at + 17));
  }

  std::string status_line_;
  std::string headers_;
  std::string body_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
};

}  // namespace tony::hadoop
