#include "coordinator/coordinator.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "common/files.h"
#include "common/log.h"
#include "common/process.h"
#include "common/strings.h"
#include "rpc/client.h"
#include "rpc/server_auth.h"
#include "rpc/spec_file.h"
#include "runtime/tensorboard.h"

namespace tony {

std::unique_ptr<grpc::Service> MakeCoordinatorService(Coordinator* c);

namespace {

constexpr int kMaxWaitMs = 30'000;
// SIGTERM -> SIGKILL for one container; the job's own stop grace is core::kStopGraceMs.
constexpr int64_t kContainerKillGraceMs = 5'000;

core::TaskId FromRef(const rpc::TaskRef& ref) { return core::TaskId{ref.role(), ref.index()}; }

// A cluster spec into a response's map (GetClusterSpec's and a heartbeat's newer spec).
void CopyCluster(const runtime::Cluster& cluster,
                 google::protobuf::Map<std::string, rpc::RoleAddresses>* out) {
  for (const auto& [role, addresses] : cluster) {
    auto& to = (*out)[role];
    for (const auto& a : addresses) to.add_addresses(a);
  }
}

rpc::JobPhase ToRpc(core::JobPhase p) {
  switch (p) {
    case core::JobPhase::kRunning:
      return rpc::RUNNING;
    case core::JobPhase::kStopping:
      return rpc::STOPPING;
    case core::JobPhase::kFinished:
      return rpc::FINISHED;
  }
  return rpc::PHASE_UNKNOWN;
}

rpc::FinalStatus ToRpc(core::FinalStatus s) {
  switch (s) {
    case core::FinalStatus::kUndecided:
      return rpc::UNDECIDED;
    case core::FinalStatus::kSucceeded:
      return rpc::SUCCEEDED;
    case core::FinalStatus::kFailed:
      return rpc::FAILED;
    case core::FinalStatus::kKilled:
      return rpc::KILLED;
  }
  return rpc::UNDECIDED;
}

}  // namespace

Coordinator::Coordinator(CoordinatorOptions options, JobSpec spec, const EngineFactory& make_engine,
                         const TimeSourceFactory& make_time)
    : options_(std::move(options)), paths_(options_.job_dir), machine_(std::move(spec)) {
  time_ = make_time ? make_time(io_) : std::make_unique<AsioTimeSource>(io_);
  wake_timer_ = time_->NewTimer();
  engine_ = make_engine(io_);
  if (options_.write_journal)
    journal_ = std::make_unique<JournalWriter>(io_, options_.write_journal);
}

Coordinator::~Coordinator() = default;

namespace {

// The local client's ready pipe (TONY_READY_FD): one line, then closed, and the variable unset so
// that no executor inherits either.
void AnnounceAddress(const std::string& address) {
  const char* fd_env = std::getenv(kReadyFdEnv);
  if (fd_env == nullptr) return;
  auto fd = ParseInt64(fd_env);
  ::unsetenv(kReadyFdEnv);
  if (!fd || *fd < 0) return;
  std::string line = address + "\n";
  if (::write(static_cast<int>(*fd), line.data(), line.size()) < 0) {
    TONY_LOG(kWarning) << "could not tell the client where the coordinator listens (fd " << *fd
                       << "): " << std::strerror(errno);
  }
  ::close(static_cast<int>(*fd));
}

}  // namespace

Status Coordinator::StartServer() {
  service_ = MakeCoordinatorService(this);
  grpc::ServerBuilder builder;
  int port = 0;
  // Anyone who reaches the port can call it (issue 28): a call without the job secret is refused
  // on its headers, before its message is read (rpc/server_auth.h); what the callers with it can
  // make gRPC hold is bounded by the limits below.
  builder.AddListeningPort(options_.bind_host + ":0",
                           rpc::SecretCheckingServerCredentials(secret(), options_.tls), &port);
  builder.RegisterService(service_.get());
  builder.SetMaxReceiveMessageSize(rpc::kMaxRequestBytes);
  builder.SetMaxSendMessageSize(rpc::kMaxResponseBytes);
  grpc::ResourceQuota quota("tony-control-plane");
  quota.Resize(rpc::kServerMemoryQuotaBytes);
  quota.SetMaxThreads(rpc::kMaxServerThreads);
  builder.SetResourceQuota(quota);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, rpc::kMaxConcurrentStreams);
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || port == 0) {
    return Unavailable("cannot start the control-plane server on " + options_.bind_host);
  }
  port_.store(port);
  history::AmInfo info{options_.advertised_host, port, static_cast<int>(::getpid()),
                       ProcessStartId(::getpid())};
  TONY_RETURN_IF_ERROR(history::WriteAmInfo(paths_, info));
  AnnounceAddress(info.Address());
  return Status::Ok();
}

