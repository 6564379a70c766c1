// generic: CLUSTER_SPEC only; standalone: one task, no peers (TonY's standalone mode).
#include "runtime/frameworks.h"
#include "runtime/runtime.h"

namespace tony::runtime {
namespace {

class Generic final : public Framework {
 public:
  std::string_view name() const override { return "generic"; }
  Result<EnvMap> TaskEnv(const TaskEnvInput& in) const override {
    EnvMap env;
    if (!in.cluster.empty()) env["CLUSTER_SPEC"] = ClusterSpecJson(in.cluster);
    return env;
  }
};

class Standalone final : public Framework {
 public:
  std::string_view name() const override { return "standalone"; }
  Status Validate(const JobSpec& spec) const override {
    if (spec.TotalInstances() == 1) return Status::Ok();
    return InvalidArgument(FrameworkIs(name()) + " runs exactly one task, but the job has " +
                           std::to_string(spec.TotalInstances()) + " (set a single " +
                           keys::kRoleInstances + " to 1)");
  }
  Result<EnvMap> TaskEnv(const TaskEnvInput& /*in*/) const override { return EnvMap{}; }
};

}  // namespace

std::unique_ptr<Framework> MakeGeneric() { return std::make_unique<Generic>(); }
std::unique_ptr<Framework> MakeStandalone() { return std::make_unique<Standalone>(); }

}  // namespace tony::runtime
