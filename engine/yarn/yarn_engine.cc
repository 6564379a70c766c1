#include "engine/yarn/yarn_engine.h"

#include <algorithm>
#include <set>

#include "common/log.h"
#include "common/strings.h"
#include "config/key_names.h"
#include "engine/yarn/container_exit.h"
#include "hadoop/yarn/cluster_conf.h"
#include "history/job_dir.h"
#include "rpc/client.h"
#include "rpc/spec_file.h"

namespace tony::engine {
namespace {

namespace pb = hadoop::yarn::pb;
using namespace std::chrono_literals;

constexpr auto kIdleHeartbeat = 1000ms;
constexpr auto kBusyHeartbeat = 200ms;

// The coordinator builds the executor's environment from its own; on YARN only what tony sets
// travels, because the AM container's variables (CONTAINER_ID, LOG_DIRS, the token file, ...)
// belong to it alone (docs/hadoop-ipc.md §5).
bool TravelsToContainers(const std::string& key, const std::set<std::string>& user_keys) {
  return StartsWith(key, "TONY_") || key == "AM_HOST" || key == "AM_PORT" ||
         user_keys.count(key) > 0;
}

int ExitCodeOf(const pb::ContainerStatusProto& status) {
  return status.has_exit_status() ? status.exit_status() : -1000;
}

}  // namespace

YarnEngine::YarnEngine(asio::io_context& io, JobSpec spec, YarnEngineOptions options)
    : io_(io),
      spec_(std::move(spec)),
      options_(std::move(options)),
      heartbeat_timer_(io),
      rm_work_(asio::make_work_guard(rm_io_)),
      nm_work_(asio::make_work_guard(nm_io_)) {}

YarnEngine::~YarnEngine() {
  Shutdown(rpc::UNDECIDED, "");
  if (nm_thread_.joinable()) nm_thread_.join();
  if (rm_thread_.joinable()) rm_thread_.join();
}

Status YarnEngine::Start(EngineListener* listener, const CoordinatorAddress& coordinator) {
  listener_ = listener;
  // Running from the start, so that Shutdown's unregister runs even when Start fails after
  // registering (Shutdown releases the threads' work when nothing was registered).
  rm_thread_ = std::thread([this] { rm_io_.run(); });
  nm_thread_ = std::thread([this] { nm_io_.run(); });
  TONY_ASSIGN_OR_RETURN(
      auto schedulers,
      hadoop::ToServers(SplitTrimmed(options_.scheduler_address, ','), {}, kSchedulerAddressEnv));
  rm_ = std::make_unique<hadoop::yarn::AmRmClient>(std::move(schedulers), options_.am_rm_token,
                                                   options_.rm_failover);
  if (options_.before_register) {
    if (Status s = options_.before_register(coordinator); !s.ok()) {
      TONY_LOG(kWarning) << s.WithContext("writing the AM's address for its executors").message()
                         << "; executors that lose this AM will not find its next attempt";
    }
  }
  TONY_ASSIGN_OR_RETURN(
      auto registered, rm_->Register(coordinator.host, coordinator.port, coordinator.tracking_url));
  registered_ = true;
  KeepPreviousContainers(registered);
  if (options_.token_renewal) {
    renewal_ = std::make_unique<TokenRenewal>(
        io_, *options_.token_renewal,
        [this](const std::string& alias, const hadoop::security::Token& token) {
          OnTokenRenewed(alias, token);
        });
    renewal_->Start();
  }
  hadoop::yarn::Resource max = hadoop::yarn::FromProto(registered.maximumcapability());
  TONY_LOG(kInfo) << "registered with the ResourceManager at " << rm_->Current().ToString()
                  << " as " << coordinator.host << ":" << coordinator.port << " (tracking URL "
                  << (coordinator.tracking_url.empty() ? "none" : coordinator.tracking_url)
                  << "); largest container " << hadoop::yarn::ToString(max);
  // An ask above the maximum is refused by the RM (§4.4); say so now instead of waiting.
  for (const auto& r : spec_.roles) {
    if (r.memory_mb > max.memory_mb || r.vcores > max.vcores || r.gpus > max.gpus) {
      return ResourceExhausted(keys::RolePrefix(r.name) + " asks for " +
                               hadoop::yarn::ToString({r.memory_mb, r.vcores, r.gpus}) +
                               " per container but the cluster's largest is " +
                               hadoop::yarn::ToString(max));
    }
  }
  ScheduleHeartbeat(kIdleHeartbeat);
  return Status::Ok();
}

void YarnEngine::KeepPreviousContainers(const pb::RegisterApplicationMasterResponseProto& r) {
  // docs/am-restart.md §5: they run the tasks of the attempt before, launched by it; kept so that
  // this attempt can stop them and hears of their ends.
  for (const pb::ContainerProto& proto : r.containers_from_previous_attempts()) {
    std::string id = hadoop::yarn::ContainerIdString(proto.id());
    Container c;
    c.proto = proto;
    c.launched = true;
    previous_containers_.insert(id);
    containers_.emplace(std::move(id), std::move(c));
  }
  if (!previous_containers_.empty()) {
    TONY_LOG(kInfo) << previous_containers_.size()
                    << " container(s) of the AM attempt before still run: "
                    << Join(std::vector<std::string>(previous_containers_.begin(),
                                                     previous_containers_.end()),
                            ", ");
  }
}

int YarnEngine::PriorityOf(const std::string& role) {
  auto it = role_priorities_.find(role);
  if (it != role_priorities_.end()) return it->second;
  int p = static_cast<int>(role_priorities_.size()) + 1;
  role_priorities_[role] = p;
  priority_roles_[p] = role;
  return p;
}

void YarnEngine::RequestContainers(const ContainerRequest& request) {
  if (rm_ == nullptr || request.count <= 0) return;
  std::string label;
  if (const RoleSpec* role = spec_.FindRole(request.role)) label = role->node_label;
  rm_->AddContainerRequest(PriorityOf(request.role),
                           {request.memory_mb, request.vcores, request.gpus}, label, request.count);
  TONY_LOG(kInfo) << "asking YARN for " << request.count << " container(s) for " << request.role
                  << " "
                  << hadoop::yarn::ToString({request.memory_mb, request.vcores, request.gpus});
  ScheduleHeartbeat(0ms);
}

void YarnEngine::ScheduleHeartbeat(std::chrono::milliseconds delay) {
  if (shut_down_) return;
  heartbeat_timer_.expires_after(delay);
  heartbeat_timer_.async_wait([this](const std::error_code& ec) {
    if (!ec) Heartbeat();
  });
}

void YarnEngine::Heartbeat() {
  // A heartbeat still out (an RM failing over) answers for this one too: the asks added
  // meanwhile go with the next.
  if (shut_down_ || rm_ == nullptr || heartbeat_in_flight_) return;
  heartbeat_in_flight_ = true;
  asio::post(rm_io_, [this] {
    auto response = rm_->Allocate(0.5f);
    asio::post(io_, [this, response = std::move(response)]() mutable {
      OnHeartbeat(std::move(response));
    });
  });
}

void YarnEngine::OnHeartbeat(Result<pb::AllocateResponseProto> response) {
  heartbeat_in_flight_ = false;
  if (shut_down_) return;
  if (!response.ok()) {
    // The same response id is sent again next time; the RM answers a repeat from its cache.
    ++failed_heartbeats_;
    TONY_LOG(kWarning) << "heartbeat to the ResourceManager failed (" << failed_heartbeats_
                       << " in a row): " << response.status().ToString();
    ScheduleHeartbeat(kIdleHeartbeat);
    return;
  }
  failed_heartbeats_ = 0;
  if (response->has_a_m_command()) {
    TONY_LOG(kWarning) << "the ResourceManager sent AM command " << response->a_m_command();
  }
  for (const auto& c : response->allocated_containers()) HandleAllocated(c);
  for (const auto& s : response->completed_container_statuses()) HandleCompleted(s);
  if (response->has_preempt()) HandlePreemption(response->preempt());
  ScheduleHeartbeat(rm_->Outstanding() > 0 ? kBusyHeartbeat : kIdleHeartbeat);
}

void YarnEngine::HandleAllocated(const pb::ContainerProto& container) {
  std::string id = hadoop::yarn::ContainerIdString(container.id());
  int priority = container.priority().priority();
  auto role = priority_roles_.find(priority);
  if (role == priority_roles_.end() || !rm_->OnContainerAllocated(priority)) {
    TONY_LOG(kInfo) << "releasing excess container " << id;
    rm_->ReleaseContainer(container.id());
    return;
  }
  Container c;
  c.proto = container;
  c.role = role->second;
  containers_.emplace(id, std::move(c));
  std::string host = container.nodeid().host();
  TONY_LOG(kInfo) << "allocated " << id << " on " << host << ":" << container.nodeid().port()
                  << " for " << role->second;
  if (listener_ != nullptr) listener_->OnContainerAllocated(id, role->second, host);
}

void YarnEngine::HandleCompleted(const pb::ContainerStatusProto& status) {
  std::string id = hadoop::yarn::ContainerIdString(status.container_id());
  auto it = containers_.find(id);
  if (it == containers_.end()) return;  // released before launch, or unknown
  containers_.erase(it);
  int code = ExitCodeOf(status);
  std::string what = hadoop::yarn::DescribeContainerExit(code);
  ContainerEnd end;
  end.exit_code = code;
  end.reason = YarnExitReason(code);
  end.reason_words = YarnExitWords(code);
  end.diagnostics = what.empty() ? "container exited with code " + std::to_string(code)
                                 : what + " (exit status " + std::to_string(code) + ")";
  std::string yarn_diag(Trim(status.diagnostics()));
  if (!yarn_diag.empty()) end.diagnostics += ": " + yarn_diag.substr(0, 2000);
  if (listener_ != nullptr) listener_->OnContainerCompleted(id, end);
}

void YarnEngine::HandlePreemption(const pb::PreemptionMessageProto& preempt) {
  auto notice = [this](const pb::PreemptionContainerProto& c, const char* contract) {
    std::string id = hadoop::yarn::ContainerIdString(c.id());
    auto it = containers_.find(id);
    if (it == containers_.end() || it->second.preempting) return;
    it->second.preempting = true;
    TONY_LOG(kWarning) << "the ResourceManager will preempt " << id << " of " << it->second.role
                       << " (" << contract << " contract)";
    if (listener_ != nullptr) listener_->OnContainerPreempting(id);
  };
  for (const auto& c : preempt.strictcontract().container()) notice(c, "strict");
  for (const auto& c : preempt.contract().container()) notice(c, "negotiable");
}

std::optional<hadoop::security::Token> YarnEngine::NmTokenFor(const Container& c) const {
  return rm_->NmToken(c.proto.nodeid().host() + ":" + std::to_string(c.proto.nodeid().port()));
}

pb::ContainerLaunchContextProto YarnEngine::BuildLaunchContext(const LaunchSpec& spec) const {
  pb::ContainerLaunchContextProto ctx;
  for (const auto& r : options_.resources) {
    if (!r.ForRole(spec.role)) continue;
    hadoop::yarn::AddLocalResource(
        &ctx, r.name, hadoop::yarn::MakeLocalResource(r.file, r.archive ? pb::ARCHIVE : pb::FILE));
  }
  std::set<std::string> user_keys;
  for (const auto& kv : spec_.container_envs) user_keys.insert(kv.substr(0, kv.find('=')));
  for (const auto& [key, value] : spec.env) {
    if (!TravelsToContainers(key, user_keys)) continue;
    if (!hadoop::yarn::IsSafeEnvironmentValue(value)) {
      TONY_LOG(kWarning) << "not passing " << key << " to YARN containers: its value has a "
                         << "double quote, backslash, backquote or newline";
      continue;
    }
    hadoop::yarn::AddEnvironment(&ctx, key, value);
  }
  if (spec_.docker_enabled) {
    if (const RoleSpec* role = spec_.FindRole(spec.role)) {
      hadoop::yarn::AddDockerRuntime(&ctx, role->docker_image, spec_.docker_mounts);
    }
  }
  // The job secret as a secret key of the container's credentials, beside the HDFS tokens the
  // client obtained for the tasks: the NM writes them to the container's
  // $HADOOP_TOKEN_FILE_LOCATION only, while the environment goes into launch_container.sh, which
  // the NM copies into the container's log dir (README).
  hadoop::security::Credentials credentials = options_.task_tokens;
  credentials.AddSecret(rpc::kJobSecretAlias, spec.secret);
  if (spec.tls) {
    credentials.AddSecret(rpc::kJobTlsKeyAlias, spec.tls->key_pem);
    credentials.AddSecret(rpc::kJobTlsCertAlias, spec.tls->cert_pem);
  }
  hadoop::yarn::SetTokens(&ctx, credentials);
  // Paths inside the task's own container (§5: the NM expands <LOG_DIR> and {{PWD}}).
  hadoop::yarn::AddEnvironment(&ctx, "TONY_LOG_DIR", "<LOG_DIR>");
  hadoop::yarn::AddEnvironment(&ctx, "TONY_JOB_DIR", "{{PWD}}");
  hadoop::yarn::AddEnvironment(&ctx, rpc::kJobSpecPathEnv,
                               std::string("{{PWD}}/") + rpc::kJobSpecFileName);
  // The NM does not redirect output (§5). argv[0] is the tony the AM runs, inside the bundle
  // the NM unpacked into the container's directory (client/bundle.h).
  ctx.add_command("exec " + Join(spec.argv, " ") + " 1><LOG_DIR>/executor.log 2>&1");
  return ctx;
}

Status YarnEngine::Launch(const LaunchSpec& spec) {
  auto it = containers_.find(spec.container_id);
  if (it == containers_.end()) return NotFound("no container " + spec.container_id);
  Container& c = it->second;
  std::optional<hadoop::security::Token> token = NmTokenFor(c);
  if (!token) {
    return FailedPrecondition("no NMToken for node " + c.proto.nodeid().host() + ":" +
                              std::to_string(c.proto.nodeid().port()));
  }
  c.launched = true;  // a Stop from now on goes to the NM, after this start
  asio::post(nm_io_,
             [this, id = spec.container_id, task = spec.role + ":" + std::to_string(spec.index),
              proto = c.proto, context = BuildLaunchContext(spec), token = *token] {
               Status started = nm_.StartContainer(proto, context, token);
               asio::post(io_, [this, id, task, started] { OnLaunched(id, task, started); });
             });
  return Status::Ok();
}

void YarnEngine::OnLaunched(const std::string& container_id, const std::string& task,
                            const Status& started) {
  if (shut_down_) return;
  auto it = containers_.find(container_id);
  if (it == containers_.end()) return;  // completed meanwhile
  Container& c = it->second;
  if (!started.ok()) {
    c.launched = false;  // never started: a Stop or Release now gives it back to the RM
    if (listener_ != nullptr) listener_->OnContainerLaunchFailed(container_id, started.message());
    return;
  }
  TONY_LOG(kInfo) << "started " << container_id << " (" << task << ") on "
                  << c.proto.nodeid().host() << ":" << c.proto.nodeid().port() << "; logs at "
                  << ContainerLogUrl(container_id);
}

std::string YarnEngine::ContainerLogUrl(const std::string& container_id) const {
  auto it = containers_.find(container_id);
  if (it == containers_.end() || it->second.proto.node_http_address().empty()) return "";
  return options_.node_web_scheme + "://" + it->second.proto.node_http_address() +
         "/ws/v1/node/containerlogs/" + container_id;
}

std::string YarnEngine::ContainerNode(const std::string& container_id) const {
  auto it = containers_.find(container_id);
  if (it == containers_.end()) return "";
  const pb::NodeIdProto& node = it->second.proto.nodeid();
  return node.host() + ":" + std::to_string(node.port());
}

void YarnEngine::Stop(const std::string& container_id, int64_t /*grace_ms*/) {
  auto it = containers_.find(container_id);
  if (it == containers_.end()) return;
  Container& c = it->second;
  if (!c.launched) {
    rm_->ReleaseContainer(c.proto.id());
    containers_.erase(it);
    asio::post(io_, [this, container_id] {
      if (listener_ != nullptr) {
        ContainerEnd end;
        end.exit_code = kYarnKilledByAppMaster;
        end.reason = core::ContainerExitReason::kStoppedByCoordinator;
        end.diagnostics = "stopped before launch";
        listener_->OnContainerCompleted(container_id, end);
      }
    });
    return;
  }
  if (c.stopping) return;
  c.stopping = true;
  // The NM sends SIGTERM to the container's process group, then SIGKILL (§5); the completed
  // status arrives through allocate with -105.
  std::optional<hadoop::security::Token> token = NmTokenFor(c);
  if (!token) {
    TONY_LOG(kWarning) << "stopping " << container_id << ": no NMToken";
    return;
  }
  asio::post(nm_io_,
             [this, container_id, id = c.proto.id(), node = c.proto.nodeid(), token = *token] {
               Status s = nm_.StopContainer(id, node, token);
               if (!s.ok())
                 TONY_LOG(kWarning) << "stopping " << container_id << ": " << s.ToString();
             });
}

// Containers launched from now on get the new token, and the running ones through the listener.
void YarnEngine::OnTokenRenewed(const std::string& alias, const hadoop::security::Token& token) {
  options_.task_tokens.AddToken(alias, token);
  hadoop::security::Credentials renewed;
  renewed.AddToken(alias, token);
  if (listener_ != nullptr) {
    listener_->OnTaskTokensRenewed(
        renewed.Serialize(hadoop::security::Credentials::Format::kWritable));
  }
}

void YarnEngine::Release(const std::string& container_id) {
  auto it = containers_.find(container_id);
  if (it == containers_.end() || it->second.launched) return;
  rm_->ReleaseContainer(it->second.proto.id());
  containers_.erase(it);
}

void YarnEngine::Shutdown(rpc::FinalStatus status, const std::string& message) {
  if (shut_down_) return;
  shut_down_ = true;
  heartbeat_timer_.cancel();
  renewal_.reset();
  if (rm_ == nullptr || !registered_) {
    nm_work_.reset();
    rm_work_.reset();
    return;
  }
  std::vector<Container> launched;
  std::vector<std::optional<hadoop::security::Token>> tokens;
  for (auto& [id, c] : containers_) {
    if (!c.launched) continue;
    tokens.push_back(NmTokenFor(c));
    launched.push_back(std::move(c));
  }
  containers_.clear();
  pb::FinalApplicationStatusProto final_status = pb::APP_FAILED;
  if (status == rpc::SUCCEEDED) final_status = pb::APP_SUCCEEDED;
  if (status == rpc::KILLED) final_status = pb::APP_KILLED;
  std::string diagnostics = status == rpc::UNDECIDED
                                ? "the job ended without a final status"
                                : rpc::FinalStatus_Name(status) + ": " + message;
  // The stops go after any start still out, then the unregister after any heartbeat still out:
  // an RM or NM failing over must not hold the loop that gives the client the job's final
  // status. The destructor waits for both threads, so the AM does not exit before the RM has
  // its result.
  asio::post(nm_io_, [this, launched = std::move(launched), tokens = std::move(tokens),
                      final_status, diagnostics = diagnostics.substr(0, 8000)]() mutable {
    StopAllThenUnregister(std::move(launched), std::move(tokens), final_status,
                          std::move(diagnostics));
  });
  nm_work_.reset();  // the NM thread ends after the stops
}

void YarnEngine::StopAllThenUnregister(std::vector<Container> launched,
                                       std::vector<std::optional<hadoop::security::Token>> tokens,
                                       pb::FinalApplicationStatusProto final_status,
                                       std::string diagnostics) {
  for (size_t i = 0; i < launched.size(); ++i) {
    const Container& c = launched[i];
    if (!tokens[i]) continue;
    Status stopped = nm_.StopContainer(c.proto.id(), c.proto.nodeid(), *tokens[i]);
    if (!stopped.ok()) {
      TONY_LOG(kWarning) << "stopping container " << hadoop::yarn::ContainerIdString(c.proto.id())
                         << ": " << stopped.message()
                         << "; the ResourceManager stops it when the application unregisters";
    }
  }
  asio::post(rm_io_, [this, final_status, diagnostics = std::move(diagnostics)] {
    Unregister(final_status, diagnostics);
  });
  rm_work_.reset();  // the RM thread ends when the unregister is done
}

void YarnEngine::Unregister(pb::FinalApplicationStatusProto final_status,
                            const std::string& diagnostics) {
  Status s = rm_->Finish(final_status, diagnostics, "", 30s);
  if (!s.ok()) {
    TONY_LOG(kError) << "unregistering from the ResourceManager: " << s.ToString();
    return;
  }
  TONY_LOG(kInfo) << "unregistered from the ResourceManager: "
                  << hadoop::yarn::FinalStatusName(final_status);
  if (options_.after_unregister) options_.after_unregister();
}

}  // namespace tony::engine