Status Coordinator::StartStatusEndpoint() {
  if (!options_.status_endpoint) return Status::Ok();
  status_http_ = std::make_unique<StatusHttpServer>(
      io_, [this]() -> Result<std::string> { return history::JobStatusJson(Snapshot()); });
  if (options_.status_proxies) {
    // Resolved once, before the loop serves anything (AmIpFilter re-resolves every 5 minutes;
    // a job outliving a move of the RM's proxy to another address is refused by it).
    std::vector<std::string> unresolved;
    auto proxies = ResolveProxyHosts(*options_.status_proxies, &unresolved);
    for (const auto& host : unresolved) {
      TONY_LOG(kWarning) << "status endpoint: the RM's web proxy " << host
                         << " does not resolve; its requests will be refused";
    }
    std::string names;
    for (const auto& a : proxies) names += (names.empty() ? "" : ", ") + a.to_string();
    if (proxies.empty()) {
      TONY_LOG(kWarning) << "status endpoint: no address of the RM's web proxy ("
                         << Join(*options_.status_proxies, ", ")
                         << "); it answers nobody with the job's status";
    } else {
      TONY_LOG(kInfo) << "status endpoint answers the RM's web proxy only: " << names;
    }
    status_http_->AllowOnly(proxies);
  }
  TONY_ASSIGN_OR_RETURN(int port, status_http_->Start(options_.bind_host));
  tracking_url_ = "http://" + options_.advertised_host + ":" + std::to_string(port) + "/";
  TONY_LOG(kInfo) << "read-only status endpoint at " << tracking_url_;
  return Status::Ok();
}

int Coordinator::Run() {
  start_wall_ms_ = WallMs();
  Status s = StartServer();
  if (s.ok()) s = StartStatusEndpoint();
  if (s.ok()) s = engine_->Start(this, {options_.advertised_host, port_, tracking_url_});
  if (!s.ok()) {
    TONY_LOG(kError) << s.ToString();
    rpc::JobStatus status = Snapshot();
    status.set_phase(rpc::FINISHED);
    status.set_final_status(rpc::FAILED);
    status.set_message("coordinator could not start: " + s.message());
    NoteRecordError(history::WriteJobStatus(paths_, status));
    engine_->Shutdown(rpc::FAILED, status.message());
    return 1;
  }
  TONY_LOG(kInfo) << "job " << options_.job_id << " coordinator listening on "
                  << options_.advertised_host << ":" << port() << " (engine " << engine_->name()
                  << ")";
  StartTonyHistory();
  // SIGTERM is how `tony kill` (and YARN's NodeManager) asks the job to stop: stop every task,
  // write the final status, and exit without waiting for a client to read it.
  asio::signal_set terminate(io_, SIGTERM);
  terminate.async_wait([this](const std::error_code& ec, int /*signal*/) {
    if (ec) return;
    TONY_LOG(kInfo) << "SIGTERM: stopping the job";
    final_status_seen_ = true;
    if (!finished_) Dispatch(core::KillRequested{"killed by user (tony kill: SIGTERM)"});
  });
  StartOrRecover();
  // With no timer armed and no engine I/O pending the loop has nothing queued, yet RPCs will
  // come: keep it running until ShutdownServer stops it.
  auto keep_running = asio::make_work_guard(io_);
  io_.run();
  if (stopper_.joinable()) stopper_.join();
  TONY_LOG(kInfo) << "coordinator exiting";
  return machine_.final_status() == core::FinalStatus::kSucceeded ? 0 : 1;
}

void Coordinator::StartOrRecover() {
  if (!options_.journal) {
    Dispatch(core::Start{});
    return;
  }
  const std::set<std::string> live = engine_->ContainersFromPreviousAttempts();
  TONY_LOG(kInfo) << "recovering the job from the journal of the AM attempt before (session "
                  << options_.journal->session << ", " << options_.journal->tasks.size()
                  << " tasks); " << live.size() << " of its containers still run";
  // Before the dispatch: what it decides (a stop, a loss) is about these containers.
  for (const core::TaskRecord& t : options_.journal->tasks) {
    if (!t.container_id.empty() && !core::IsTerminal(t.state)) {
      container_tasks_[t.container_id] = ContainerTask{t.id, t.attempt};
    }
  }
  Dispatch(core::Recovered{*options_.journal, live});
}

