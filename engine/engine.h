// Engine: the seam every cluster engine implements (local processes and YARN).
//
// The coordinator asks for containers, launches `tony executor` in them, and stops them; the
// engine reports allocations and completions through EngineListener. The coordinator, executors
// and runtimes never know which engine they run on.
//
// Threading: every method is called on the coordinator's event loop, and every listener callback
// is delivered on that same loop, so neither side needs locks.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/process.h"
#include "common/status.h"
#include "common/task_state.h"
#include "engine/container_request.h"
#include "rpc/tls.h"
#include "rpc/tony.pb.h"

namespace tony::engine {

// Where the coordinator's control plane listens, as executors and clients dial it.
struct CoordinatorAddress {
  std::string host;
  int port = 0;
  // The read-only status endpoint's URL (coordinator/status_http.h), when the coordinator runs
  // one: YARN registers it as the application's tracking URL.
  std::string tracking_url;
};

// What to run in a container: the executor's command line and environment, plus the files the
// engine must place in its working directory (as YARN localizes resources).
struct LaunchSpec {
  std::string container_id;
  std::string role;
  int index = 0;
  int attempt = 0;
  std::vector<std::string> argv;
  EnvMap env;
  // The job's control-plane secret, never in `env`: the local engine hands it over on the
  // executor's stdin, YARN as a secret key in the container's credentials (README, "The job
  // secret").
  std::string secret;
  // The job's TLS identity for the control plane (rpc/tls.h), YARN only: in the container's
  // credentials beside the secret.
  std::optional<rpc::JobTls> tls;
  std::string log_dir;                   // executor.log, stdout, stderr go here
  std::vector<std::string> local_files;  // staged files linked into the working directory
};

// How a container ended, as its engine saw it.
struct ContainerEnd {
  // The process's exit code, by shell conventions (128 + signal); the engine's own status where
  // no process ran or the cluster ended it (YARN's negative codes), shown in `diagnostics`.
  int exit_code = 0;
  // Why, in the core's engine-neutral terms; the engine maps its own codes.
  core::ContainerExitReason reason = core::ContainerExitReason::kExited;
  // The engine's words for a preempted, lost, failed-disks or memory-killed container, as users
  // read them in the task's end ("preempted by YARN (container exit status -102)"); else empty.
  std::string reason_words;
  std::string diagnostics;
};

class EngineListener {
 public:
  virtual ~EngineListener() = default;
  virtual void OnContainerAllocated(const std::string& container_id, const std::string& role,
                                    const std::string& host) = 0;
  // The container's process is gone.
  virtual void OnContainerCompleted(const std::string& container_id, const ContainerEnd& end) = 0;
  // A Launch the engine accepted could not start the container (e.g. its NodeManager refused).
  virtual void OnContainerLaunchFailed(const std::string& container_id,
                                       const std::string& message) = 0;
  // New delegation tokens for the tasks (engine/yarn/token_renewal.h), as the bytes of a Hadoop
  // credentials file: each replaces the task's token of the same alias. YARN with a keytab only.
  virtual void OnTaskTokensRenewed(const std::string& /*credentials*/) {}
  // The cluster will take this container back soon (YARN's preemption notice, sent before the
  // RM kills it): the task may still save its state. Once per container.
  virtual void OnContainerPreempting(const std::string& /*container_id*/) {}
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;
  // `coordinator` is where the control plane already listens (YARN registers it as the AM's
  // host and RPC port, so the client finds it in the application report).
  virtual Status Start(EngineListener* listener, const CoordinatorAddress& coordinator) = 0;
  virtual void RequestContainers(const ContainerRequest& request) = 0;
  // An error when the container cannot be launched at all; a failure found later (the launch
  // may run off the loop) comes as OnContainerLaunchFailed.
  virtual Status Launch(const LaunchSpec& spec) = 0;
  // Asks the container to stop (SIGTERM to the executor, which stops its user process); the
  // engine escalates to a hard kill after `grace_ms`.
  virtual void Stop(const std::string& container_id, int64_t grace_ms) = 0;
  virtual void Release(const std::string& container_id) = 0;
  // Kills whatever is still running, at once (the coordinator has already given every task its
  // stop grace), and tells the cluster how the job ended (YARN: the AM's unregister). Called
  // once at the end, also when Start failed. Returns at once; the engine's destructor waits for
  // what it left running (the unregister).
  virtual void Shutdown(rpc::FinalStatus status, const std::string& message) = 0;
  // The containers of earlier AM attempts of this application that still run, after Start (YARN:
  // the register response's containers_from_previous_attempts, for an application that keeps
  // them, docs/am-restart.md §5); a later attempt's recovery awaits the rejoin of their tasks.
  virtual std::set<std::string> ContainersFromPreviousAttempts() const { return {}; }
  // Where a launched container's log files (stdout, stderr, executor.log) can be read over HTTP:
  // a base URL to which "/<file>" is appended. Empty when they are in the LaunchSpec's log_dir.
  virtual std::string ContainerLogUrl(const std::string& /*container_id*/) const { return ""; }
  // The cluster node a container runs on, as the cluster names it (YARN: the NodeManager's
  // NodeId, host:port). Empty when the engine has no nodes of its own (the local engine).
  virtual std::string ContainerNode(const std::string& /*container_id*/) const { return ""; }
};

}  // namespace tony::engine
