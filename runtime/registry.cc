// The one list of frameworks, and what callers reach through it.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/strings.h"
#include "runtime/framework.h"
#include "runtime/frameworks.h"

namespace tony::runtime {
namespace {

// In the order of config's FrameworkNames() (the key's allowed values).
const std::vector<std::unique_ptr<Framework>>& Registry() {
  static const auto* kRegistry = [] {
    auto* all = new std::vector<std::unique_ptr<Framework>>();
    all->push_back(MakeTensorFlow());
    all->push_back(MakePyTorch());
    all->push_back(MakeHorovod());
    all->push_back(MakeMxnet());
    all->push_back(MakeJax());
    all->push_back(MakeStandalone());
    all->push_back(MakeGeneric());
    return all;
  }();
  return *kRegistry;
}

// A job whose framework is unknown was refused by ValidateForFramework; should one get this far
// anyway, its tasks get what generic gives.
const Framework& FrameworkOf(const JobSpec& spec) {
  const Framework* fw = FindFramework(spec.framework);
  return fw != nullptr ? *fw : *FindFramework("generic");
}

}  // namespace

Status Framework::Validate(const JobSpec& /*spec*/) const { return Status::Ok(); }
Status Framework::AddRoles(Configuration& /*conf*/, const std::string& /*python*/) const {
  return Status::Ok();
}
Status Framework::PrepareTask(const JobSpec& /*spec*/, const std::string& /*role*/) const {
  return Status::Ok();
}
Status Framework::WaitUntilReady(const JobSpec& /*spec*/, const std::string& /*role*/,
                                 const Cluster& /*cluster*/) const {
  return Status::Ok();
}

std::string Framework::SpecAwaits(const JobSpec& /*spec*/, const std::string& /*role*/) const {
  return "";
}
Result<std::optional<PublishedEndpoint>> Framework::PollPublished(
    const JobSpec& /*spec*/, const std::string& /*role*/) const {
  return std::optional<PublishedEndpoint>();
}
std::string Framework::ServesPeers(const JobSpec& /*spec*/, const std::string& /*role*/) const {
  return "";
}
bool Framework::ListenerReusesPort(const JobSpec& /*spec*/, const std::string& /*role*/) const {
  return false;
}

const Framework* FindFramework(std::string_view name) {
  for (const auto& fw : Registry()) {
    if (fw->name() == name) return fw.get();
  }
  return nullptr;
}

const std::vector<std::string>& KnownFrameworks() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const auto& fw : Registry()) names.emplace_back(fw->name());
    return names;
  }();
  return kNames;
}

Status ValidateForFramework(const JobSpec& spec) {
  const Framework* fw = FindFramework(spec.framework);
  if (fw == nullptr) {
    return InvalidArgument(std::string(keys::kApplicationFramework) + " = \"" + spec.framework +
                           "\": expected one of " + Join(KnownFrameworks(), ", "));
  }
  // A single-node job runs its one command, whatever the framework (TonY's too).
  if (spec.SingleNode()) return Status::Ok();
  return fw->Validate(spec);
}

namespace {

// The am role is no part of the framework's cluster (JobSpec's RoleSpec::preprocess).
bool IsPreprocess(const JobSpec& spec, const std::string& role) {
  const RoleSpec* r = spec.FindRole(role);
  return r != nullptr && r->preprocess;
}

// TF_GRPC_REUSE_PORT as tony.execution.envs sets it (the last setting wins, as in the task's
// environment); nullopt when it does not.
std::optional<bool> TfGrpcReusePort(const JobSpec& spec) {
  std::optional<bool> reuse;
  for (const auto& kv : spec.execution_envs) {
    if (StartsWith(kv, "TF_GRPC_REUSE_PORT=")) {
      reuse = ToLower(kv.substr(kv.find('=') + 1)) == "true";
    }
  }
  return reuse;
}

}  // namespace

bool HoldsTaskPort(const JobSpec& spec, const std::string& role) {
  if (spec.hold_port) return *spec.hold_port;
  if (auto reuse = TfGrpcReusePort(spec)) return *reuse;
  return !IsPreprocess(spec, role);  // the am role runs without the framework and its port
}