void Coordinator::OnWake() {
  wake_at_ms_ = -1;
  if (shutting_down_) return;
  if (!finished_) Dispatch(core::Tick{});
  AnswerSpecWaiters(/*expire_only=*/true);
  AnswerStatusWaiters(/*expire_only=*/true);
  MaybeShutDown();
  ArmWake();
}

void Coordinator::ArmWake() {
  int64_t at = -1;
  auto lower = [&at](int64_t t) { at = at < 0 ? t : std::min(at, t); };
  if (!shutting_down_) {
    if (std::optional<int64_t> due = machine_.NextDeadlineMs(); due && !finished_) lower(*due);
    for (const SpecWaiter& w : spec_waiters_) lower(w.deadline_ms);
    for (const StatusWaiter& w : status_waiters_) lower(w.deadline_ms);
    if (finished_ && !final_status_seen_) lower(finished_at_ms_ + options_.linger_ms);
  }
  // A deadline is only ever in the past through a bug (each one is handled when it falls due);
  // waking 1 ms on keeps such a bug from spinning the loop.
  if (at >= 0) at = std::max(at, NowMs() + 1);
  if (at == wake_at_ms_) return;
  wake_at_ms_ = at;
  if (at < 0) {
    wake_timer_->Cancel();
  } else {
    wake_timer_->ArmAt(at, [this] { OnWake(); });
  }
}

void Coordinator::MaybeShutDown() {
  if (shutting_down_ || !finished_) return;
  if (!final_status_seen_ && NowMs() < finished_at_ms_ + options_.linger_ms) return;
  shutting_down_ = true;
  ShutdownServer();
  ArmWake();
}

void Coordinator::Dispatch(const core::Event& event) {
  const int stage = machine_.stage();
  const int session = machine_.session();
  std::vector<core::Command> commands = machine_.Handle(event, NowMs());
  if (machine_.session() != session) {
    TONY_LOG(kWarning) << machine_.session_note() << ": every task starts again";
  } else if (machine_.stage() != stage) {
    LogStageStart();
  }
  for (const auto& command : commands) Execute(command);
  PersistChanges();
  JournalChanges();
  AnswerStatusWaiters(/*expire_only=*/false);
  ArmWake();
}

void Coordinator::LogStageStart() {
  const JobSpec& spec = machine_.spec();
  const int now = machine_.stage();
  std::vector<std::string> done;
  std::vector<std::string> next;
  for (const RoleSpec& role : spec.roles) {
    if (role.stage == now - 1) done.push_back(role.name);
    if (role.stage == now) next.push_back(role.name);
  }
  TONY_LOG(kInfo) << "the " << spec.StageName(now - 1) << " stage (" << Join(done, ", ")
                  << ") succeeded: starting the " << spec.StageName(now) << " stage ("
                  << Join(next, ", ") << ")";
}

void Coordinator::Execute(const core::Command& command) {
  if (const auto* c = std::get_if<engine::ContainerRequest>(&command)) {
    engine_->RequestContainers(*c);
  } else if (const auto* c = std::get_if<core::LaunchTask>(&command)) {
    Launch(*c);
  } else if (const auto* c = std::get_if<core::StopTask>(&command)) {
    TONY_LOG(kInfo) << "stopping " << c->task.ToString() << ": " << c->reason;
    engine_->Stop(c->container_id, kContainerKillGraceMs);
  } else if (const auto* c = std::get_if<core::ReleaseContainer>(&command)) {
    engine_->Release(c->container_id);
  } else if (std::holds_alternative<core::SpecPublished>(command)) {
    AnswerSpecWaiters(/*expire_only=*/false);
  } else if (const auto* c = std::get_if<core::FinishJob>(&command)) {
    Finish(*c);
  }
}

