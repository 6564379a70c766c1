#include "hadoop/yarn/clients.h"

#include <thread>

#include "Security.pb.h"
#include "applicationmaster_protocol.pb.h"
#include "common/log.h"
#include "common/strings.h"
#include "containermanagement_protocol.pb.h"
#include "yarn_security_token.pb.h"

namespace tony::hadoop::yarn {
namespace {

using namespace std::chrono_literals;
constexpr auto kCallTimeout = 30s;

ipc::ConnectionOptions Options(std::string host, uint16_t port, const char* protocol) {
  ipc::ConnectionOptions o;
  o.host = std::move(host);
  o.port = port;
  o.protocol = protocol;
  return o;
}

ipc::ConnectionOptions ClientOptions(std::string user) {
  ipc::ConnectionOptions o = Options("", 0, kClientProtocol);
  o.user = std::move(user);
  return o;
}

ipc::ConnectionOptions KerberosClientOptions(std::shared_ptr<security::KerberosCredentials> creds,
                                             std::string principal,
                                             std::vector<ipc::Qop> protection,
                                             std::string proxy_user) {
  ipc::ConnectionOptions o = Options("", 0, kClientProtocol);
  o.auth = ipc::AuthMethod::kKerberos;
  o.kerberos = std::move(creds);
  o.server_principal = std::move(principal);
  o.protection = std::move(protection);
  o.proxy_user = std::move(proxy_user);
  return o;
}

ipc::ConnectionOptions TokenClientOptions(security::Token token, std::vector<ipc::Qop> protection) {
  ipc::ConnectionOptions o = Options("", 0, kClientProtocol);
  o.auth = ipc::AuthMethod::kToken;
  o.token = std::move(token);
  o.protection = std::move(protection);
  return o;
}

ipc::ConnectionOptions MasterOptions(security::Token am_rm_token) {
  ipc::ConnectionOptions o = Options("", 0, kMasterProtocol);
  o.auth = ipc::AuthMethod::kToken;
  o.token = std::move(am_rm_token);
  return o;
}

// §4.4: the RM does not know this attempt (after an RM failover or restart).
bool IsNotRegistered(const Status& s) {
  return s.message().find("ApplicationMasterNotRegisteredException") != std::string::npos;
}

std::string NodeAddress(const pb::NodeIdProto& node) {
  return node.host() + ":" + std::to_string(node.port());
}

// §4.5: per-container failures come back in the reply, not as an RPC error.
Status FirstFailure(const google::protobuf::RepeatedPtrField<pb::ContainerExceptionMapProto>& f,
                    const std::string& what) {
  if (f.empty()) return Status::Ok();
  const auto& e = f.Get(0).exception();
  return Internal(what + " " + ContainerIdString(f.Get(0).container_id()) +
                  " failed: " + e.class_name() + ": " + e.message());
}

// The RM master key an AMRMToken was made with (AMRMTokenIdentifierProto.keyId); -1 if unknown.
int AmRmKeyId(const security::Token& token) {
  pb::AMRMTokenIdentifierProto id;
  return id.ParseFromString(token.identifier) ? id.keyid() : -1;
}

}  // namespace

pb::ApplicationSubmissionContextProto BuildSubmissionContext(const Submission& s) {
  pb::ApplicationSubmissionContextProto c;
  *c.mutable_application_id() = s.application_id;
  c.set_application_name(s.name);
  c.set_queue(s.queue);
  c.mutable_priority()->set_priority(s.priority);
  *c.mutable_am_container_spec() = s.am_container;
  for (auto [type, acl] : {std::pair{pb::APPACCESS_VIEW_APP, &s.view_acl},
                           std::pair{pb::APPACCESS_MODIFY_APP, &s.modify_acl}}) {
    pb::ApplicationACLMapProto* entry = c.mutable_am_container_spec()->add_application_acls();
    entry->set_accesstype(type);
    entry->set_acl(*acl);
  }
  c.set_maxappattempts(s.max_attempts);
  c.set_keep_containers_across_application_attempts(s.keep_containers);
  c.set_cancel_tokens_when_complete(s.cancel_tokens_when_complete);
  *c.mutable_resource() = ToProto(s.am_resource);  // §4.3 field 9, required
  c.set_applicationtype(s.type);
  for (const auto& t : s.tags) {
    if (!t.empty()) c.add_applicationtags(t);
  }
  if (!s.node_label.empty()) c.set_node_label_expression(s.node_label);
  return c;
}

// --- ApplicationClient (§4.3) -------------------------------------------------------------

ApplicationClient::ApplicationClient(std::string host, uint16_t port, std::string user,
                                     ipc::RetryPolicy retry)
    : rpc_({{"", host, port}}, ClientOptions(std::move(user)), "ResourceManager", {}, retry) {}

ApplicationClient::ApplicationClient(std::vector<ipc::ServerAddress> resource_managers,
                                     std::string user, ipc::FailoverPolicy failover,
                                     ipc::RetryPolicy single)
    : rpc_(std::move(resource_managers), ClientOptions(std::move(user)), "ResourceManager",
           failover, single) {}

ApplicationClient::ApplicationClient(std::vector<ipc::ServerAddress> resource_managers,
                                     std::shared_ptr<security::KerberosCredentials> kerberos,
                                     std::string rm_principal, std::vector<ipc::Qop> protection,
                                     ipc::FailoverPolicy failover, std::string proxy_user,
                                     ipc::RetryPolicy single)
    : rpc_(std::move(resource_managers),
           KerberosClientOptions(std::move(kerberos), std::move(rm_principal),
                                 std::move(protection), std::move(proxy_user)),
           "ResourceManager", failover, single) {}

ApplicationClient::ApplicationClient(std::vector<ipc::ServerAddress> resource_managers,
                                     security::Token rm_delegation_token,
                                     std::vector<ipc::Qop> protection, ipc::FailoverPolicy failover,
                                     ipc::RetryPolicy single)
    : rpc_(std::move(resource_managers),
           TokenClientOptions(std::move(rm_delegation_token), std::move(protection)),
           "ResourceManager", failover, single) {}

Result<security::Token> ApplicationClient::GetDelegationToken(const std::string& renewer) {
  ::hadoop::common::GetDelegationTokenRequestProto req;
  req.set_renewer(renewer);
  ::hadoop::common::GetDelegationTokenResponseProto r;
  TONY_RETURN_IF_ERROR(
      rpc_.Call("getDelegationToken", req, &r, kCallTimeout).WithContext("getDelegationToken"));
  if (!r.has_token()) return Internal("getDelegationToken: the RM returned no token");
  const auto& t = r.token();
  return security::Token{t.identifier(), t.password(), t.kind(), t.service()};
}

Result<pb::GetNewApplicationResponseProto> ApplicationClient::GetNewApplication() {
  pb::GetNewApplicationResponseProto r;
  TONY_RETURN_IF_ERROR(
      rpc_.Call("getNewApplication", pb::GetNewApplicationRequestProto(), &r, kCallTimeout)
          .WithContext("getNewApplication"));
  return r;
}

Status ApplicationClient::SubmitApplication(const pb::ApplicationSubmissionContextProto& context) {
  pb::SubmitApplicationRequestProto req;
  *req.mutable_application_submission_context() = context;
  pb::SubmitApplicationResponseProto r;
  return rpc_.Call("submitApplication", req, &r, kCallTimeout)
      .WithContext("submitApplication " + ApplicationIdString(context.application_id()));
}

Result<pb::ApplicationReportProto> ApplicationClient::GetApplicationReport(
    const pb::ApplicationIdProto& id) {
  pb::GetApplicationReportRequestProto req;
  *req.mutable_application_id() = id;
  pb::GetApplicationReportResponseProto r;
  TONY_RETURN_IF_ERROR(rpc_.Call("getApplicationReport", req, &r, kCallTimeout)
                           .WithContext("getApplicationReport " + ApplicationIdString(id)));
  return r.application_report();
}

Status ApplicationClient::ForceKillApplication(const pb::ApplicationIdProto& id,
                                               const std::string& diagnostics) {
  pb::KillApplicationRequestProto req;
  *req.mutable_application_id() = id;
  req.set_diagnostics(diagnostics);
  pb::KillApplicationResponseProto r;
  return rpc_.Call("forceKillApplication", req, &r, kCallTimeout)
      .WithContext("forceKillApplication " + ApplicationIdString(id));
}

Result<std::vector<pb::NodeReportProto>> ApplicationClient::GetClusterNodes() {
  pb::GetClusterNodesResponseProto r;
  TONY_RETURN_IF_ERROR(
      rpc_.Call("getClusterNodes", pb::GetClusterNodesRequestProto(), &r, kCallTimeout)
          .WithContext("getClusterNodes"));
  return std::vector<pb::NodeReportProto>(r.nodereports().begin(), r.nodereports().end());
}

Result<pb::QueueInfoProto> ApplicationClient::GetQueueInfo(const std::string& queue) {
  pb::GetQueueInfoRequestProto req;
  req.set_queuename(queue);
  req.set_includeapplications(false);
  req.set_includechildqueues(false);
  req.set_recursive(false);
  pb::GetQueueInfoResponseProto r;
  TONY_RETURN_IF_ERROR(
      rpc_.Call("getQueueInfo", req, &r, kCallTimeout).WithContext("getQueueInfo " + queue));
  return r.queueinfo();
}

Result<std::vector<pb::ApplicationReportProto>> ApplicationClient::GetApplications(
    const std::string& type, const std::string& user) {
  pb::GetApplicationsRequestProto req;
  if (!type.empty()) req.add_application_types(type);
  if (!user.empty()) req.add_users(user);
  pb::GetApplicationsResponseProto r;
  TONY_RETURN_IF_ERROR(
      rpc_.Call("getApplications", req, &r, kCallTimeout).WithContext("getApplications"));
  return std::vector<pb::ApplicationReportProto>(r.applications().begin(), r.applications().end());
}

Result<pb::ApplicationAttemptReportProto> ApplicationClient::GetApplicationAttemptReport(
    const pb::ApplicationAttemptIdProto& id) {
  pb::GetApplicationAttemptReportRequestProto req;
  *req.mutable_application_attempt_id() = id;
  pb::GetApplicationAttemptReportResponseProto r;
  TONY_RETURN_IF_ERROR(rpc_.Call("getApplicationAttemptReport", req, &r, kCallTimeout)
                           .WithContext("getApplicationAttemptReport " + AttemptIdString(id)));
  return r.application_attempt_report();
}

Result<pb::ContainerReportProto> ApplicationClient::GetContainerReport(
    const pb::ContainerIdProto& id) {
  pb::GetContainerReportRequestProto req;
  *req.mutable_container_id() = id;
  pb::GetContainerReportResponseProto r;
  TONY_RETURN_IF_ERROR(rpc_.Call("getContainerReport", req, &r, kCallTimeout)
                           .WithContext("getContainerReport " + ContainerIdString(id)));
  return r.container_report();
}

Result<pb::YarnClusterMetricsProto> ApplicationClient::GetClusterMetrics() {
  pb::GetClusterMetricsResponseProto r;
  TONY_RETURN_IF_ERROR(
      rpc_.Call("getClusterMetrics", pb::GetClusterMetricsRequestProto(), &r, kCallTimeout)
          .WithContext("getClusterMetrics"));
  return r.cluster_metrics();
}

// --- AmRmClient (§4.4) --------------------------------------------------------------------

AmRmClient::AmRmClient(std::string host, uint16_t port, security::Token am_rm_token)
    : rpc_({{"", host, port}}, MasterOptions(std::move(am_rm_token)), "ResourceManager") {}

AmRmClient::AmRmClient(std::vector<ipc::ServerAddress> schedulers, security::Token am_rm_token,
                       ipc::FailoverPolicy failover)
    : rpc_(std::move(schedulers), MasterOptions(std::move(am_rm_token)), "ResourceManager",
           failover) {}

Result<pb::RegisterApplicationMasterResponseProto> AmRmClient::Register(
    const std::string& host, int rpc_port, const std::string& tracking_url) {
  pb::RegisterApplicationMasterRequestProto req;
  req.set_host(host);
  req.set_rpc_port(rpc_port);
  req.set_tracking_url(tracking_url);
  pb::RegisterApplicationMasterResponseProto r;
  TONY_RETURN_IF_ERROR(rpc_.Call("registerApplicationMaster", req, &r, kCallTimeout)
                           .WithContext("registerApplicationMaster"));
  registration_ = req;
  response_id_ = 0;  // §4.4: the RM's last id after register is 0
  {
    // A later attempt of an application that keeps its containers: the NMTokens of the nodes they
    // run on, to stop them (docs/am-restart.md §5).
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& t : r.nm_tokens_from_previous_attempts()) {
      nm_tokens_[NodeAddress(t.nodeid())] = FromProto(t.token());
    }
  }
  return r;
}

