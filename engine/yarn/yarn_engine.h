// YarnEngine: the coordinator's engine inside a YARN ApplicationMaster container.
//
// Start registers with the ResourceManager's scheduler (AMRMToken from the container's
// credentials file, docs/hadoop-ipc.md §2.1/§3) advertising the coordinator's control-plane
// address as the AM's host/rpc_port, so the client finds it in the application report. Container
// requests become asks, one priority per role (§4.4); allocate() heartbeats every second, every
// 200 ms while asks are outstanding. Allocations are matched to roles by their priority; excess
// ones are released. Launch starts `tony executor` on the container's NodeManager (§4.5) with the
// job's staged files as LocalResources, the tony bundle included. Completed statuses (with YARN's
// exit codes, §4.2) become OnContainerCompleted. Shutdown stops what is left and unregisters with
// the job's final status and message.
//
// GPUs: as TonY, no CUDA_VISIBLE_DEVICES on YARN. Which GPUs a container got is known to its
// NodeManager only; with its GPU plugin (yarn.nodemanager.resource-plugins=yarn.io/gpu) the NM
// isolates them (cgroups devices, or NVIDIA_VISIBLE_DEVICES under Docker). Without the plugin
// yarn.io/gpu is a count the scheduler honours and nothing tells the container which devices are
// its own.
//
// Threading: owned by and called on the coordinator's asio loop. The RM's calls (register,
// allocate, unregister) run on one thread of the engine's, the NodeManagers' calls (start, stop)
// on another, so a slow RM or NM never stalls the loop; results are posted back to it.
#pragma once

#include <asio.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "config/job_spec.h"
#include "engine/engine.h"
#include "engine/yarn/token_renewal.h"
#include "engine/yarn_contract.h"
#include "hadoop/yarn/clients.h"

namespace tony::engine {

struct YarnEngineOptions {
  std::string scheduler_address;  // host:port[,host:port...] (kSchedulerAddressEnv)
  hadoop::ipc::FailoverPolicy rm_failover;
  hadoop::security::Token am_rm_token;
  std::vector<YarnResource> resources;
  // On a Kerberized cluster: the HDFS delegation tokens the client got, for every task's launch
  // context (its NM localizes from HDFS with them; the task finds them in
  // $HADOOP_TOKEN_FILE_LOCATION). Never the AMRMToken.
  hadoop::security::Credentials task_tokens;
  // Called once the AM has unregistered: the application is over, no attempt follows, so what it
  // staged can go (the client may be gone).
  std::function<void()> after_unregister;
  // Called in Start once the control plane listens, before registering with the RM: writes the
  // AM's address file (docs/am-restart.md §4) for executors that lost a previous attempt. Its
  // failure is a warning: the job runs, only a later attempt's executors cannot find it.
  std::function<Status(const CoordinatorAddress&)> before_register;
  // The scheme of the NodeManagers' web addresses (kNodeWebSchemeEnv): https on a cluster whose
  // yarn.http.policy is HTTPS_ONLY.
  std::string node_web_scheme = "http";
  // With a keytab submit: new HDFS delegation tokens before the old ones die.
  std::optional<TokenRenewalOptions> token_renewal;
};

class YarnEngine final : public Engine {
 public:
  YarnEngine(asio::io_context& io, JobSpec spec, YarnEngineOptions options);
  ~YarnEngine() override;

  std::string name() const override { return "yarn"; }
  Status Start(EngineListener* listener, const CoordinatorAddress& coordinator) override;
  void RequestContainers(const ContainerRequest& request) override;
  Status Launch(const LaunchSpec& spec) override;
  void Stop(const std::string& container_id, int64_t grace_ms) override;
  void Release(const std::string& container_id) override;
  void Shutdown(rpc::FinalStatus status, const std::string& message) override;
  // The NodeManager's web service: <scheme>://<node http address>/ws/v1/node/containerlogs/<id>.
  std::string ContainerLogUrl(const std::string& container_id) const override;
  // The allocated container's NodeId, host:port (§4.2).
  std::string ContainerNode(const std::string& container_id) const override;
  // The register response's containers_from_previous_attempts (docs/am-restart.md §5).
  std::set<std::string> ContainersFromPreviousAttempts() const override {
    return previous_containers_;
  }

 private:
  struct Container {
    hadoop::yarn::pb::ContainerProto proto;
    std::string role;
    bool launched = false;
    bool stopping = false;
    bool preempting = false;  // the RM's preemption notice was passed on
  };

  // Takes the containers an earlier AM attempt launched into containers_, as launched.
  void KeepPreviousContainers(const hadoop::yarn::pb::RegisterApplicationMasterResponseProto& r);
  void ScheduleHeartbeat(std::chrono::milliseconds delay);
  void Heartbeat();
  void OnHeartbeat(Result<hadoop::yarn::pb::AllocateResponseProto> response);
  void HandleAllocated(const hadoop::yarn::pb::ContainerProto& container);
  void HandleCompleted(const hadoop::yarn::pb::ContainerStatusProto& status);
  // The containers an allocate answer says the RM will take back (its strict contract, and the
  // containers it names in its negotiable one): the listener hears of each launched one once.
  void HandlePreemption(const hadoop::yarn::pb::PreemptionMessageProto& preempt);
  int PriorityOf(const std::string& role);
  hadoop::yarn::pb::ContainerLaunchContextProto BuildLaunchContext(const LaunchSpec& spec) const;
  std::optional<hadoop::security::Token> NmTokenFor(const Container& c) const;
  void OnLaunched(const std::string& container_id, const std::string& task, const Status& started);
  // On the NM thread: stops every launched container, then hands the unregister to the RM thread.
  void StopAllThenUnregister(std::vector<Container> launched,
                             std::vector<std::optional<hadoop::security::Token>> tokens,
                             hadoop::yarn::pb::FinalApplicationStatusProto final_status,
                             std::string diagnostics);
  void Unregister(hadoop::yarn::pb::FinalApplicationStatusProto final_status,
                  const std::string& diagnostics);
  void OnTokenRenewed(const std::string& alias, const hadoop::security::Token& token);

  asio::io_context& io_;
  JobSpec spec_;
  YarnEngineOptions options_;
  asio::steady_timer heartbeat_timer_;
  EngineListener* listener_ = nullptr;
  std::unique_ptr<hadoop::yarn::AmRmClient> rm_;
  hadoop::yarn::NmClient nm_;
  std::map<std::string, int> role_priorities_;
  std::map<int, std::string> priority_roles_;
  std::map<std::string, Container> containers_;
  std::set<std::string> previous_containers_;  // launched by an earlier AM attempt
  int failed_heartbeats_ = 0;
  bool registered_ = false;
  bool shut_down_ = false;
  // allocate and the final unregister run on a thread of its own, so that an RM failover (pauses
  // of seconds between attempts) or a slow RM never stalls the coordinator's loop: executors'
  // heartbeats and the client's status calls are answered meanwhile. One call at a time; an
  // allocate's result is posted back to the loop. The destructor waits for the unregister.
  asio::io_context rm_io_;
  asio::executor_work_guard<asio::io_context::executor_type> rm_work_;
  std::thread rm_thread_;
  bool heartbeat_in_flight_ = false;
  // StartContainer and StopContainer, one at a time in the order the loop asked for them (a stop
  // never overtakes its container's start). The shutdown's stops end this thread.
  asio::io_context nm_io_;
  asio::executor_work_guard<asio::io_context::executor_type> nm_work_;
  std::thread nm_thread_;
  std::unique_ptr<TokenRenewal> renewal_;  // with options_.token_renewal, from Start to Shutdown
};

}  // namespace tony::engine
