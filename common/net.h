// Network helpers: the host name peers should use, and port reservation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace tony {

// A TCP port bound (not listening) by this process so that no other process can take it between
// the moment it is published in the cluster spec and the moment the user process binds it
// (TonY issues #220/#365). Release() closes the socket; the destructor does too.
class ReservedPort {
 public:
  ReservedPort() = default;
  ReservedPort(ReservedPort&& other) noexcept;
  ReservedPort& operator=(ReservedPort&& other) noexcept;
  ReservedPort(const ReservedPort&) = delete;
  ReservedPort& operator=(const ReservedPort&) = delete;
  ~ReservedPort();

  // Binds 0.0.0.0:<port> and, where the host has IPv6, [::]:<port> (IPV6_V6ONLY); port 0 lets
  // the kernel choose. With `reuse_port` the socket has
  // SO_REUSEPORT: a process of the same user that sets it too (TensorFlow's gRPC with
  // TF_GRPC_REUSE_PORT) can bind and listen on the port while this one still holds it; no other
  // process can. This socket never listens, so it takes none of the port's connections.
  static Result<ReservedPort> Reserve(uint16_t port = 0, bool reuse_port = false);

  uint16_t port() const { return port_; }
  bool reuse_port() const { return reuse_port_; }
  bool held() const { return fd_ >= 0; }
  void Release();

 private:
  int fd_ = -1;
  int fd6_ = -1;  // [::]:port_ with IPV6_V6ONLY; -1 on a host without IPv6
  uint16_t port_ = 0;
  bool reuse_port_ = false;
};

// The port-hold preload library (executor/preload/tony_reuseport.c): preloaded into a task's user
// process whose listener would not set SO_REUSEPORT by itself, it sets it on a bind to a port named
// in kHeldPortsVar, so that the process can bind the port its executor holds. It lives in
// bin/tony's
// ../lib, in the build tree and in the YARN bundle (client/bundle.h) alike.
inline constexpr char kReusePortShimName[] = "libtony-reuseport.so";
inline constexpr char kHeldPortsVar[] = "TONY_HELD_PORTS";
// <directory of `binary`>/../lib/libtony-reuseport.so, or NotFound naming that path.
Result<std::string> ReusePortShimBeside(const std::string& binary);

// A TCP endpoint as Hadoop's and tony's settings write it: "host:port", an IPv6 literal in
// brackets ("[::1]:8020"), as Hadoop's NetUtils.createSocketAddr reads it.
struct HostPort {
  std::string host;  // an IPv6 literal without its brackets
  uint16_t port = 0;

  // "host:port" again, the host in brackets when it is an IPv6 literal.
  std::string ToString() const;
};

// Parses "host:port" or "[v6]:port" (surrounding blanks ignored): a host and a port in 1-65535.
// An error (kInvalidArgument) reads "<where>: expected host:port, got "<text>": <reason>", where
// names the input's origin ("yarn.resourcemanager.address in /etc/hadoop/yarn-site.xml"); an
// IPv6 literal without brackets is refused, as its last group cannot be told from a port.
Result<HostPort> ParseHostPort(std::string_view text, std::string_view where);

// A URI's authority, "host[:port]" or "[v6][:port]": the host may be empty (hdfs:///path), the
// port is absent or in 1-65535. Errors as ParseHostPort's, "expected host[:port]".
struct Authority {
  std::string host;
  std::optional<uint16_t> port;
};
Result<Authority> ParseAuthority(std::string_view text, std::string_view where);

// Waits until host:port accepts a TCP connection, up to `timeout_ms`; false if it never did.
bool WaitForTcpListener(const std::string& host, int port, int64_t timeout_ms);

// The name other tasks use to reach this host: $TONY_HOST if set (tests, multi-homed hosts), else
// the NodeManager's $NM_HOST on YARN, else gethostname().
std::string AdvertisedHost();

}  // namespace tony