void AmRmClient::AddContainerRequest(int priority, const Resource& capability,
                                     const std::string& node_label, int count) {
  std::lock_guard<std::mutex> lock(mu_);
  Ask& ask = asks_[priority];
  ask.priority = priority;
  ask.capability = capability;
  ask.node_label = node_label;
  ask.outstanding += count;
  changed_[priority] = ++changes_;
}

bool AmRmClient::OnContainerAllocated(int priority) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = asks_.find(priority);
  if (it == asks_.end() || it->second.outstanding <= 0) return false;
  --it->second.outstanding;
  return true;
}

void AmRmClient::ReleaseContainer(const pb::ContainerIdProto& id) {
  std::lock_guard<std::mutex> lock(mu_);
  releases_.push_back(id);
}

int AmRmClient::Outstanding() const {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (const auto& [p, ask] : asks_) n += ask.outstanding;
  return n;
}

Result<pb::AllocateResponseProto> AmRmClient::Allocate(float progress) {
  auto r = AllocateOnce(progress);
  if (r.ok() || !IsNotRegistered(r.status()) || !registration_.has_host()) return r;
  // A new active RM (failover) recovered the application but not this attempt's registration.
  TONY_LOG(kWarning) << "the ResourceManager " << rpc_.Current().ToString()
                     << " does not know this ApplicationMaster (" << r.status().message()
                     << "); registering again and resending every outstanding ask";
  pb::RegisterApplicationMasterResponseProto registered;
  TONY_RETURN_IF_ERROR(
      rpc_.Call("registerApplicationMaster", registration_, &registered, kCallTimeout)
          .WithContext("registerApplicationMaster again after a ResourceManager failover"));
  response_id_ = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [priority, ask] : asks_) changed_[priority] = ++changes_;
  }
  return AllocateOnce(progress);
}

