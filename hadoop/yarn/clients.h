// Typed clients of the three YARN protocols over hadoop/ipc (docs/hadoop-ipc.md §4).
//
//  ApplicationClient  ApplicationClientProtocol on yarn.resourcemanager.address, SIMPLE (§4.3)
//  AmRmClient         ApplicationMasterProtocol on the scheduler address, TOKEN with the
//                     AMRMToken (§4.4): register, allocate with ask bookkeeping and response
//                     ids, NMToken cache, AMRMToken roll-over, finish
//  NmClient           ContainerManagementProtocol, one TOKEN connection per NodeManager with
//                     that node's NMToken (§4.5)
// Every call is synchronous and returns tony::Status; remote Java exceptions keep their class
// name in the message (hadoop/ipc).
// Thread-safety: ApplicationClient and NmClient may be shared. AmRmClient's calls to the RM
// (Register, Allocate, Finish) are for one thread at a time, as the RM's response-id protocol is
// sequential anyway; its ask bookkeeping (AddContainerRequest, OnContainerAllocated,
// ReleaseContainer, Outstanding, NmToken) may be used from another thread meanwhile, so the AM
// can heartbeat off its event loop.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "applicationclient_protocol.pb.h"
#include "common/status.h"
#include "hadoop/ipc/client.h"
#include "hadoop/ipc/failover.h"
#include "hadoop/yarn/records.h"
#include "yarn_service_protos.pb.h"

namespace tony::hadoop::yarn {

inline constexpr char kClientProtocol[] = "org.apache.hadoop.yarn.api.ApplicationClientProtocolPB";
inline constexpr char kMasterProtocol[] = "org.apache.hadoop.yarn.api.ApplicationMasterProtocolPB";
inline constexpr char kContainerProtocol[] =
    "org.apache.hadoop.yarn.api.ContainerManagementProtocolPB";

// What a TonY application asks for (§4.3 ApplicationSubmissionContextProto).
struct Submission {
  pb::ApplicationIdProto application_id;
  std::string name;
  std::string queue = "default";
  std::string type = "TONY";
  std::vector<std::string> tags;
  std::string node_label;
  int priority = 0;
  int max_attempts = 1;
  // §4.3 keep_containers_across_application_attempts: a new AM attempt inherits the running
  // task containers instead of the RM killing them with the attempt (docs/am-restart.md §2).
  bool keep_containers = false;
  // false: the RM leaves the launch context's delegation tokens alone when the application
  // ends (they are someone else's, e.g. a workflow scheduler's); true: it cancels them.
  bool cancel_tokens_when_complete = true;
  Resource am_resource;
  pb::ContainerLaunchContextProto am_container;
  // The application's ACLs, set in the AM's launch context (§4.3 application_ACLs): who may view
  // the application and who may modify (kill) it besides its owner and the cluster's admins;
  // YARN's ACL form ("*", "users groups", " " for nobody else). TonY's are "*" and " ".
  std::string view_acl = "*";
  std::string modify_acl = " ";
};
pb::ApplicationSubmissionContextProto BuildSubmissionContext(const Submission& s);

class ApplicationClient {
 public:
  // `user`: the SIMPLE effective user; empty means ipc::DefaultUserName().
  ApplicationClient(std::string host, uint16_t port, std::string user = "",
                    ipc::RetryPolicy retry = {});
  // The ResourceManagers of an HA cluster in rm-ids order (one without HA): calls fail over
  // between them (ipc::FailoverRpcClient).
  ApplicationClient(std::vector<ipc::ServerAddress> resource_managers, std::string user,
                    ipc::FailoverPolicy failover, ipc::RetryPolicy single = {});
  // The same on a Kerberized cluster: SASL GSSAPI with `kerberos` to `rm_principal` (_HOST
  // replaced per ResourceManager) at the levels of hadoop.rpc.protection; with `proxy_user`,
  // every call runs as that user (ipc::ConnectionOptions::proxy_user).
  ApplicationClient(std::vector<ipc::ServerAddress> resource_managers,
                    std::shared_ptr<security::KerberosCredentials> kerberos,
                    std::string rm_principal, std::vector<ipc::Qop> protection,
                    ipc::FailoverPolicy failover, std::string proxy_user = "",
                    ipc::RetryPolicy single = {});
  // The same with an RM delegation token instead of a Kerberos login (TOKEN, DIGEST-MD5, §2.2,
  // §3.1): every call runs as the token's owner. The token serves every RM of an HA pair.
  ApplicationClient(std::vector<ipc::ServerAddress> resource_managers,
                    security::Token rm_delegation_token, std::vector<ipc::Qop> protection,
                    ipc::FailoverPolicy failover, ipc::RetryPolicy single = {});
  // getDelegationToken: an RM delegation token that `renewer` may renew (Kerberos only).
  Result<security::Token> GetDelegationToken(const std::string& renewer);

