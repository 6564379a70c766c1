// Runtimes: what each framework needs in its user process's environment to find its peers.
//
// Input: the job spec, the task's identity and the published cluster spec (role -> "host:port"
// list). Output: environment variables for the user process. Pure functions; the executor calls
// them once the coordinator releases the cluster spec.
//
//  tensorflow  TF_CONFIG and CLUSTER_SPEC exactly as TonY builds them (TONY-REFERENCE.md §4.1)
//  pytorch     torchrun/Kubeflow variables (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE,
//              LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK) plus TonY's INIT_METHOD, RANK, WORLD
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

using Cluster = std::map<std::string, std::vector<std::string>>;

struct TaskEnvInput {
  const JobSpec* spec = nullptr;
  std::string job_id;
  std::string role;
  int index = 0;
  int attempt = 0;
  Cluster cluster;  // empty in FCFS mode for frameworks that do not need peers
  std::string am_host;
  int am_port = 0;
};

// Framework names tony knows, lower case.
const std::vector<std::string>& KnownFrameworks();

// Checks the job's shape against what its framework needs (e.g. standalone runs exactly one task).
// Errors name the keys to change.
Status ValidateForFramework(const JobSpec& spec);

// TonY's common variables, set for every task of every framework (TONY-REFERENCE.md §4.0).
EnvMap CommonTaskEnv(const TaskEnvInput& in);

// Common variables plus the framework's own.
Result<EnvMap> BuildTaskEnv(const TaskEnvInput& in);

// Individual builders, exposed for tests.
EnvMap TensorFlowEnv(const TaskEnvInput& in);
Result<EnvMap> PyTorchEnv(const TaskEnvInput& in);

// CLUSTER_SPEC's JSON: {"ps":["h:1"],"worker":["h:2","h:3"]}.
std::string ClusterSpecJson(const Cluster& cluster);

}  // namespace tony::runtime