Result<pb::AllocateResponseProto> AmRmClient::AllocateOnce(float progress) {
  pb::AllocateRequestProto req;
  std::map<int, uint64_t> sent;  // the changes this request carries
  size_t released = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [priority, change] : changed_) {
      const Ask& ask = asks_[priority];
      auto* rr = req.add_ask();
      rr->mutable_priority()->set_priority(priority);
      rr->set_resource_name("*");  // §4.4: always the "*" request
      *rr->mutable_capability() = ToProto(ask.capability);
      rr->set_num_containers(ask.outstanding);
      rr->set_relax_locality(true);
      if (!ask.node_label.empty()) rr->set_node_label_expression(ask.node_label);
      sent[priority] = change;
    }
    for (const auto& id : releases_) *req.add_release() = id;
    released = releases_.size();
  }
  req.set_response_id(response_id_);
  req.set_progress(progress);
  pb::AllocateResponseProto r;
  TONY_RETURN_IF_ERROR(rpc_.Call("allocate", req, &r, kCallTimeout).WithContext("allocate"));
  response_id_ = r.response_id();
  {
    // What changed while the call was out goes with the next heartbeat.
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [priority, change] : sent) {
      auto it = changed_.find(priority);
      if (it != changed_.end() && it->second == change) changed_.erase(it);
    }
    releases_.erase(releases_.begin(), releases_.begin() + static_cast<std::ptrdiff_t>(released));
    for (const auto& t : r.nm_tokens()) nm_tokens_[NodeAddress(t.nodeid())] = FromProto(t.token());
  }
  if (r.has_am_rm_token()) {
    // §4.4: the RM keeps sending the token of its next master key while the caller's connection
    // is authenticated with an older one, and forgets the old key when it activates the next.
    // Reconnecting now authenticates with the new token at once: the RM stops sending it, and a
    // token we could not use fails this heartbeat, not a reconnect long after.
    security::Token token = FromProto(r.am_rm_token());
    TONY_LOG(kInfo) << "the ResourceManager rolled the AMRMToken to master key " << AmRmKeyId(token)
                    << "; reconnecting to the scheduler with it";
    rpc_.SetToken(token);
    rpc_.CloseConnection();
  }
  return r;
}

