#include "runtime/runtime.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "runtime/frameworks.h"

namespace tony::runtime {
namespace {

bool IsChief(const JobSpec& spec, const std::string& role, int index) {
  return !spec.chief_role.empty() && role == spec.chief_role && index == spec.chief_index;
}

}  // namespace

std::string DumpJson(const nlohmann::json& j) {
  return j.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

std::string ClusterSpecJson(const Cluster& cluster) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [role, addresses] : cluster) j[role] = addresses;
  return DumpJson(j);
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

}  // namespace tony::runtime