engine::LaunchSpec Coordinator::BuildLaunchSpec(const core::LaunchTask& launch) const {
  const JobSpec& spec = machine_.spec();
  engine::LaunchSpec ls;
  ls.container_id = launch.container_id;
  ls.role = launch.task.role;
  ls.index = launch.task.index;
  ls.attempt = launch.attempt;
  ls.argv = {options_.tony_binary, "executor"};
  ls.log_dir = paths_.TaskAttemptDir(launch.task.role, launch.task.index, launch.attempt);
  ls.env = CurrentEnvironment();
  for (const auto& kv : spec.container_envs) {
    size_t eq = kv.find('=');
    if (eq != std::string::npos) ls.env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  ls.env["TONY_JOB_ID"] = options_.job_id;
  ls.env["TONY_JOB_DIR"] = options_.job_dir;
  ls.env["TONY_AM_ADDRESS"] = options_.advertised_host + ":" + std::to_string(port());
  ls.secret = options_.secret;
  ls.tls = options_.tls;
  ls.env["TONY_TASK_ROLE"] = launch.task.role;
  ls.env["TONY_TASK_INDEX"] = std::to_string(launch.task.index);
  ls.env["TONY_TASK_ATTEMPT"] = std::to_string(launch.attempt);
  ls.env["TONY_CONTAINER_ID"] = launch.container_id;
  ls.env[rpc::kJobSpecPathEnv] = paths_.SpecFile();
  ls.env["TONY_LOG_DIR"] = ls.log_dir;
  ls.env["TONY_HOST"] = options_.advertised_host;
  ls.env["CONTAINER_ID"] = launch.container_id;
  ls.env["AM_HOST"] = options_.advertised_host;
  ls.env["AM_PORT"] = std::to_string(port());
  // TonY's session retries (tony.am.retry-count): which retry this task runs in.
  if (machine_.session() > 0) ls.env["NUM_AM_RETRIES"] = std::to_string(machine_.session());
  for (const char* staged : {"tony_src.zip", "venv.zip"}) {
    std::string path = paths_.Staging() + "/" + staged;
    if (PathExists(path)) ls.local_files.push_back(path);
  }
  // The role's tony.*.resources, as the client staged them (client/resources.h).
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator(paths_.Resources(launch.task.role), ec)) {
    ls.local_files.push_back(entry.path().string());
  }
  return ls;
}

void Coordinator::Launch(const core::LaunchTask& launch) {
  container_tasks_[launch.container_id] = ContainerTask{launch.task, launch.attempt};
  engine::LaunchSpec ls = BuildLaunchSpec(launch);
  Status s = MakeDirs(ls.log_dir);
  if (s.ok()) s = engine_->Launch(ls);
  if (!s.ok()) {
    TONY_LOG(kError) << "launching " << launch.task.ToString() << ": " << s.ToString();
    // Posted, not dispatched here: we are inside the handling of another event.
    core::TaskLaunchFailed failed{launch.task, launch.attempt, s.message()};
    asio::post(io_, [this, failed] { Dispatch(failed); });
    return;
  }
  std::string log_url = engine_->ContainerLogUrl(launch.container_id);
  if (!log_url.empty()) log_urls_[launch.container_id] = log_url;
  std::string node = engine_->ContainerNode(launch.container_id);
  if (!node.empty()) nodes_[launch.container_id] = node;
  TONY_LOG(kInfo) << "launched " << launch.task.ToString() << " attempt " << launch.attempt
                  << " in " << launch.container_id << " (logs: " << ls.log_dir << ")";
  if (const core::TaskRecord* t = machine_.FindTask(launch.task);
      launch.attempt > 0 && t != nullptr && !t->restart.empty()) {
    TONY_LOG(kInfo) << launch.task.ToString() << " restarted: " << t->restart;
  }
}

void Coordinator::OnContainerAllocated(const std::string& container_id, const std::string& role,
                                       const std::string& host) {
  Dispatch(core::ContainerAllocated{container_id, role, host});
}

void Coordinator::OnContainerCompleted(const std::string& container_id,
                                       const engine::ContainerEnd& end) {
  auto it = container_tasks_.find(container_id);
  if (it == container_tasks_.end()) return;
  ContainerTask ct = it->second;
  container_tasks_.erase(it);
  TONY_LOG(kInfo) << "container " << container_id << " of " << ct.task.ToString()
                  << " completed: " << end.diagnostics;
  core::TaskExited exited{ct.task, ct.attempt, end.exit_code, end.diagnostics};
  exited.source = core::ExitSource::kContainer;
  exited.reason = end.reason;
  exited.reason_words = end.reason_words;
  Dispatch(exited);
}

void Coordinator::OnContainerPreempting(const std::string& container_id) {
  auto it = container_tasks_.find(container_id);
  if (it == container_tasks_.end()) return;  // no task in it (yet, or any more)
  TONY_LOG(kWarning) << "YARN will preempt container " << container_id << " of "
                     << it->second.task.ToString() << ": stopping it so that it can save its state";
  Dispatch(core::PreemptionNotice{it->second.task, it->second.attempt});
}

void Coordinator::OnContainerLaunchFailed(const std::string& container_id,
                                          const std::string& message) {
  auto it = container_tasks_.find(container_id);
  if (it == container_tasks_.end()) return;
  TONY_LOG(kError) << "launching " << it->second.task.ToString() << ": " << message;
  Dispatch(core::TaskLaunchFailed{it->second.task, it->second.attempt, message});
}

