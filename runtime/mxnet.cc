// MXNet: the DMLC variables ps-lite reads to find its scheduler (docs/tony-compat.md §4.4).
//
// TonY maps job names straight to DMLC roles: the `scheduler`, `server` and `worker` roles. ps-lite
// connects to the scheduler by IP address, so the scheduler's host is resolved here; its port is
// the one the scheduler's executor reserved and released for the scheduler process to bind.
#include "runtime/peers.h"
#include "runtime/runtime.h"

namespace tony::runtime {
namespace {

int RoleSize(const Cluster& cluster, const std::string& role) {
  auto it = cluster.find(role);
  return it == cluster.end() ? 0 : static_cast<int>(it->second.size());
}

}  // namespace

Result<EnvMap> MxnetEnv(const TaskEnvInput& in) {
  EnvMap env;
  if (in.cluster.empty()) return env;
  env["CLUSTER_SPEC"] = ClusterSpecJson(in.cluster);
  auto scheduler = in.cluster.find("scheduler");
  if (scheduler == in.cluster.end() || scheduler->second.empty()) {
    return InvalidArgument(
        "tony.application.framework = mxnet needs a scheduler task in the cluster spec "
        "(set tony.scheduler.instances = 1)");
  }
  auto [host, port] = SplitHostPort(scheduler->second.front());
  if (host.empty()) {
    return InvalidArgument("malformed address in cluster spec: " + scheduler->second.front());
  }
  Result<std::string> ip = ResolveIpv4(host);
  if (!ip.ok()) return ip.status().WithContext("DMLC_PS_ROOT_URI for the mxnet scheduler");
  // Built as one initializer list: gcc 12's -Wrestrict misfires on assigning a short literal
  // to a map element here.
  EnvMap dmlc = {{"DMLC_ROLE", in.role},
                 {"DMLC_PS_ROOT_URI", *ip},
                 {"DMLC_PS_ROOT_PORT", port},
                 {"DMLC_NUM_SERVER", std::to_string(RoleSize(in.cluster, "server"))},
                 {"DMLC_NUM_WORKER", std::to_string(RoleSize(in.cluster, "worker"))},
                 {"DMLC_LOCAL", "0"}};
  env.merge(dmlc);
  return env;
}

}  // namespace tony::runtime
