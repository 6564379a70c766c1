// MXNet: the DMLC variables ps-lite reads to find its scheduler (docs/tony-compat.md §4.4).
//
// TonY maps job names straight to DMLC roles: the `scheduler`, `server` and `worker` roles. ps-lite
// connects to the scheduler by IP address, so the scheduler's host is resolved here; its port is
// the one the scheduler's executor reserved and released for the scheduler process to bind.
#include "common/net.h"
#include "runtime/frameworks.h"
#include "runtime/peers.h"
#include "runtime/runtime.h"

namespace tony::runtime {
namespace {

int RoleSize(const Cluster& cluster, const std::string& role) {
  auto it = cluster.find(role);
  return it == cluster.end() ? 0 : static_cast<int>(it->second.size());
}

// MXNet's parameter server is ps-lite: one scheduler, servers and workers (TonY #370).
Status Validate(const JobSpec& spec) {
  if (Instances(spec, "scheduler") != 1) {
    return InvalidArgument(FrameworkIs("mxnet") + " needs exactly one scheduler task, but " +
                           InstancesKey("scheduler") + " = " +
                           std::to_string(Instances(spec, "scheduler")) + " (set it to 1)");
  }
  if (Instances(spec, "ps") > 0) {
    return InvalidArgument(FrameworkIs("mxnet") +
                           " has no ps role: its parameter servers are the server role (set " +
                           InstancesKey("ps") + " = 0 and " + InstancesKey("server") + " instead)");
  }
  if (Instances(spec, "server") < 1 || Instances(spec, "worker") < 1) {
    return InvalidArgument(FrameworkIs("mxnet") + " needs " + InstancesKey("server") + " and " +
                           InstancesKey("worker") + " to be at least 1");
  }
  if (spec.mode == DistributedMode::kFcfs) {
    return InvalidArgument(FrameworkIs("mxnet") +
                           " needs every task's address before any starts: set " +
                           keys::kApplicationDistributedMode + " = GANG");
  }
  return Status::Ok();
}

class Mxnet final : public Framework {
 public:
  std::string_view name() const override { return "mxnet"; }
  Status Validate(const JobSpec& spec) const override { return runtime::Validate(spec); }
  Result<EnvMap> TaskEnv(const TaskEnvInput& in) const override { return MxnetEnv(in); }
};

}  // namespace

Result<EnvMap> MxnetEnv(const TaskEnvInput& in) {
  EnvMap env;
  if (in.cluster.empty()) return env;
  env["CLUSTER_SPEC"] = ClusterSpecJson(in.cluster);
  auto scheduler = in.cluster.find("scheduler");
  if (scheduler == in.cluster.end() || scheduler->second.empty()) {
    return InvalidArgument(FrameworkIs("mxnet") +
                           " needs a scheduler task in the cluster spec (set " +
                           InstancesKey("scheduler") + " = 1)");
  }
  TONY_ASSIGN_OR_RETURN(HostPort address,
                        ParseHostPort(scheduler->second.front(),
                                      "the mxnet scheduler's address in the cluster spec"));
  Result<std::string> ip = ResolveIpv4(address.host);
  if (!ip.ok()) return ip.status().WithContext("DMLC_PS_ROOT_URI for the mxnet scheduler");
  // Built as one initializer list: gcc 12's -Wrestrict misfires on assigning a short literal
  // to a map element here.
  EnvMap dmlc = {{"DMLC_ROLE", in.role},
                 {"DMLC_PS_ROOT_URI", *ip},
                 {"DMLC_PS_ROOT_PORT", std::to_string(address.port)},
                 {"DMLC_NUM_SERVER", std::to_string(RoleSize(in.cluster, "server"))},
                 {"DMLC_NUM_WORKER", std::to_string(RoleSize(in.cluster, "worker"))},
                 {"DMLC_LOCAL", "0"}};
  env.merge(dmlc);
  return env;
}

std::unique_ptr<Framework> MakeMxnet() { return std::make_unique<Mxnet>(); }

}  // namespace tony::runtime
