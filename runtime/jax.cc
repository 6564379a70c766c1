// JAX: what jax.distributed.initialize() needs to find its peers.
//
// jax (0.4 through 0.10 at least) reads JAX_COORDINATOR_ADDRESS ("host:port") from the
// environment itself; the process count and id it takes only from a cluster it recognises
// (Slurm, Open MPI, Kubernetes, TPU), none of which tony is, so scripts pass them from
// JAX_NUM_PROCESSES and JAX_PROCESS_ID, the names Kubeflow Trainer's JAX runtime sets. We also
// set Kubeflow Training Operator v1 JAXJob's COORDINATOR_ADDRESS (host only), COORDINATOR_PORT,
// NUM_PROCESSES and PROCESS_ID, and the JAX_PROCESS_COUNT / JAX_PROCESS_INDEX spellings many
// launch scripts read, so a script written for any of these runs unchanged.
//
// Process 0 is the first task of ProcessGroupRoles (chief, else worker 0); its reserved port is
// the coordinator's, which jax binds in process 0 beside the executor's SO_REUSEPORT hold
// (HoldsTaskPort).
#include "common/net.h"
#include "runtime/frameworks.h"
#include "runtime/peers.h"
#include "runtime/runtime.h"

namespace tony::runtime {
namespace {

class Jax final : public Framework {
 public:
  std::string_view name() const override { return "jax"; }
  Status Validate(const JobSpec& spec) const override {
    TONY_RETURN_IF_ERROR(NeedProcessGroupRoot(spec));
    if (spec.mode == DistributedMode::kFcfs) {
      return InvalidArgument(FrameworkIs(name()) +
                             " starts all processes together and cannot run with " +
                             keys::kApplicationDistributedMode + " = FCFS (use GANG)");
    }
    return Status::Ok();
  }
  Result<EnvMap> TaskEnv(const TaskEnvInput& in) const override { return JaxEnv(in); }
  // Process 0's coordination service (XLA's gRPC server) binds the port with gRPC's default
  // SO_REUSEPORT, so the executor can keep holding it (tests/frameworks/test_jax.py).
  bool ListenerReusesPort(const JobSpec& spec, const std::string& role) const override {
    return !IsSidecar(spec, role);
  }
};

}  // namespace

Result<EnvMap> JaxEnv(const TaskEnvInput& in) {
  EnvMap env;
  if (in.cluster.empty()) return env;
  env["CLUSTER_SPEC"] = ClusterSpecJson(in.cluster);
  GroupPosition group = PositionInGroup(in.cluster, in.role, in.index);
  if (group.size == 0) return env;
  TONY_ASSIGN_OR_RETURN(
      HostPort coordinator,
      ParseHostPort(group.first_address, "the jax coordinator's address in the cluster spec"));
  const std::string count = std::to_string(group.size);
  env["JAX_COORDINATOR_ADDRESS"] = group.first_address;
  env["JAX_COORDINATOR_PORT"] = std::to_string(coordinator.port);
  env["JAX_NUM_PROCESSES"] = count;
  env["JAX_PROCESS_COUNT"] = count;
  env["COORDINATOR_ADDRESS"] = coordinator.host;
  env["COORDINATOR_PORT"] = std::to_string(coordinator.port);
  env["NUM_PROCESSES"] = count;
  if (group.rank >= 0) {
    const std::string id = std::to_string(group.rank);
    env["JAX_PROCESS_ID"] = id;
    env["JAX_PROCESS_INDEX"] = id;
    env["PROCESS_ID"] = id;
  }
  return env;
}

std::unique_ptr<Framework> MakeJax() { return std::make_unique<Jax>(); }

}  // namespace tony::runtime