void Coordinator::HandleRegister(const rpc::RegisterTaskRequest& req,
                                 grpc::ServerUnaryReactor* reactor) {
  core::TaskId id = FromRef(req.task());
  const core::TaskRecord* task = machine_.FindTask(id);
  if (task == nullptr) {
    reactor->Finish(grpc::Status(grpc::StatusCode::NOT_FOUND, "no task " + id.ToString()));
    return;
  }
  if (task->attempt != req.task().attempt()) {
    reactor->Finish(grpc::Status(
        grpc::StatusCode::FAILED_PRECONDITION,
        "attempt " + std::to_string(req.task().attempt()) + " of " + id.ToString() + " is stale"));
    return;
  }
  if (req.rejoin() && task->rejoin_by_ms >= 0) {
    HandleRecoveredRejoin(id, req, reactor);
    return;
  }
  if (req.rejoin()) {
    HandleRejoin(id, *task, req, reactor);
    return;
  }
  TONY_LOG(kInfo) << id.ToString() << " registered at " << req.host() << ":" << req.port();
  if (req.tensorboard_port() > 0 &&
      runtime::GetsTensorBoardPort(machine_.spec(), id.role, id.index)) {
    // Before the dispatch: the status it makes visible carries the URL.
    const bool v6 = req.host().find(':') != std::string::npos;
    tensorboard_url_ = "http://" + (v6 ? "[" + req.host() + "]" : req.host()) + ":" +
                       std::to_string(req.tensorboard_port());
    TONY_LOG(kInfo) << "TensorBoard of " << id.ToString() << ": " << tensorboard_url_;
  }
  // events.jsonl gets REGISTERED from PersistChanges, only if the state machine took it (a task
  // registering while the job stops stays ALLOCATED, and its user process never starts).
  Dispatch(core::TaskRegistered{id, req.task().attempt(), req.host(), req.port()});
  reactor->Finish(grpc::Status::OK);
}

void Coordinator::HandleRejoin(const core::TaskId& id, const core::TaskRecord& task,
                               const rpc::RegisterTaskRequest& req,
                               grpc::ServerUnaryReactor* reactor) {
  // docs/am-restart.md §5. This coordinator ran the task: it takes it back only while that
  // attempt lives here, at the address it registered with (its user process never stopped).
  if (task.registered_ms < 0 || core::IsTerminal(task.state) || task.host != req.host() ||
      task.port != req.port()) {
    const std::string why = task.registered_ms < 0 ? "it never registered"
                            : core::IsTerminal(task.state)
                                ? std::string("it ended ") + core::TaskStateName(task.state)
                                : "it registered at " + task.host + ":" + std::to_string(task.port);
    reactor->Finish(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                                 "attempt " + std::to_string(task.attempt) + " of " +
                                     id.ToString() + " cannot come back: " + why));
    return;
  }
  TONY_LOG(kInfo) << id.ToString() << " came back at " << req.host() << ":" << req.port();
  Dispatch(core::Heartbeat{id, task.attempt});
  reactor->Finish(grpc::Status::OK);
}

void Coordinator::HandleRecoveredRejoin(const core::TaskId& id, const rpc::RegisterTaskRequest& req,
                                        grpc::ServerUnaryReactor* reactor) {
  core::TaskRejoined rejoined{id, req.task().attempt(), req.container_id(), req.host(), req.port()};
  if (std::string refusal = machine_.RejoinRefusal(rejoined); !refusal.empty()) {
    TONY_LOG(kWarning) << "refused the return of " << id.ToString() << ": " << refusal;
    reactor->Finish(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, refusal));
    return;
  }
  TONY_LOG(kInfo) << id.ToString() << " came back to this AM attempt from container "
                  << req.container_id() << " at " << req.host() << ":" << req.port();
  Dispatch(rejoined);
  reactor->Finish(grpc::Status::OK);
}

void Coordinator::HandleGetClusterSpec(const rpc::GetClusterSpecRequest& req,
                                       rpc::GetClusterSpecResponse* resp,
                                       grpc::ServerUnaryReactor* reactor) {
  int wait_ms = std::clamp(req.wait_ms(), 0, kMaxWaitMs);
  spec_waiters_.push_back(
      SpecWaiter{FromRef(req.task()), req.task().attempt(), resp, reactor, NowMs() + wait_ms});
  AnswerSpecWaiters(/*expire_only=*/false);
  ArmWake();
}