  Result<pb::GetNewApplicationResponseProto> GetNewApplication();
  Status SubmitApplication(const pb::ApplicationSubmissionContextProto& context);
  Result<pb::ApplicationReportProto> GetApplicationReport(const pb::ApplicationIdProto& id);
  // Asynchronous on the RM side: poll the report until KILLED (§4.3).
  Status ForceKillApplication(const pb::ApplicationIdProto& id, const std::string& diagnostics);
  Result<std::vector<pb::NodeReportProto>> GetClusterNodes();
  // getQueueInfo for one queue (a leaf name or a path), without its applications or children.
  Result<pb::QueueInfoProto> GetQueueInfo(const std::string& queue);
  // getApplications filtered by application type and user (either empty: any).
  Result<std::vector<pb::ApplicationReportProto>> GetApplications(const std::string& type,
                                                                  const std::string& user);
  Result<pb::ApplicationAttemptReportProto> GetApplicationAttemptReport(
      const pb::ApplicationAttemptIdProto& id);
  // Known to the RM while the container runs (a finished one may be gone).
  Result<pb::ContainerReportProto> GetContainerReport(const pb::ContainerIdProto& id);
  Result<pb::YarnClusterMetricsProto> GetClusterMetrics();

  // The ResourceManager calls go to now.
  ipc::ServerAddress Current() const { return rpc_.Current(); }

 private:
  ipc::FailoverRpcClient rpc_;
};

// One outstanding container ask: the AM's total for a (priority, capability, label) key.
struct Ask {
  int priority = 0;
  Resource capability;
  std::string node_label;
  int outstanding = 0;
};

class AmRmClient {
 public:
  AmRmClient(std::string host, uint16_t port, security::Token am_rm_token);
  // The schedulers of an HA cluster in rm-ids order: calls fail over between them. After a
  // failover the new active RM may not know this attempt's registration (it answers
  // ApplicationMasterNotRegisteredException): Allocate then registers again with the same host,
  // port and tracking URL and sends every outstanding ask anew, as Java's AMRMClientImpl does.
  AmRmClient(std::vector<ipc::ServerAddress> schedulers, security::Token am_rm_token,
             ipc::FailoverPolicy failover);

  // Keeps the response's nm_tokens_from_previous_attempts in the NMToken cache (NmToken).
  Result<pb::RegisterApplicationMasterResponseProto> Register(const std::string& host, int rpc_port,
                                                              const std::string& tracking_url);

  // Adds `count` containers to the ask for `priority` (one priority per role). §4.4: an ask is
  // a replacement total, so the client keeps the total and sends a key only when it changed.
  void AddContainerRequest(int priority, const Resource& capability, const std::string& node_label,
                           int count);
  // One container of `priority` arrived: the RM has already lowered its own total, so the local
  // total follows without a resend. False when nothing was outstanding (an excess container).
  bool OnContainerAllocated(int priority);
  void ReleaseContainer(const pb::ContainerIdProto& id);
  int Outstanding() const;

  // One heartbeat (§4.4): sends the changed asks and releases with the last response id, keeps
  // the next id, caches NMTokens by "host:port" and rolls the AMRMToken (reconnecting with the
  // new one). A failed call keeps the changes for the next heartbeat (same response id: the RM
  // answers a repeat from its cache).
  Result<pb::AllocateResponseProto> Allocate(float progress);

  // Unregisters, repeating while the RM answers isUnregistered=false (§4.4).
  Status Finish(pb::FinalApplicationStatusProto status, const std::string& diagnostics,
                const std::string& tracking_url, std::chrono::milliseconds timeout);

  // The NMToken of the node "host:port" from the last allocate that carried one.
  std::optional<security::Token> NmToken(const std::string& node_address) const;
  int32_t response_id() const { return response_id_; }
  ipc::ServerAddress Current() const { return rpc_.Current(); }

 private:
  Result<pb::AllocateResponseProto> AllocateOnce(float progress);

  ipc::FailoverRpcClient rpc_;
  pb::RegisterApplicationMasterRequestProto registration_;  // for a re-register after failover
  int32_t response_id_ = 0;                                 // the calling thread's

  // The ask bookkeeping, shared with the thread that makes the calls.
  mutable std::mutex mu_;
  std::map<int, Ask> asks_;          // by priority
  std::map<int, uint64_t> changed_;  // priority -> change number, until an allocate carried it
  uint64_t changes_ = 0;
  std::vector<pb::ContainerIdProto> releases_;
  std::map<std::string, security::Token> nm_tokens_;
};

class NmClient {
 public:
  NmClient() = default;

  // Starts one container (its ContainerProto from allocate) with the launch context; the node's
  // NMToken authenticates the connection. Per-container failures become the error (§4.5).
  Status StartContainer(const pb::ContainerProto& container,
                        const pb::ContainerLaunchContextProto& context,
                        const security::Token& nm_token);
  Status StopContainer(const pb::ContainerIdProto& id, const pb::NodeIdProto& node,
                       const security::Token& nm_token);
  Result<pb::ContainerStatusProto> GetContainerStatus(const pb::ContainerIdProto& id,
                                                      const pb::NodeIdProto& node,
                                                      const security::Token& nm_token);

 private:
  ipc::RpcClient* ClientFor(const pb::NodeIdProto& node, const security::Token& nm_token);

  std::mutex mu_;
  std::map<std::string, std::unique_ptr<ipc::RpcClient>> clients_;  // by "host:port"
};

}  // namespace tony::hadoop::yarn
