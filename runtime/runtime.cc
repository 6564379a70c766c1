#include "runtime/runtime.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "config/keys.h"
#include "runtime/peers.h"

namespace tony::runtime {
namespace {

// dump() throws on bytes that are not UTF-8; the addresses come from peers, so such bytes become
// U+FFFD instead (a bad address fails where it is used, with its own error).
std::string DumpJson(const nlohmann::json& j) {
  return j.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

bool IsChief(const JobSpec& spec, const std::string& role, int index) {
  return !spec.chief_role.empty() && role == spec.chief_role && index == spec.chief_index;
}

int NprocPerTask(const JobSpec& spec, const std::string& role) {
  const RoleSpec* r = spec.FindRole(role);
  return r == nullptr ? 1 : std::max(1, r->nproc_per_task);
}

int Instances(const JobSpec& spec, const std::string& role) {
  const RoleSpec* r = spec.FindRole(role);
  return r == nullptr ? 0 : r->instances;
}

// MXNet's parameter server is ps-lite: one scheduler, servers and workers (TonY #370).
Status ValidateForMxnet(const JobSpec& spec) {
  if (Instances(spec, "scheduler") != 1) {
    return InvalidArgument(
        "tony.application.framework = mxnet needs exactly one scheduler task, "
        "but tony.scheduler.instances = " +
        std::to_string(Instances(spec, "scheduler")) + " (set it to 1)");
  }
  if (Instances(spec, "ps") > 0) {
    return InvalidArgument(
        "tony.application.framework = mxnet has no ps role: its parameter "
        "servers are the server role (set tony.ps.instances = 0 and "
        "tony.server.instances instead)");
  }
  if (Instances(spec, "server") < 1 || Instances(spec, "worker") < 1) {
    return InvalidArgument(
        "tony.application.framework = mxnet needs tony.server.instances and "
        "tony.worker.instances to be at least 1");
  }
  if (spec.mode == DistributedMode::kFcfs) {
    return InvalidArgument(
        "tony.application.framework = mxnet needs every task's address before "
        "any starts: set tony.application.distributed-mode = GANG");
  }
  return Status::Ok();
}

// Horovod is all-reduce among workers, as horovodrun runs it (docs/tony-compat.md §4.3).
Status ValidateForHorovod(const JobSpec& spec) {
  if (Instances(spec, "ps") > 0) {
    return InvalidArgument(
        "tony.application.framework = horovod has no parameter servers: "
        "its workers all-reduce among themselves (set tony.ps.instances = 0)");
  }
  if (Instances(spec, "worker") < 1) {
    return InvalidArgument(
        "tony.application.framework = horovod needs tony.worker.instances to "
        "be at least 1");
  }
  if (spec.mode == DistributedMode::kFcfs) {
    return InvalidArgument(
        "tony.application.framework = horovod needs every worker in the "
        "rendezvous: set tony.application.distributed-mode = GANG");
  }
  return Status::Ok();
}

}  // namespace

const std::vector<std::string>& KnownFrameworks() {
  static const std::vector<std::string> kFrameworks(FrameworkNames().begin(),
                                                    FrameworkNames().end());
  return kFrameworks;
}

Status ValidateForFramework(const JobSpec& spec) {
  const auto& known = KnownFrameworks();
  if (std::find(known.begin(), known.end(), spec.framework) == known.end()) {
    return InvalidArgument("tony.application.framework = \"" + spec.framework +
                           "\": expected one of " + Join(known, ", "));
  }
  if (spec.framework == "standalone" && spec.TotalInstances() != 1) {
    return InvalidArgument(
        "tony.application.framework = standalone runs exactly one task, but "
        "the job has " +
        std::to_string(spec.TotalInstances()) + " (set a single tony.<role>.instances to 1)");
  }
  if (spec.framework == "pytorch" || spec.framework == "jax") {
    if (spec.FindRole("worker") == nullptr && spec.FindRole("chief") == nullptr &&
        spec.FindRole("master") == nullptr) {
      return InvalidArgument("tony.application.framework = " + spec.framework +
                             " needs tony.worker.instances (or a chief/master role) to be at "
                             "least 1");
    }
  }
  if (spec.framework == "mxnet") return ValidateForMxnet(spec);
  if (spec.framework == "horovod") return ValidateForHorovod(spec);
  if (spec.framework == "jax" && spec.mode == DistributedMode::kFcfs) {
    return InvalidArgument(
        "tony.application.framework = jax starts all processes together and cannot run with "
        "tony.application.distributed-mode = FCFS (use GANG)");
  }
  return Status::Ok();
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

Result<EnvMap> PyTorchEnv(const TaskEnvInput& in) {
  EnvMap env;
  std::vector<std::string> rank_roles = ProcessGroupRoles(in.cluster);
  if (rank_roles.empty()) return env;
  // torchrun's semantics with each task as one of its nodes running tony.<role>.nproc-per-task
  // local processes: ranks are numbered task by task in ProcessGroupRoles order, and local rank
  // by local rank within a task.
  int world_size = 0;
  int tasks = 0;
  int group_rank = -1;
  int first_rank = -1;  // the global rank of this task's local rank 0
  int role_tasks = 0;
  for (const auto& role : rank_roles) {
    int count = static_cast<int>(in.cluster.at(role).size());
    int nproc = NprocPerTask(*in.spec, role);
    if (role == in.role) {
      role_tasks = count;
      if (in.index >= 0 && in.index < count) {
        group_rank = tasks + in.index;
        first_rank = world_size + in.index * nproc;
      }
    }
    tasks += count;
    world_size += count * nproc;
  }
  const std::string& master = in.cluster.at(rank_roles.front()).front();
  auto [master_host, master_port] = SplitHostPort(master);
  if (master_host.empty()) return InvalidArgument("malformed address in cluster spec: " + master);
  env["MASTER_ADDR"] = master_host;
  env["MASTER_PORT"] = master_port;
  env["WORLD_SIZE"] = std::to_string(world_size);
  env["WORLD"] = std::to_string(world_size);
  env["INIT_METHOD"] = "tcp://" + master;
  if (group_rank >= 0) {
    int nproc = NprocPerTask(*in.spec, in.role);
    if (in.local_rank < 0 || in.local_rank >= nproc) {
      return InvalidArgument("local rank " + std::to_string(in.local_rank) + " of " + in.role +
                             ":" + std::to_string(in.index) + " is outside tony." + in.role +
                             ".nproc-per-task = " + std::to_string(nproc));
    }
    env["RANK"] = std::to_string(first_rank + in.local_rank);
    env["LOCAL_RANK"] = std::to_string(in.local_rank);
    env["LOCAL_WORLD_SIZE"] = std::to_string(nproc);
    env["GROUP_RANK"] = std::to_string(group_rank);
    env["GROUP_WORLD_SIZE"] = std::to_string(tasks);
    env["ROLE_RANK"] = std::to_string(in.index * nproc + in.local_rank);
    env["ROLE_WORLD_SIZE"] = std::to_string(role_tasks * nproc);
    env["NODE_RANK"] = std::to_string(group_rank);
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
  } else if (fw == "jax") {
    TONY_ASSIGN_OR_RETURN(extra, JaxEnv(in));
  } else if (fw == "mxnet") {
    TONY_ASSIGN_OR_RETURN(extra, MxnetEnv(in));
  } else if (fw == "horovod") {
    TONY_ASSIGN_OR_RETURN(extra, HorovodEnv(in));
  } else if (fw != "standalone") {
    if (!in.cluster.empty()) extra["CLUSTER_SPEC"] = ClusterSpecJson(in.cluster);
  }
  for (auto& [k, v] : extra) env[k] = std::move(v);
  return env;
}

}  // namespace tony::runtime