bool SharesHeldPort(const JobSpec& spec, const std::string& role) {
  if (TfGrpcReusePort(spec).value_or(false)) return true;  // the user says the process sets it
  const Framework* fw = FindFramework(spec.framework);
  return fw != nullptr && fw->ListenerReusesPort(spec, role);
}

std::string HoldReason(const JobSpec& spec) {
  if (spec.hold_port) return std::string(keys::kTaskHoldPort) + " = true";
  if (TfGrpcReusePort(spec))
    return "TF_GRPC_REUSE_PORT=true in " + std::string(keys::kExecutionEnvs);
  return "the default";
}

Result<EnvMap> BuildTaskEnv(const TaskEnvInput& in) {
  EnvMap env = CommonTaskEnv(in);
  if (IsPreprocess(*in.spec, in.role)) {
    env["PREPROCESSING_JOB"] = "true";  // TonY's, for its preprocessing and single-node jobs
    return env;
  }
  TONY_ASSIGN_OR_RETURN(EnvMap extra, FrameworkOf(*in.spec).TaskEnv(in));
  for (auto& [k, v] : extra) env[k] = std::move(v);
  return env;
}

Status AddFrameworkRoles(Configuration& conf, const std::string& python) {
  const Framework* fw = FindFramework(ToLower(Trim(conf.GetOr(keys::kApplicationFramework, ""))));
  return fw != nullptr ? fw->AddRoles(conf, python) : Status::Ok();
}

Status PrepareTask(const JobSpec& spec, const std::string& role) {
  if (IsPreprocess(spec, role)) return Status::Ok();
  return FrameworkOf(spec).PrepareTask(spec, role);
}

Status WaitUntilReady(const JobSpec& spec, const std::string& role, const Cluster& cluster) {
  if (IsPreprocess(spec, role)) return Status::Ok();
  return FrameworkOf(spec).WaitUntilReady(spec, role, cluster);
}

std::string SpecAwaits(const JobSpec& spec, const std::string& role) {
  if (IsPreprocess(spec, role)) return "";
  return FrameworkOf(spec).SpecAwaits(spec, role);
}

bool Publishes(const JobSpec& spec, const std::string& role) {
  for (const RoleSpec& r : spec.roles) {
    std::string awaited = SpecAwaits(spec, r.name);
    if (!awaited.empty() && awaited.substr(0, awaited.rfind(':')) == role) return true;
  }
  return false;
}

Result<std::optional<PublishedEndpoint>> PollPublished(const JobSpec& spec,
                                                       const std::string& role) {
  return FrameworkOf(spec).PollPublished(spec, role);
}

void MarkServingRoles(JobSpec& spec) {
  for (RoleSpec& r : spec.roles) {
    if (r.preprocess) continue;
    r.serves_peers = FrameworkOf(spec).ServesPeers(spec, r.name);
    r.awaits = FrameworkOf(spec).SpecAwaits(spec, r.name);
  }
}

std::string FrameworkIs(std::string_view name) {
  return std::string(keys::kApplicationFramework) + " = " + std::string(name);
}

int Instances(const JobSpec& spec, const std::string& role) {
  const RoleSpec* r = spec.FindRole(role);
  return r == nullptr ? 0 : r->instances;
}

int NprocPerTask(const JobSpec& spec, const std::string& role) {
  const RoleSpec* r = spec.FindRole(role);
  return r == nullptr ? 1 : std::max(1, r->nproc_per_task);
}

Status NeedProcessGroupRoot(const JobSpec& spec) {
  if (spec.FindRole("worker") == nullptr && spec.FindRole("chief") == nullptr &&
      spec.FindRole("master") == nullptr) {
    return InvalidArgument(FrameworkIs(spec.framework) + " needs " + InstancesKey("worker") +
                           " (or a chief/master role) to be at least 1");
  }
  return Status::Ok();
}

}  // namespace tony::runtime
