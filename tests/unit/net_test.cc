// ReservedPort: what another socket of this host can and cannot do with a reserved port.
#include "common/net.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace tony {
namespace {

// The errno of binding the wildcard address's `port` (0: bound), with SO_REUSEPORT or not; for
// AF_INET6 as an IPv6-only socket, as another user would to take the IPv6 side. The socket is
// closed again unless `keep` is given, which receives it listening.
int TryBind(int family, uint16_t port, bool reuse_port, int* keep = nullptr) {
  int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  int one = 1;
  if (reuse_port) ::setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
  int rc = 0;
  if (family == AF_INET6) {
    ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_any;
    a.sin6_port = htons(port);
    rc = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = htons(port);
    rc = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  }
  int err = rc == 0 ? 0 : errno;
  if (rc == 0 && keep != nullptr && ::listen(fd, 4) == 0) {
    *keep = fd;
    return 0;
  }
  ::close(fd);
  return err;
}

bool HostHasIpv6() {
  int fd = ::socket(AF_INET6, SOCK_STREAM, 0);
  if (fd < 0) return false;
  ::close(fd);
  return TryBind(AF_INET6, 0, false) == 0;
}

TEST(ReservedPortTest, HoldsIpv4AndIpv6UntilReleased) {
  auto port = ReservedPort::Reserve();
  ASSERT_TRUE(port.ok()) << port.status().message();
  EXPECT_EQ(TryBind(AF_INET, port->port(), false), EADDRINUSE);
  EXPECT_EQ(TryBind(AF_INET, port->port(), true), EADDRINUSE);
  if (HostHasIpv6()) {
    // Held for IPv4 alone, an IPv6-only socket could take the port for peers that come over IPv6.
    EXPECT_EQ(TryBind(AF_INET6, port->port(), false), EADDRINUSE);
    EXPECT_EQ(TryBind(AF_INET6, port->port(), true), EADDRINUSE);
  }
  port->Release();
  EXPECT_EQ(TryBind(AF_INET, port->port(), false), 0);
  if (HostHasIpv6()) {
    EXPECT_EQ(TryBind(AF_INET6, port->port(), false), 0);
  }
}

TEST(ReservedPortTest, AHeldPortIsSharedOnlyWithSoReusePortAndTheListenerGetsTheConnections) {
  auto port = ReservedPort::Reserve(0, true);
  ASSERT_TRUE(port.ok()) << port.status().message();
  EXPECT_TRUE(port->reuse_port());
  EXPECT_EQ(TryBind(AF_INET, port->port(), false), EADDRINUSE);
  int listener = -1;
  ASSERT_EQ(TryBind(AF_INET, port->port(), true, &listener), 0);
  // The hold never listens, so the connection reaches the process's listener.
  int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port->port());
  ASSERT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  int accepted = ::accept(listener, nullptr, nullptr);
  EXPECT_GE(accepted, 0);
  ::close(accepted);
  ::close(client);
  ::close(listener);
}

}  // namespace
}  // namespace tony
