#include "runtime/runtime.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace tony::runtime {
namespace {

bool IsChief(const JobSpec& spec, const std::string& role, int index) {
  return !spec.chief_role.empty() && role == spec.chief_role && index == spec.chief_index;
}

// "host:port" -> {host, port}; a malformed entry yields an empty host.
std::pair<std::string, std::string> SplitHostPort(const std::string& address) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return {"", ""};
  return {address.substr(0, colon), address.substr(colon + 1)};
}

// The roles that take part in a PyTorch process group, in rank order: Kubeflow's master (tony's
// chief) first, then the workers.
std::vector<std::string> PyTorchRankRoles(const Cluster& cluster) {
  std::vector<std::string> roles;
  for (const char* r : {"chief", "master", "worker"}) {
    if (cluster.count(r) > 0) roles.emplace_back(r);
  }
  return roles;
}

}  // namespace

const std::vector<std::string>& KnownFrameworks() {
  static const std::vector<std::string> kFrameworks = {
      "tensorflow", "pytorch", "horovod", "mxnet", "jax", "standalone", "generic"};
  return kFrameworks;
}

Status ValidateForFramework(const JobSpec& spec) {
  const auto& known = KnownFrameworks();
  if (std::find(known.begin(), known.end(), spec.framework) == known.end()) {
    return InvalidArgument("tony.application.framework = \"" + spec.framework +
                           "\": expected one of tensorflow, pytorch, horovod, mxnet, jax, "
                           "standalone, generic");
  }
  if (spec.framework == "standalone" && spec.TotalInstances() != 1) {
    return InvalidArgument("tony.application.framework = standalone runs exactly one task, but "
                           "the job has " + std::to_string(spec.TotalInstances()) +
                           " (set a single tony.<role>.instances to 1)");
  }
  if (spec.framework == "pytorch" && spec.FindRole("worker") == nullptr &&
      spec.FindRole("chief") == nullptr && spec.FindRole("master") == nullptr) {
    return InvalidArgument("tony.application.framework = pytorch needs tony.worker.instances "
                           "(or a chief/master role) to be at least 1");
  }
  return Status::Ok();
}

std::string ClusterSpecJson(const Cluster& cluster) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [role, addresses] : cluster) j[role] = addresses;
  return j.dump();
}

EnvMap CommonTaskEnv(const TaskEnvInput& in) {
  const JobSpec& spec = *in.spec;
  EnvMap env;
  env["JOB_NAME"] = in.role;
  env["TASK_INDEX"] = std::to_string(in.index);
  env["TASK_NUM"] = std::to_string(spec.TrackedInstances());
  env["DISTRIBUTED_MODE"] = spec.mode == DistributedMode::kGang ? "GANG" : "FCFS";
  env["JOB_ID"] = in.job_id;
  env["appid"] = in.job_id;
  env["SESSION_ID"] = "0";
  env["ATTEMPT_NUMBER"] = std::to_string(in.attempt);
  env["TONY_FRAMEWORK"] = spec.framework;
  if (!in.am_host.empty()) {
    env["AM_HOST"] = in.am_host;
    env["AM_PORT"] = std::to_string(in.am_port);
  }
  if (IsChief(spec, in.role, in.index)) env["IS_CHIEF"] = "true";
  return env;
}

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
  env["TF_CONFIG"] = tf_config.dump();
  return env;
}

Result<EnvMap> PyTorchEnv(const TaskEnvInput& in) {
  EnvMap env;
  std::vector<std::string> rank_roles = PyTorchRankRoles(in.cluster);
  int world_size = 0;
  int rank = -1;
  for (const auto& role : rank_roles) {
    const auto& addresses = in.cluster.at(role);
    if (role == in.role) rank = world_size + in.index;
    world_size += static_cast<int>(addresses.size());
  }
  if (rank_roles.empty()) return env;
  const std::string& master = in.cluster.at(rank_roles.front()).front();
  auto [master_host, master_port] = SplitHostPort(master);
  if (master_host.empty()) return InvalidArgument("malformed address in cluster spec: " + master);
  env["MASTER_ADDR"] = master_host;
  env["MASTER_PORT"] = master_port;
  env["WORLD_SIZE"] = std::to_string(world_size);
  env["WORLD"] = std::to_string(world_size);
  env["INIT_METHOD"] = "tcp://" + master;
  if (rank >= 0) {
    // One process per task until nproc-per-task lands: local rank 0 of a group of 1, and the
    // node (group) rank equals the global rank.
    env["RANK"] = std::to_string(rank);
    env["LOCAL_RANK"] = "0";
    env["LOCAL_WORLD_SIZE"] = "1";
    env["GROUP_RANK"] = std::to_string(rank);
    env["ROLE_RANK"] = std::to_string(in.index);
    env["NODE_RANK"] = std::to_string(rank);
  }
  return env;
}

Result<EnvMap> BuildTaskEnv(const TaskEnvInput& in) {
  EnvMap env = CommonTaskEnv(in);
  const std::string& fw = in.spec->framework;
  EnvMap extra;
  if (fw == "tensorflow") {
    extra = TensorFlowEnv(in);
  } else if (fw == "pytorch") {
    TONY_ASSIGN_OR_RETURN(extra, PyTorchEnv(in));
  } else if (fw != "standalone") {
    if (!in.cluster.empty()) extra["CLUSTER_SPEC"] = ClusterSpecJson(in.cluster);
  }
  for (auto& [k, v] : extra) env[k] = std::move(v);
  return env;
}

}  // namespace tony::runtime
