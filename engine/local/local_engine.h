// LocalEngine: containers are process sessions on this machine.
//
// Each container is `tony executor` started in a session of its own (setsid) with the
// coordinator's death as its SIGTERM (PR_SET_PDEATHSIG). The executor runs the user command in a
// process group of its own inside that session, so when a container ends, for whatever reason,
// the engine kills every process still in the session: nothing a job started outlives it
// (checked by scanning /proc, not by trusting the executor).
//
// GPUs: tasks that ask for tony.<role>.gpus get distinct GPU indices through
// CUDA_VISIBLE_DEVICES. Capacity (memory, GPUs) is checked before the job starts, by the fit
// check both engines share; more vcores than cores runs, with a warning.
//
// Threading: owned by and called on the coordinator's asio loop.
#pragma once

#include <sys/types.h>

#include <asio.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/configuration.h"
#include "config/job_spec.h"
#include "engine/engine.h"
#include "engine/fit_check.h"

namespace tony::engine {

struct MachineCapacity {
  int64_t memory_mb = 0;
  int vcores = 0;
  std::vector<int> gpu_ids;
};

// Reads /proc/meminfo, the CPUs this process may use, and `nvidia-smi -L` (absent: no GPUs).
// The keys tony.local.memory / tony.local.vcores, when set, replace the detected values.
MachineCapacity DetectCapacity(const JobSpec& spec);

// How the shared fit check (engine/fit_check.h) names this machine in a refusal.
FitWords LocalFitWords(const JobSpec& spec);

// Refuses a job that cannot work on this machine (a task, or a stage's tasks together, needing
// more memory or GPUs than it has) through the fit check both engines share, this machine as its
// one node: the refusal names the role, the key, its value and where it was set (`conf` has the
// values as written). CPUs are not refused: see OversubscriptionWarning.
Status CheckFitsLocally(const JobSpec& spec, const Configuration& conf,
                        const MachineCapacity& capacity);

// More vcores than cores still runs (the job file meant for a cluster runs on a laptop, its
// tasks sharing the CPUs): the one-line warning that says so with both numbers, or nullopt.
std::optional<std::string> OversubscriptionWarning(const JobSpec& spec,
                                                   const MachineCapacity& capacity);

class LocalEngine final : public Engine {
 public:
  LocalEngine(asio::io_context& io, std::vector<int> gpu_ids);
  ~LocalEngine() override;

  std::string name() const override { return "local"; }
  // Containers are on the coordinator's host: allocations report `coordinator.host`.
  Status Start(EngineListener* listener, const CoordinatorAddress& coordinator) override;
  void RequestContainers(const ContainerRequest& request) override;
  Status Launch(const LaunchSpec& spec) override;
  void Stop(const std::string& container_id, int64_t grace_ms) override;
  void Release(const std::string& container_id) override;
  // Nothing to tell: the job's end is in the job directory, which the coordinator writes.
  void Shutdown(rpc::FinalStatus status, const std::string& message) override;

 private:
  struct Container {
    std::string id;
    std::string role;
    pid_t pid = 0;
    std::vector<int> gpus;
    std::unique_ptr<asio::steady_timer> kill_timer;
  };

  // CUDA_VISIBLE_DEVICES for the container's GPUs (none: nothing).
  EnvMap GpuEnv(const std::string& container_id) const;
  void KillAll();
  void WaitForChildSignal();
  void ReapChildren();
  void FreeContainer(const std::string& container_id);

  asio::io_context& io_;
  std::string host_;
  std::vector<int> free_gpus_;
  asio::signal_set sigchld_;
  EngineListener* listener_ = nullptr;
  int next_container_ = 1;
  std::map<std::string, Container> containers_;
  bool shut_down_ = false;
};

}  // namespace tony::engine
