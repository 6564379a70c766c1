// TensorFlow: TF_CONFIG and CLUSTER_SPEC exactly as TonY builds them (docs/tony-compat.md §4.1).
#include <nlohmann/json.hpp>

#include "runtime/frameworks.h"
#include "runtime/runtime.h"

namespace tony::runtime {
namespace {

class TensorFlow final : public Framework {
 public:
  std::string_view name() const override { return "tensorflow"; }
  Result<EnvMap> TaskEnv(const TaskEnvInput& in) const override { return TensorFlowEnv(in); }
  // Every task of the cluster starts a TensorFlow gRPC server on its port, which binds with
  // SO_REUSEPORT when TF_GRPC_REUSE_PORT=true (TensorFlowEnv sets it for a held port). A sidecar
  // (TensorBoard) is no part of that cluster.
  bool ListenerReusesPort(const JobSpec& spec, const std::string& role) const override {
    return !IsSidecar(spec, role);
  }
};

}  // namespace

bool IsSidecar(const JobSpec& spec, const std::string& role) {
  const RoleSpec* r = spec.FindRole(role);
  return role == "tensorboard" || (r != nullptr && r->sidecar);
}

EnvMap TensorFlowEnv(const TaskEnvInput& in) {
  EnvMap env;
  // The executor holds the task's port (HoldsTaskPort): TensorFlow's server must share it. A
  // sidecar's listener (TensorBoard) gets SO_REUSEPORT from the preload library instead.
  if (HoldsTaskPort(*in.spec, in.role) && !IsSidecar(*in.spec, in.role)) {
    env["TF_GRPC_REUSE_PORT"] = "true";
  }
  if (in.spec->mode != DistributedMode::kGang) return env;  // TonY sets neither in FCFS
  env["CLUSTER_SPEC"] = ClusterSpecJson(in.cluster);
  nlohmann::json cluster = nlohmann::json::object();
  for (const auto& [role, addresses] : in.cluster) {
    if (IsSidecar(*in.spec, role)) continue;
    // An evaluator sees itself; no one else sees evaluators (TonY #512/#515).
    if (role == "evaluator" && in.role != "evaluator") continue;
    cluster[role] = addresses;
  }
  nlohmann::json tf_config = {{"cluster", cluster},
                              {"task", {{"type", in.role}, {"index", in.index}}}};
  env["TF_CONFIG"] = DumpJson(tf_config);
  return env;
}

std::unique_ptr<Framework> MakeTensorFlow() { return std::make_unique<TensorFlow>(); }

}  // namespace tony::runtime
