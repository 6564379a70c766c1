#include "runtime/peers.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "common/net.h"

namespace tony::runtime {

std::string PeerHost(const std::string& address) {
  auto parsed = ParseHostPort(address, "");
  return parsed.ok() ? parsed->host : "";
}

std::vector<std::string> ProcessGroupRoles(const Cluster& cluster) {
  std::vector<std::string> roles;
  for (const char* r : {"chief", "master", "worker"}) {
    if (cluster.count(r) > 0 && !cluster.at(r).empty()) roles.emplace_back(r);
  }
  return roles;
}

GroupPosition PositionInGroup(const Cluster& cluster, const std::string& role, int index) {
  GroupPosition pos;
  for (const auto& r : ProcessGroupRoles(cluster)) {
    const auto& addresses = cluster.at(r);
    if (pos.first_address.empty()) pos.first_address = addresses.front();
    if (r == role && index >= 0 && index < static_cast<int>(addresses.size())) {
      pos.rank = pos.size + index;
    }
    pos.size += static_cast<int>(addresses.size());
  }
  return pos;
}

Result<std::string> ResolveIpv4(const std::string& host) {
  in_addr literal{};
  if (::inet_pton(AF_INET, host.c_str(), &literal) == 1) return host;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr) {
    return Unavailable("cannot resolve host " + host +
                       " to an IPv4 address: " + (rc != 0 ? ::gai_strerror(rc) : "no address"));
  }
  char text[INET_ADDRSTRLEN] = {};
  const auto* addr = reinterpret_cast<const sockaddr_in*>(found->ai_addr);
  ::inet_ntop(AF_INET, &addr->sin_addr, text, sizeof(text));
  ::freeaddrinfo(found);
  return std::string(text);
}

}  // namespace tony::runtime
