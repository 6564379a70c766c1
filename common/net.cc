#include "common/net.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "common/strings.h"

namespace tony {
namespace {

// Splits `text` (trimmed) into a host, IPv6 brackets removed, and the text after its ':' (nullopt
// when there is no ':'); an error says why it is neither. The port is not read here.
Result<std::pair<std::string, std::optional<std::string>>> SplitHostPortText(
    std::string_view text) {
  if (text.empty()) return InvalidArgument("it is empty");
  if (text.front() == '[') {
    size_t close = text.find(']');
    if (close == std::string_view::npos)
      return InvalidArgument("the '[' of an IPv6 address is not closed");
    std::string host(text.substr(1, close - 1));
    if (!host.empty() &&
        (host.find(':') == std::string::npos || host.find_first_of("[]") != std::string::npos)) {
      return InvalidArgument("brackets hold an IPv6 address, not \"" + host + "\"");
    }
    std::string_view rest = text.substr(close + 1);
    if (rest.empty()) return std::make_pair(host, std::optional<std::string>());
    if (rest.front() != ':') return InvalidArgument("only \":<port>\" may follow the ']'");
    return std::make_pair(host, std::optional<std::string>(rest.substr(1)));
  }
  if (text.find_first_of("[]") != std::string_view::npos) {
    return InvalidArgument("'[' and ']' belong only around an IPv6 address, e.g. [::1]:8020");
  }
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return std::make_pair(std::string(text), std::optional<std::string>());
  }
  if (text.find(':', colon + 1) != std::string_view::npos) {
    return InvalidArgument("an IPv6 address needs brackets, e.g. [::1]:8020");
  }
  return std::make_pair(std::string(text.substr(0, colon)),
                        std::optional<std::string>(text.substr(colon + 1)));
}

Result<uint16_t> ParsePort(std::string_view port) {
  if (port.empty()) return InvalidArgument("the port is empty");
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (end != port.data() + port.size() ||
      (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    return InvalidArgument("the port \"" + std::string(port) + "\" is not a number");
  }
  if (ec == std::errc::result_out_of_range || value < 1 || value > 65535) {
    return InvalidArgument("the port " + std::string(port) + " is not in 1-65535");
  }
  return static_cast<uint16_t>(value);
}

Status Explained(const Status& reason, std::string_view expected, std::string_view text,
                 std::string_view where) {
  std::string m = std::string(where);
  if (!m.empty()) m += ": ";
  m += "expected " + std::string(expected) + ", got \"" + std::string(text) +
       "\": " + reason.message();
  return InvalidArgument(std::move(m));
}

}  // namespace

std::string HostPort::ToString() const {
  std::string h = host.find(':') == std::string::npos ? host : "[" + host + "]";
  return h + ":" + std::to_string(port);
}

Result<HostPort> ParseHostPort(std::string_view text, std::string_view where) {
  constexpr std::string_view kExpected = "host:port";
  auto split = SplitHostPortText(Trim(text));
  if (!split.ok()) return Explained(split.status(), kExpected, text, where);
  auto& [host, port_text] = *split;
  if (host.empty()) return Explained(InvalidArgument("there is no host"), kExpected, text, where);
  if (!port_text) return Explained(InvalidArgument("there is no port"), kExpected, text, where);
  auto port = ParsePort(*port_text);
  if (!port.ok()) return Explained(port.status(), kExpected, text, where);
  return HostPort{std::move(host), *port};
}

Result<Authority> ParseAuthority(std::string_view text, std::string_view where) {
  constexpr std::string_view kExpected = "host[:port]";
  std::string_view trimmed = Trim(text);
  if (trimmed.empty()) return Authority{};
  auto split = SplitHostPortText(trimmed);
  if (!split.ok()) return Explained(split.status(), kExpected, text, where);
  auto& [host, port_text] = *split;
  Authority a{std::move(host), std::nullopt};
  if (port_text) {
    auto port = ParsePort(*port_text);
    if (!port.ok()) return Explained(port.status(), kExpected, text, where);
    a.port = *port;
  }
  return a;
}

ReservedPort::ReservedPort(ReservedPort&& other) noexcept
    : fd_(other.fd_), fd6_(other.fd6_), port_(other.port_), reuse_port_(other.reuse_port_) {
  other.fd_ = -1;
  other.fd6_ = -1;
}

ReservedPort& ReservedPort::operator=(ReservedPort&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = other.fd_;
    fd6_ = other.fd6_;
    port_ = other.port_;
    reuse_port_ = other.reuse_port_;
    other.fd_ = -1;
    other.fd6_ = -1;
  }
  return *this;
}

