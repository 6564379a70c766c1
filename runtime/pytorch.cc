// PyTorch: torchrun's (and Kubeflow's) variables, each task being a torchrun node of
// tony.<role>.nproc-per-task local processes, plus TonY's INIT_METHOD, RANK and WORLD.
#include "common/net.h"
#include "runtime/frameworks.h"
#include "runtime/peers.h"
#include "runtime/runtime.h"

namespace tony::runtime {
namespace {

class PyTorch final : public Framework {
 public:
  std::string_view name() const override { return "pytorch"; }
  Status Validate(const JobSpec& spec) const override { return NeedProcessGroupRoot(spec); }
  Result<EnvMap> TaskEnv(const TaskEnvInput& in) const override { return PyTorchEnv(in); }
};

}  // namespace

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
  TONY_ASSIGN_OR_RETURN(HostPort master_address,
                        ParseHostPort(master, "the pytorch master's address in the cluster spec"));
  env["MASTER_ADDR"] = master_address.host;
  env["MASTER_PORT"] = std::to_string(master_address.port);
  env["WORLD_SIZE"] = std::to_string(world_size);
  env["WORLD"] = std::to_string(world_size);
  env["INIT_METHOD"] = "tcp://" + master;
  if (group_rank >= 0) {
    int nproc = NprocPerTask(*in.spec, in.role);
    if (in.local_rank < 0 || in.local_rank >= nproc) {
      return InvalidArgument("local rank " + std::to_string(in.local_rank) + " of " + in.role +
                             ":" + std::to_string(in.index) + " is outside " +
                             keys::ForRole(keys::kRoleNprocPerTask, in.role) + " = " +
                             std::to_string(nproc));
    }
    env["RANK"] = std::to_string(first_rank + in.local_rank);
    env["LOCAL_RANK"] = std::to_string(in.local_rank);
    env["LOCAL_WORLD_SIZE"] = std::to_string(nproc);
    env["GROUP_RANK"] = std::to_string(group_rank);
    env["GROUP_WORLD_SIZE"] = std::to_string(tasks);
    env["ROLE_RANK"] = std::to_string(in.index * nproc + in.local_rank);
    env["ROLE_WORLD_SIZE"] = std::to_string(role_tasks * nproc);
    env["NODE_RANK"] = std::to_string(group_rank);
    // As torchrun sets them: a restarted task (README "Restarts") tells its script to resume.
    env["TORCHELASTIC_RESTART_COUNT"] = std::to_string(in.attempt);
    if (const RoleSpec* role = in.spec->FindRole(in.role)) {
      env["TORCHELASTIC_MAX_RESTARTS"] =
          std::to_string(role->restart_policy == RestartPolicy::kNever ? 0 : role->max_restarts);
    }
  }
  return env;
}

std::unique_ptr<Framework> MakePyTorch() { return std::make_unique<PyTorch>(); }

}  // namespace tony::runtime