Status AmRmClient::Finish(pb::FinalApplicationStatusProto status, const std::string& diagnostics,
                          const std::string& tracking_url, std::chrono::milliseconds timeout) {
  pb::FinishApplicationMasterRequestProto req;
  req.set_final_application_status(status);
  req.set_diagnostics(diagnostics);
  req.set_tracking_url(tracking_url);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    pb::FinishApplicationMasterResponseProto r;
    Status s = rpc_.Call("finishApplicationMaster", req, &r, kCallTimeout);
    if (!s.ok() && IsNotRegistered(s) && registration_.has_host()) {
      // As in Allocate: a new active RM; register, then unregister (AMRMClientImpl does too).
      TONY_LOG(kWarning) << "the ResourceManager " << rpc_.Current().ToString()
                         << " does not know this ApplicationMaster; registering again to finish";
      pb::RegisterApplicationMasterResponseProto registered;
      s = rpc_.Call("registerApplicationMaster", registration_, &registered, kCallTimeout);
      if (s.ok()) s = rpc_.Call("finishApplicationMaster", req, &r, kCallTimeout);
    }
    TONY_RETURN_IF_ERROR(s.WithContext("finishApplicationMaster"));
    if (r.isunregistered()) return Status::Ok();
    if (std::chrono::steady_clock::now() > deadline) {
      return DeadlineExceeded("finishApplicationMaster: the RM did not confirm the unregister");
    }
    std::this_thread::sleep_for(100ms);  // §4.4: may answer false first
  }
}