ReservedPort::~ReservedPort() { Release(); }

void ReservedPort::Release() {
  if (fd_ >= 0) ::close(fd_);
  if (fd6_ >= 0) ::close(fd6_);
  fd_ = -1;
  fd6_ = -1;
}

namespace {

// A TCP socket of `family` bound to the wildcard address's `port`, never listening; for
// AF_INET6 with IPV6_V6ONLY, so that it covers what the AF_INET one does not. On failure `fd` is
// -1 and `err`/`what` say which call failed and why.
struct Bound {
  int fd = -1;
  int err = 0;
  std::string what;
  Status status() const { return ErrnoStatus(what, err); }
};

Bound BindWildcard(int family, uint16_t port, bool reuse_port) {
  Bound b;
  int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  auto fail = [&b, fd](std::string what) {
    b.err = errno;
    b.what = std::move(what);
    if (fd >= 0) ::close(fd);
    return b;
  };
  if (fd < 0) return fail("socket");
  int one = 1;
  if (reuse_port && ::setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0) {
    return fail("setsockopt(SO_REUSEPORT)");
  }
  int rc = 0;
  if (family == AF_INET6) {
    if (::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) != 0) {
      return fail("setsockopt(IPV6_V6ONLY)");
    }
    sockaddr_in6 addr{};
    addr.sin6_family = AF_INET6;
    addr.sin6_addr = in6addr_any;
    addr.sin6_port = htons(port);
    rc = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  } else {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    addr.sin_port = htons(port);
    rc = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  }
  if (rc != 0) {
    return fail("cannot bind port " + std::to_string(port) +
                (family == AF_INET6 ? " on IPv6 ([::])" : ""));
  }
  b.fd = fd;
  return b;
}

}  // namespace

Result<ReservedPort> ReservedPort::Reserve(uint16_t port, bool reuse_port) {
  // Both families: a port bound for IPv4 alone is still free on IPv6 (an IPV6_V6ONLY socket of
  // any user could bind it and receive the peers that reach this host over IPv6). A kernel-chosen
  // port whose IPv6 side is taken is given back and another chosen.
  constexpr int kTries = 8;
  Status last;
  for (int attempt = 0; attempt < (port == 0 ? kTries : 1); ++attempt) {
    Bound v4 = BindWildcard(AF_INET, port, reuse_port);
    if (v4.fd < 0) return v4.status();
    ReservedPort r;
    r.fd_ = v4.fd;
    r.reuse_port_ = reuse_port;
    sockaddr_in addr{};
    socklen_t len = sizeof(addr);
    if (::getsockname(v4.fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      return ErrnoStatus("getsockname", errno);
    }
    r.port_ = ntohs(addr.sin_port);
    Bound v6 = BindWildcard(AF_INET6, r.port_, reuse_port);
    if (v6.fd >= 0) {
      r.fd6_ = v6.fd;
      return r;
    }
    // No IPv6 here (no stack, or disabled): the IPv4 side is all there is to hold.
    if (v6.err == EAFNOSUPPORT || v6.err == EADDRNOTAVAIL) return r;
    last = v6.status();
  }
  return last;
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

Result<std::string> ReusePortShimBeside(const std::string& binary) {
  std::string dir = binary.substr(0, binary.find_last_of('/') + 1);
  std::string shim = (dir.empty() ? std::string("./") : dir) + "../lib/" + kReusePortShimName;
  if (::access(shim.c_str(), R_OK) != 0) {
    return ErrnoStatus("the port-hold library " + shim + " is not there", errno);
  }
  return shim;
}

}  // namespace tony
