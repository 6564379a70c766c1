// Framework: everything tony does differently per tony.application.framework, as one
// implementation of one interface per framework (runtime/<framework>.cc), registered in
// runtime/registry.cc. Callers (client/submit, executor/, the coordinator's validation) use the
// free functions below and never test a framework's name; adding a framework (XGBoost, Ray) is a
// new file here and one line in the registry (plus its name in config's FrameworkNames(), the
// key's allowed values, which FrameworkNamesTest keeps equal to the registry).
//
// Threading: the registry is built once and then read-only; every method is a pure function
// except WaitUntilReady, which blocks its caller (the executor runs it off its loop).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/process.h"
#include "common/status.h"
#include "config/configuration.h"
#include "config/job_spec.h"
#include "runtime/runtime.h"

namespace tony::runtime {

class Framework {
 public:
  virtual ~Framework() = default;
  // The tony.application.framework value, lower case.
  virtual std::string_view name() const = 0;
  // Checks the job's shape against what the framework needs; errors name the keys to change.
  virtual Status Validate(const JobSpec& spec) const;
  // At submit, before the JobSpec is built: the roles the framework adds unless the job brings its
  // own. `python` is the job's interpreter (tony.python-exec-path), empty for the default.
  // An error names the key to change (Horovod refuses tony.driver.* outside its debug mode).
  virtual Status AddRoles(Configuration& conf, const std::string& python) const;
  // The framework's own variables for one user process (CommonTaskEnv comes on top of them).
  virtual Result<EnvMap> TaskEnv(const TaskEnvInput& in) const = 0;
  // In the executor, after localization: files the task needs in its working directory.
  virtual Status PrepareTask(const JobSpec& spec, const std::string& role) const;
  // In the executor, once the cluster spec is known: returns when the task's user process may
  // start, or an error after a bound.
  virtual Status WaitUntilReady(const JobSpec& spec, const std::string& role,
                                const Cluster& cluster) const;
  // The task ("role:index") whose published endpoint tasks of `role` need before the coordinator
  // releases their cluster spec (TonY's canStartTask waiting for a callback); empty: none. The
  // spec then carries it (TaskEnvInput::published).
  virtual std::string SpecAwaits(const JobSpec& spec, const std::string& role) const;
  // In the executor of a task that others await, while its user process runs: the endpoint once
  // the process has published it (nullopt: not yet), or an error that ends the task.
  virtual Result<std::optional<PublishedEndpoint>> PollPublished(const JobSpec& spec,
                                                                 const std::string& role) const;
  // Why the job cannot go on once a task of `role` has ended by itself, even successfully,
  // while the job runs (the Horovod driver serves the workers' rendezvous); empty: it can.
  virtual std::string ServesPeers(const JobSpec& spec, const std::string& role) const;
  // Whether the framework's own listener on the task's reserved port (if it has one) binds with
  // SO_REUSEPORT by itself, so that it can bind the port the executor holds (HoldsTaskPort)
  // even without the preload library (SharesHeldPort). One that does not (PyTorch's TCPStore,
  // Horovod's rendezvous, ZeroMQ) needs the library.
  virtual bool ListenerReusesPort(const JobSpec& spec, const std::string& role) const;
};

// The registered framework called `name` (lower case), or nullptr.
const Framework* FindFramework(std::string_view name);

// Through the registry, for the job's framework:
Status AddFrameworkRoles(Configuration& conf, const std::string& python);
Status PrepareTask(const JobSpec& spec, const std::string& role);
Status WaitUntilReady(const JobSpec& spec, const std::string& role, const Cluster& cluster);
std::string SpecAwaits(const JobSpec& spec, const std::string& role);

// Whether a task of `role` keeps its reserved port bound with SO_REUSEPORT while its user process
// runs (README "What a task sees"): tony.task.hold-port when set; else TonY's TF_GRPC_REUSE_PORT
// in tony.execution.envs (the last setting, "true" case-insensitively); else every task but the
// am role's. Linux lets only a socket of the same user that sets SO_REUSEPORT too bind a held
// port, so no other tenant can take it before the user process does.
bool HoldsTaskPort(const JobSpec& spec, const std::string& role);
// Whether the user process of a task of `role` binds a held port by itself (the framework's
// ListenerReusesPort, or TF_GRPC_REUSE_PORT=true given by the user): whether the executor may
// hold the port when libtony-reuseport.so (common/net.h kReusePortShimName), which it preloads
// into every held task's processes, is missing.
bool SharesHeldPort(const JobSpec& spec, const std::string& role);
// Why HoldsTaskPort said true, for the executor's log: the key, the variable or the default.
std::string HoldReason(const JobSpec& spec);
// True when some role's tasks await a task of `role` (SpecAwaits).
bool Publishes(const JobSpec& spec, const std::string& role);
Result<std::optional<PublishedEndpoint>> PollPublished(const JobSpec& spec,
                                                       const std::string& role);
// Sets every RoleSpec::serves_peers and ::awaits from the framework (the coordinator, after
// BuildJobSpec).
void MarkServingRoles(JobSpec& spec);

}  // namespace tony::runtime