std::optional<security::Token> AmRmClient::NmToken(const std::string& node_address) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = nm_tokens_.find(node_address);
  if (it == nm_tokens_.end()) return std::nullopt;
  return it->second;
}

// --- NmClient (§4.5) ----------------------------------------------------------------------

ipc::RpcClient* NmClient::ClientFor(const pb::NodeIdProto& node, const security::Token& nm_token) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& client = clients_[NodeAddress(node)];
  if (client == nullptr) {
    ipc::ConnectionOptions o =
        Options(node.host(), static_cast<uint16_t>(node.port()), kContainerProtocol);
    o.auth = ipc::AuthMethod::kToken;
    o.token = nm_token;
    client = std::make_unique<ipc::RpcClient>(o, ipc::RetryPolicy{.max_connect_attempts = 3});
  } else {
    client->SetToken(nm_token);  // a newer NMToken after a master-key roll
  }
  return client.get();
}

Status NmClient::StartContainer(const pb::ContainerProto& container,
                                const pb::ContainerLaunchContextProto& context,
                                const security::Token& nm_token) {
  pb::StartContainersRequestProto req;
  auto* one = req.add_start_container_request();
  *one->mutable_container_launch_context() = context;
  *one->mutable_container_token() = container.container_token();  // passed through (§4.5)
  pb::StartContainersResponseProto r;
  std::string what = "startContainers " + ContainerIdString(container.id()) + " on " +
                     NodeAddress(container.nodeid());
  TONY_RETURN_IF_ERROR(ClientFor(container.nodeid(), nm_token)
                           ->Call("startContainers", req, &r, kCallTimeout)
                           .WithContext(what));
  return FirstFailure(r.failed_requests(), "starting container");
}

Status NmClient::StopContainer(const pb::ContainerIdProto& id, const pb::NodeIdProto& node,
                               const security::Token& nm_token) {
  pb::StopContainersRequestProto req;
  *req.add_container_id() = id;
  pb::StopContainersResponseProto r;
  TONY_RETURN_IF_ERROR(ClientFor(node, nm_token)
                           ->Call("stopContainers", req, &r, kCallTimeout)
                           .WithContext("stopContainers " + ContainerIdString(id)));
  return FirstFailure(r.failed_requests(), "stopping container");
}

Result<pb::ContainerStatusProto> NmClient::GetContainerStatus(const pb::ContainerIdProto& id,
                                                              const pb::NodeIdProto& node,
                                                              const security::Token& nm_token) {
  pb::GetContainerStatusesRequestProto req;
  *req.add_container_id() = id;
  pb::GetContainerStatusesResponseProto r;
  TONY_RETURN_IF_ERROR(ClientFor(node, nm_token)
                           ->Call("getContainerStatuses", req, &r, kCallTimeout)
                           .WithContext("getContainerStatuses " + ContainerIdString(id)));
  TONY_RETURN_IF_ERROR(FirstFailure(r.failed_requests(), "status of container"));
  if (r.status().empty()) return NotFound("no status for " + ContainerIdString(id));
  return r.status(0);
}

}  // namespace tony::hadoop::yarn
