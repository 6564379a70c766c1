// Reading peers out of a published cluster spec: shared by the framework env builders.
//
// Pure functions of their arguments, except ResolveIpv4, which asks the system resolver.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "runtime/runtime.h"

namespace tony::runtime {

// The host of a cluster spec entry ("host:port", read by common/net.h's ParseHostPort); empty
// when the entry is not host:port.
std::string PeerHost(const std::string& address);

// The roles whose tasks form one process group (PyTorch, JAX), in rank order: Kubeflow's master
// (tony's chief) first, then the workers. Other roles (ps, evaluator, sidecars) are not members.
std::vector<std::string> ProcessGroupRoles(const Cluster& cluster);

// Where a task stands in the process group of ProcessGroupRoles: its rank (-1 when its role is
// not a member), the group size and the address of rank 0 (empty when the group is empty).
struct GroupPosition {
  int rank = -1;
  int size = 0;
  std::string first_address;
};
GroupPosition PositionInGroup(const Cluster& cluster, const std::string& role, int index);

// The IPv4 address of `host` (returned unchanged when it already is one), as TonY does for
// addresses that frameworks cannot take as host names (DMLC_PS_ROOT_URI).
Result<std::string> ResolveIpv4(const std::string& host);

}  // namespace tony::runtime
