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
};

}  // namespace

EnvMap TensorFlowEnv(const TaskEnvInput& in) {
  EnvMap env;
  if (in.spec->mode != DistributedMode::kGang) return env;  // TonY sets neither in FCFS
  env["CLUSTER_SPEC"] = ClusterSpecJson(in.cluster);
  nlohmann::json cluster = nlohmann::json::object();
  for (const auto& [role, addresses] : in.cluster) {
    const RoleSpec* r = in.spec->FindRole(role);
    bool sidecar = role == "tensorboard" || (r != nullptr && r->sidecar);
    if (sidecar) continue;
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