void Coordinator::AnswerSpecWaiters(bool expire_only) {
  int64_t now = NowMs();
  std::vector<SpecWaiter> still_waiting;
  for (auto& w : spec_waiters_) {
    std::optional<runtime::Cluster> spec;
    if (!expire_only) spec = machine_.SpecFor(w.task, w.attempt);
    if (spec) {
      // The state machine released it: what it awaited (RoleSpec::awaits) has published.
      const RoleSpec* role = machine_.spec().FindRole(w.task.role);
      if (role != nullptr && !role->awaits.empty() && published_.count(role->awaits) > 0) {
        (*w.response->mutable_published())[role->awaits] = published_[role->awaits];
      }
      w.response->set_ready(true);
      CopyCluster(*spec, w.response->mutable_cluster());
      if (model_params_) w.response->set_model_params(*model_params_);
      w.response->set_spec_generation(machine_.spec_generation());
      w.reactor->Finish(grpc::Status::OK);
    } else if (now >= w.deadline_ms || finished_) {
      w.response->set_ready(false);
      w.reactor->Finish(grpc::Status::OK);
    } else {
      still_waiting.push_back(w);
    }
  }
  spec_waiters_ = std::move(still_waiting);
}

void Coordinator::HandleHeartbeat(const rpc::HeartbeatRequest& req, rpc::HeartbeatResponse* resp,
                                  grpc::ServerUnaryReactor* reactor) {
  core::TaskId id = FromRef(req.task());
  Dispatch(core::Heartbeat{id, req.task().attempt()});
  metrics_unwritten_ = KeepMetrics(req.task(), req.metrics()) || metrics_unwritten_;
  if (metrics_unwritten_ && NowMs() - metrics_written_ms_ >= 1000) {
    metrics_written_ms_ = NowMs();
    metrics_unwritten_ = false;
    NoteRecordError(history::WriteJobStatus(paths_, Snapshot()));
  }
  const core::TaskRecord* task = machine_.FindTask(id);
  if (task != nullptr && (req.stalled() || task->state == core::TaskState::kStalled)) {
    const core::TaskState before = task->state;
    Dispatch(core::TaskStalled{id, req.task().attempt(), req.stalled(), req.stall()});
    task = machine_.FindTask(id);
    if (task != nullptr && task->state != before && task->state == core::TaskState::kStalled) {
      TONY_LOG(kWarning) << id.ToString() << " STALLED: " << task->stall;
    } else if (task != nullptr && task->state != before) {
      TONY_LOG(kInfo) << id.ToString() << " made progress again";
    }
  }
  bool stop = task == nullptr || task->attempt != req.task().attempt() || task->stop_requested ||
              core::IsTerminal(task->state);
  resp->set_stop(stop);
  if (tokens_generation_ > req.tokens_generation()) {
    resp->set_tokens(renewed_tokens_);
    resp->set_tokens_generation(tokens_generation_);
  }
  // A running task whose spec is older than its stage's: a peer has a new address.
  if (!stop && req.spec_generation() > 0 && machine_.spec_generation() > req.spec_generation()) {
    if (auto spec = machine_.SpecFor(id, req.task().attempt())) {
      CopyCluster(*spec, resp->mutable_cluster());
      resp->set_spec_generation(machine_.spec_generation());
    }
  }
  reactor->Finish(grpc::Status::OK);
}

void Coordinator::OnTaskTokensRenewed(const std::string& credentials) {
  renewed_tokens_ = credentials;
  ++tokens_generation_;
  TONY_LOG(kInfo) << "new delegation tokens for the tasks (renewal " << tokens_generation_
                  << "): they reach each running task with its next heartbeat";
}

void Coordinator::HandleReportResult(const rpc::ReportResultRequest& req,
                                     grpc::ServerUnaryReactor* reactor) {
  core::TaskId id = FromRef(req.task());
  std::string exit = core::DescribeExit(req.exit_code(), req.signal());
  TONY_LOG(kInfo) << id.ToString() << " reported " << exit
                  << (req.stopped() ? " (stopped by its executor)" : "");
  core::TaskExited exited{id, req.task().attempt(), req.exit_code(), req.diagnostics()};
  exited.signal = req.signal();
  exited.stopped = req.stopped();
  const RoleSpec* role = machine_.spec().FindRole(id.role);
  if (req.has_model_params() && req.exit_code() == 0 && role != nullptr && role->preprocess) {
    // Before the dispatch that may start the next stage: its tasks ask for their spec after.
    model_params_ = req.model_params();
    TONY_LOG(kInfo) << id.ToString() << " printed model parameters; the tasks get them as "
                    << "MODEL_PARAMS (" << model_params_->size() << " bytes)";
  }
  KeepMetrics(req.task(), req.metrics());
  Dispatch(exited);
  reactor->Finish(grpc::Status::OK);
}

