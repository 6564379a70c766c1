// What an executor knows about itself before it talks to the coordinator: its task, the job
// secret and where the job's files are (from the environment the engine gave it), plus the
// helpers that prepare the user command (its entry point's x bit, its environment).
//
// Threading: plain functions, called on the executor's loop thread.
#pragma once

#include <optional>
#include <string>

#include "common/process.h"
#include "common/status.h"
#include "config/job_spec.h"
#include "rpc/tls.h"
#include "rpc/tony.pb.h"
#include "runtime/runtime.h"

namespace tony {

struct TaskIdentity {
  std::string job_id;
  std::string am_address;
  std::string secret;
  std::optional<rpc::JobTls> tls;  // YARN: the control plane's TLS identity (rpc/tls.h)
  std::string role;
  int index = 0;
  int attempt = 0;
  std::string spec_path;  // the job spec file (rpc/spec_file.h)
  std::string log_dir;
  std::string host;
  std::string container_id;  // TONY_CONTAINER_ID: sent with a rejoin (docs/am-restart.md §5)

  rpc::TaskRef Ref() const;
  std::string Name() const { return role + ":" + std::to_string(index); }
};

// From TONY_* variables and the job secret (rpc/job_secret.h); an error names what is missing.
Result<TaskIdentity> ReadIdentity();

// TonY makes the entry point executable: `--executes ./run.sh` works with a run.sh of mode 644
// (zip archives and some checkouts drop the x bit). Only a relative path to a regular file of the
// job's working directory is touched.
void MakeEntryPointExecutable(const std::string& command);

// The environment of local process `local_rank` of the task: the executor's own, less what is
// not the user's business, plus the framework's variables and tony.execution.envs.
Result<EnvMap> BuildUserEnv(const JobSpec& spec, const TaskIdentity& id,
                            const runtime::Cluster& cluster, int local_rank,
                            const runtime::Published& published = {});

// Which binary runs and where its gRPC came from (the bundle's lib/ on YARN): only this process
// can tell, since it is not dumpable (others cannot read its /proc/<pid>/exe or maps).
std::string DescribeSelf();

}  // namespace tony
