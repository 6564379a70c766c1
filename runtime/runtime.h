// Runtimes: what each framework needs in its user process's environment to find its peers.
//
// Each framework is one runtime::Framework (runtime/framework.h), listed in runtime/registry.cc.
//
// Input: the job spec, the task's identity and the published cluster spec (role -> "host:port"
// list). Output: environment variables for the user process. Pure functions; the executor calls
// them once the coordinator releases the cluster spec.
//
//  tensorflow  TF_CONFIG and CLUSTER_SPEC exactly as TonY builds them (docs/tony-compat.md §4.1)
//  pytorch     torchrun/Kubeflow variables (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE,
//              LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, GROUP_WORLD_SIZE, ROLE_RANK,
//              ROLE_WORLD_SIZE), a task being a torchrun node of nproc-per-task processes,
//              plus TonY's INIT_METHOD, RANK, WORLD
//  horovod     horovodrun's gloo variables (HOROVOD_RANK/SIZE/LOCAL_*/CROSS_*, rendezvous)
//  mxnet       DMLC_ROLE, DMLC_PS_ROOT_URI/PORT, DMLC_NUM_SERVER/WORKER (docs/tony-compat.md §4.4)
//  jax         JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES, JAX_PROCESS_ID and Kubeflow's names
//  generic     CLUSTER_SPEC only
// and for every framework TonY's common task variables (JOB_NAME, TASK_INDEX, TASK_NUM, IS_CHIEF,
// DISTRIBUTED_MODE, ...).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/process.h"
#include "common/status.h"
#include "config/job_spec.h"

namespace tony::runtime {

// The cluster spec: role -> "host:port" of each task, ordered by index. The coordinator's policy
// builds it (coordinator/core), the executor turns it into the framework's environment.
using Cluster = std::map<std::string, std::vector<std::string>>;

// An endpoint a task publishes for its peers once its user process serves it (TonY's callback
// info; runtime/framework.h, SpecAwaits): the Horovod debug driver's rendezvous.
struct PublishedEndpoint {
  std::string address;  // "host:port"
  std::string info;     // e.g. the slot plan's JSON
  int port = 0;         // what the task's user process serves on (its executor publishes it)
};
// By "role:index".
using Published = std::map<std::string, PublishedEndpoint>;

struct TaskEnvInput {
  const JobSpec* spec = nullptr;
  std::string job_id;
  std::string role;
  int index = 0;
  int attempt = 0;
  // Which of the task's tony.<role>.nproc-per-task processes this environment is for (0-based);
  // only the pytorch runtime distinguishes them.
  int local_rank = 0;
  Cluster cluster;      // empty in FCFS mode for frameworks that do not need peers
  Published published;  // what the tasks this one awaited published (SpecAwaits)
  std::string am_host;
  int am_port = 0;
};

// Framework names tony knows, lower case.
const std::vector<std::string>& KnownFrameworks();

// Checks the job's shape against what its framework needs (e.g. standalone runs exactly one task).
// Errors name the keys to change.
Status ValidateForFramework(const JobSpec& spec);

// TonY's common variables, set for every task of every framework (docs/tony-compat.md §4.0).
EnvMap CommonTaskEnv(const TaskEnvInput& in);

// Common variables plus the framework's own.
Result<EnvMap> BuildTaskEnv(const TaskEnvInput& in);

// Individual builders, exposed for tests.
EnvMap TensorFlowEnv(const TaskEnvInput& in);
Result<EnvMap> PyTorchEnv(const TaskEnvInput& in);
Result<EnvMap> JaxEnv(const TaskEnvInput& in);      // runtime/jax.cc
Result<EnvMap> MxnetEnv(const TaskEnvInput& in);    // runtime/mxnet.cc
Result<EnvMap> HorovodEnv(const TaskEnvInput& in);  // runtime/horovod.cc

// One horovod process's place, as horovod's get_host_assignments computes it.
struct HorovodSlot {
  std::string hostname;
  int rank = 0;
  int size = 0;
  int local_rank = 0;
  int local_size = 0;
  int cross_rank = 0;
  int cross_size = 0;
};
// The slot of each worker task, by task index, given the workers' "host:port" addresses.
std::vector<HorovodSlot> HorovodSlots(const std::vector<std::string>& workers);
// "host1:n1,host2:n2": workers per host in first-appearance order (TonY's CLUSTER_WORKER_LIST).
std::string HorovodWorkerList(const std::vector<std::string>& workers);

// CLUSTER_SPEC's JSON: {"ps":["h:1"],"worker":["h:2","h:3"]}.
std::string ClusterSpecJson(const Cluster& cluster);

}  // namespace tony::runtime