bool Coordinator::KeepMetrics(const rpc::TaskRef& task,
                              const google::protobuf::RepeatedPtrField<rpc::Metric>& metrics) {
  if (metrics.empty()) return false;  // none sampled yet: keep what came before
  std::vector<rpc::Metric>& kept = metrics_[StateKey(FromRef(task), task.attempt())];
  bool changed = kept.size() != static_cast<size_t>(metrics.size());
  for (int i = 0; !changed && i < metrics.size(); ++i) {
    changed = kept[i].name() != metrics[i].name() || kept[i].value() != metrics[i].value();
  }
  kept.assign(metrics.begin(), metrics.end());
  return changed;
}

void Coordinator::HandlePublish(const rpc::PublishRequest& req, grpc::ServerUnaryReactor* reactor) {
  core::TaskId id = FromRef(req.task());
  const core::TaskRecord* task = machine_.FindTask(id);
  if (task == nullptr || task->attempt != req.task().attempt() || core::IsTerminal(task->state) ||
      task->host.empty() || req.port() <= 0 || req.port() > 65535) {
    reactor->Finish(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                                 "no running attempt " + std::to_string(req.task().attempt()) +
                                     " of " + id.ToString() + " to publish port " +
                                     std::to_string(req.port()) + " for"));
    return;
  }
  rpc::Published& p = published_[id.ToString()];
  p.set_address(task->host + ":" + std::to_string(req.port()));
  p.set_info(req.info());
  TONY_LOG(kInfo) << id.ToString() << " published " << p.address()
                  << "; the tasks that wait for it get their cluster spec";
  Dispatch(core::TaskPublished{id, req.task().attempt()});
  reactor->Finish(grpc::Status::OK);
}

void Coordinator::HandleGetJobStatus(const rpc::GetJobStatusRequest& req, rpc::JobStatus* resp,
                                     grpc::ServerUnaryReactor* reactor) {
  int wait_ms = std::clamp(req.wait_ms(), 0, kMaxWaitMs);
  status_waiters_.push_back(StatusWaiter{req.after_version(), resp, reactor, NowMs() + wait_ms});
  AnswerStatusWaiters(/*expire_only=*/false);
  ArmWake();
}

void Coordinator::AnswerStatusWaiters(bool expire_only) {
  if (status_waiters_.empty()) return;
  int64_t now = NowMs();
  int64_t version = machine_.version();
  std::vector<StatusWaiter> still_waiting;
  for (auto& w : status_waiters_) {
    bool changed = !expire_only && version > w.after_version;
    if (changed || now >= w.deadline_ms || finished_) {
      *w.response = Snapshot();
      if (finished_ && !final_status_seen_) {
        final_status_seen_ = true;
        asio::post(io_, [this] { MaybeShutDown(); });  // after this answer has gone out
      }
      w.reactor->Finish(grpc::Status::OK);
    } else {
      still_waiting.push_back(w);
    }
  }
  status_waiters_ = std::move(still_waiting);
}

void Coordinator::HandleKill(const rpc::KillJobRequest& req, grpc::ServerUnaryReactor* reactor) {
  std::string reason = req.reason().empty() ? "killed by user" : req.reason();
  TONY_LOG(kWarning) << "kill requested: " << reason;
  Dispatch(core::KillRequested{reason});
  reactor->Finish(grpc::Status::OK);
}

rpc::JobStatus Coordinator::Snapshot() const {
  rpc::JobStatus s;
  s.set_job_id(options_.job_id);
  s.set_version(machine_.version());
  s.set_phase(ToRpc(machine_.phase()));
  s.set_final_status(ToRpc(machine_.final_status()));
  // While a retried session runs, its note says why it runs.
  const std::string& message =
      machine_.final_message().empty() ? machine_.session_note() : machine_.final_message();
  s.set_message(finished_ ? WithRecordError(message) : message);
  s.set_framework(machine_.spec().framework);
  s.set_start_wall_ms(start_wall_ms_);
  s.set_end_wall_ms(end_wall_ms_);
  s.set_engine(engine_ ? engine_->name() : "");
  s.set_job_dir(options_.job_dir);
  s.set_tensorboard_url(tensorboard_url_);
  for (const auto& t : machine_.tasks()) AddTaskStatus(t, s.add_tasks());
  return s;
}

void Coordinator::AddTaskStatus(const core::TaskRecord& t, rpc::TaskStatus* ts) const {
  ts->set_role(t.id.role);
  ts->set_index(t.id.index);
  ts->set_attempt(t.attempt);
  ts->set_state(core::TaskStateName(t.state));
  ts->set_host(t.host);
  ts->set_port(t.port);
  if (t.exit_code) ts->set_exit_code(*t.exit_code);
  ts->set_signal(t.signal);
  ts->set_end_reason(t.end_reason);
  ts->set_diagnostics(t.diagnostics);
  ts->set_container_id(t.container_id);
  ts->set_log_dir(paths_.TaskAttemptDir(t.id.role, t.id.index, t.attempt));
  if (auto url = log_urls_.find(t.container_id); url != log_urls_.end()) {
    ts->set_log_url(url->second);
  }
  if (auto node = nodes_.find(t.container_id); node != nodes_.end()) ts->set_node(node->second);
  ts->set_tracked(t.tracked);
  ts->set_chief(t.is_chief);
  if (machine_.last_stage() > 0) ts->set_stage(machine_.spec().StageName(t.stage));
  if (const RoleSpec* role = machine_.spec().FindRole(t.id.role);
      t.state == core::TaskState::kRegistered && role != nullptr && !machine_.AwaitedPublished(t)) {
    ts->set_awaits(role->awaits);
  }
  ts->set_restart(t.restart);
  ts->set_stall(t.stall);
  if (auto m = metrics_.find(StateKey(t.id, t.attempt)); m != metrics_.end()) {
    for (const rpc::Metric& metric : m->second) *ts->add_metrics() = metric;
  }
  if (const RoleSpec* role = machine_.spec().FindRole(t.id.role);
      t.state == core::TaskState::kNew && t.stage == machine_.stage() && t.restart_at_ms < 0 &&
      role != nullptr && machine_.phase() == core::JobPhase::kRunning) {
    ts->set_waits_for("a container of " + std::to_string(role->memory_mb) + " MB, " +
                      std::to_string(role->vcores) + " vcores" +
                      (role->gpus > 0 ? ", " + std::to_string(role->gpus) + " GPUs" : ""));
  }
  for (const core::PastAttempt& past : t.past_attempts) {
    rpc::PastAttempt* p = ts->add_past_attempts();
    p->set_attempt(past.attempt);
    p->set_state(core::TaskStateName(past.state));
    if (past.exit_code) p->set_exit_code(*past.exit_code);
    p->set_signal(past.signal);
    p->set_end_reason(past.end_reason);
    p->set_host(past.host);
    p->set_container_id(past.container_id);
    p->set_log_dir(paths_.TaskAttemptDir(t.id.role, t.id.index, past.attempt));
    p->set_restart(past.restart);
  }
}

void Coordinator::Finish(const core::FinishJob& finish) {
  if (finished_) return;
  end_wall_ms_ = WallMs();
  TONY_LOG(kInfo) << "job " << options_.job_id << " " << core::FinalStatusName(finish.status)
                  << ": " << finish.message;
  finished_ = true;
  finished_at_ms_ = NowMs();
  persisted_version_ = -1;  // rewrite status.json with the end time
  PersistChanges();
  const bool history_was_whole = history_error_.empty();
  FinishTonyHistory(finish.status);
  if (history_was_whole && !history_error_.empty()) {
    persisted_version_ = -1;  // status.json's message says the history is incomplete
    PersistChanges();
  }
  NoteRecordError(history::AppendEvent(
      paths_, history::JobEndLine(end_wall_ms_, ToRpc(finish.status), finish.message)));
  AnswerSpecWaiters(/*expire_only=*/true);
  // The AM unregisters next and its staging dir goes: no journal write may come after.
  if (journal_) journal_->Close();
  // Every task has ended or outlived its stop grace; make sure no process of the job is left.
  // Posted so that the call being answered now (often the last ReportResult) goes out first.
  asio::post(io_, [this, status = ToRpc(finish.status),
                   message = WithRecordError(finish.message) + "\n" + TaskSummaryLine(Snapshot())] {
    engine_->Shutdown(status, message);
  });
}

void Coordinator::ShutdownServer() {
  // Shutdown() waits for in-flight calls, whose handlers need this loop to answer; run it on a
  // helper thread while the loop keeps answering, then stop the loop. Run() joins the thread.
  TONY_LOG(kInfo) << "shutting down the control plane";
  if (status_http_) status_http_->Stop();
  // Calls that arrive meanwhile are answered at once: with the job finished, no long-poll waits.
  stopper_ = std::thread([this] {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    asio::post(io_, [this] { io_.stop(); });
  });
}

}  // namespace tony
