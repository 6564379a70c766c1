#include "executor/task_run.h"

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <utility>

#include "common/files.h"
#include "common/log.h"
#include "common/process.h"
#include "config/key_names.h"
#include "executor/hadoop_env.h"
#include "executor/python_stacks.h"
#include "runtime/framework.h"
#include "runtime/tensorboard.h"

namespace tony {
namespace {

constexpr int kRpcTimeoutMs = 10'000;
constexpr int kSpecWaitMs = 10'000;  // the coordinator answers a long-poll within this
constexpr int kSpecMaxFailures = 5;
constexpr int64_t kRegisterRetryMs = 200;
constexpr int64_t kSpecRetryMs = 500;
constexpr int64_t kPublishPollMs = 100;
// How long a user process that others await may take to publish (the workers' own wait for a
// Horovod driver that listens is as long).
constexpr int64_t kPublishWaitMs = 120'000;

bool Unreachable(const Status& s) {
  return s.code() == StatusCode::kUnavailable || s.code() == StatusCode::kDeadlineExceeded;
}

// A response's cluster spec (GetClusterSpec's, or a heartbeat's newer one).
runtime::Cluster ClusterOf(const google::protobuf::Map<std::string, rpc::RoleAddresses>& from) {
  runtime::Cluster cluster;
  for (const auto& [role, addresses] : from) {
    cluster[role] = {addresses.addresses().begin(), addresses.addresses().end()};
  }
  return cluster;
}

}  // namespace

TaskRun::TaskRun(ExecutorLoop& loop, CoordinatorCalls& control, ProcessLauncher& launcher,
                 const JobSpec& spec, const RoleSpec& role, const TaskIdentity& id,
                 ReservedPort port, TaskRunOptions options)
    : loop_(loop),
      control_(control),
      launcher_(launcher),
      spec_(spec),
      role_(role),
      id_(id),
      port_(std::move(port)),
      options_(std::move(options)),
      register_retry_(loop, [this] { SendRegister(); }),
      spec_retry_(loop, [this] { SendSpecRequest(); }),
      heartbeat_(loop, [this] { OnHeartbeatTick(); }),
      execution_timeout_(loop,
                         [this] {
                           StopTask("execution timed out after " +
                                        std::to_string(spec_.execution_timeout_ms) + " ms (" +
                                        spec_.KeyAndSource(spec_.execution_timeout_key) + ")",
                                    false);
                         }),
      publish_poll_(loop, [this] { PollPublished(); }),
      metrics_timer_(loop, [this] { SampleMetrics(); }),
      processes_(loop, launcher, options.grace_ms, [this] { OnProcessesEnded(); }),
      stall_watch_(
          loop, [this](bool stalled, const std::string& note) { OnStallChange(stalled, note); },
          loop.clock()),
      reporter_(loop, control) {}

TaskRun::~TaskRun() {
  alive_.reset();
  if (ready_wait_.joinable()) ready_wait_.join();
}

void TaskRun::Begin() {
  register_deadline_ms_ = NowMs() + options_.registry_timeout_ms;
  SendRegister();
}

rpc::RegisterTaskRequest TaskRun::RegisterRequest() const {
  rpc::RegisterTaskRequest req;
  *req.mutable_task() = id_.Ref();
  req.set_host(id_.host);
  req.set_port(port_.port());
  req.set_container_id(id_.container_id);
  if (const ReservedPort* tb = TensorBoardPort()) req.set_tensorboard_port(tb->port());
  return req;
}

void TaskRun::SendRegister() {
  control_.RegisterTask(RegisterRequest(), kRpcTimeoutMs,
                        [this](const Status& s) { OnRegistered(s); });
}

void TaskRun::OnRegistered(const Status& s) {
  if (phase_ != Phase::kRegistering) return;
  if (!s.ok()) {
    // Only an unreachable coordinator is worth retrying; a refusal is final.
    if (Unreachable(s) && (options_.registry_timeout_ms <= 0 || NowMs() <= register_deadline_ms_)) {
      register_retry_.Arm(kRegisterRetryMs);
      return;
    }
    std::string context =
        "registering " + id_.Name() + " with the coordinator at " + control_.address();
    if (Unreachable(s)) {
      context += " (given up after " + std::to_string(options_.registry_timeout_ms / 1000) +
                 " s: " + spec_.KeyAndSource(keys::kTaskExecutorRegistryTimeoutSec) + ")";
    }
    Exit(1, s.WithContext(context).message());
    return;
  }
  TONY_LOG(kInfo) << "registered " << id_.host << ":" << port_.port();
  phase_ = Phase::kWaitingForSpec;
  last_answer_ms_ = NowMs();
  // One heartbeat per interval on a fixed schedule, each call's deadline one interval, so the
  // coordinator is declared lost max-missed intervals after its last answer, to within one
  // interval (README, "a lost coordinator"), whatever a call's wait.
  heartbeat_.Arm(0, spec_.heartbeat_interval_ms);
  SendSpecRequest();
}

void TaskRun::SendSpecRequest() {
  rpc::GetClusterSpecRequest req;
  *req.mutable_task() = id_.Ref();
  req.set_wait_ms(kSpecWaitMs);
  control_.GetClusterSpec(req, kSpecWaitMs + kRpcTimeoutMs,
                          [this](Result<rpc::GetClusterSpecResponse> r) { OnSpec(std::move(r)); });
}

void TaskRun::OnSpec(Result<rpc::GetClusterSpecResponse> resp) {
  if (phase_ != Phase::kWaitingForSpec) return;
  if (!resp.ok()) {
    if (++spec_failures_ > kSpecMaxFailures) {
      Exit(1, resp.status().WithContext("waiting for the cluster spec").message());
    } else {
      spec_retry_.Arm(kSpecRetryMs);
    }
    return;
  }
  spec_failures_ = 0;
  if (!resp->ready()) {
    SendSpecRequest();
    return;
  }
  cluster_ = ClusterOf(resp->cluster());
  spec_generation_ = resp->spec_generation();
  if (resp->has_model_params()) model_params_ = resp->model_params();
  for (const auto& [task, p] : resp->published()) {
    published_[task] = runtime::PublishedEndpoint{p.address(), p.info(), 0};
    TONY_LOG(kInfo) << task << " published " << p.address();
  }
  TONY_LOG(kInfo) << "starting " << std::max(1, role_.nproc_per_task)
                  << " process(es): " << role_.command;
  if (port_.reuse_port()) {
    // TonY's ReusablePort: held (SO_REUSEPORT, never listening) until the executor exits; the
    // user process binds it with SO_REUSEPORT too (by itself or through the preload library), so
    // no third process can take it first.
    TONY_LOG(kInfo) << "keeping port " << port_.port() << " bound with SO_REUSEPORT ("
                    << runtime::HoldReason(spec_) << ")"
                    << (options_.reuse_port_shim.empty()
                            ? ""
                            : "; the process binds it through " + options_.reuse_port_shim);
  } else {
    port_.Release();  // as late as possible: the user process binds it next (TonY #366)
  }
  if (!options_.tensorboard_port.reuse_port()) options_.tensorboard_port.Release();
  phase_ = Phase::kWaitingUntilReady;
  WaitUntilReady();
}

void TaskRun::WaitUntilReady() {
  // The framework's readiness wait blocks (a bounded TCP wait); the loop goes on meanwhile. The
  // thread reads the job spec (which outlives this run) and its own copies, never this run; its
  // result comes back on the loop, to this run only if it still lives then.
  ready_wait_ = std::thread([&loop = loop_, &spec = spec_, role = id_.role, cluster = cluster_,
                             alive = std::weak_ptr<TaskRun*>(alive_)] {
    Status s = runtime::WaitUntilReady(spec, role, cluster);
    loop.Post([alive, s] {
      if (std::shared_ptr<TaskRun*> self = alive.lock()) (*self)->OnReady(s);
    });
  });
}

void TaskRun::OnReady(const Status& s) {
  if (phase_ != Phase::kWaitingUntilReady) return;
  if (!s.ok()) {
    TONY_LOG(kError) << s.message();
    phase_ = Phase::kReporting;
    ReportAndExit(MakeReport(id_, 1, s.message()), 1);
    return;
  }
  StartUserProcesses();
}

void TaskRun::PreloadReusePortShim(EnvMap& env) const {
  // First, so that its bind() is the one the program calls; the user's own preloads follow.
  auto existing = env.find("LD_PRELOAD");
  env["LD_PRELOAD"] =
      options_.reuse_port_shim +
      (existing == env.end() || existing->second.empty() ? "" : " " + existing->second);
  env[kHeldPortsVar] = std::to_string(port_.port());
  if (options_.tensorboard_port.reuse_port()) {
    env[kHeldPortsVar] += "," + std::to_string(options_.tensorboard_port.port());
  }
}

const ReservedPort* TaskRun::TensorBoardPort() const {
  if (!runtime::GetsTensorBoardPort(spec_, id_.role, id_.index)) return nullptr;
  if (runtime::TensorBoardOnTaskPort(spec_, id_.role)) return &port_;
  return options_.tensorboard_port.port() != 0 ? &options_.tensorboard_port : nullptr;
}

void TaskRun::StartUserProcesses() {
  auto options = UserProcessOptions(spec_, role_, id_, cluster_, published_);
  if (options.ok() && model_params_) {
    // TonY's containerEnv entry: after tony.execution.envs, as TonY's launch env has it.
    for (SpawnOptions& o : *options) o.env["MODEL_PARAMS"] = *model_params_;
  }
  if (const ReservedPort* tb = TensorBoardPort(); options.ok() && tb != nullptr) {
    EnvMap vars = runtime::TensorBoardEnv(spec_, id_.role, tb->port(), tb->reuse_port());
    for (SpawnOptions& o : *options) {
      for (const auto& [k, v] : vars) o.env[k] = v;
    }
  }
  if (options.ok() && port_.reuse_port() && !options_.reuse_port_shim.empty()) {
    for (SpawnOptions& o : *options) PreloadReusePortShim(o.env);
  }
  if (options.ok() && role_.stall_timeout_ms > 0) {
    if (Status hook = WritePythonHook(id_.log_dir); !hook.ok()) {
      TONY_LOG(kWarning) << hook.WithContext("writing the Python stacks hook").message()
                         << "; a stall will be reported without stacks";
    }
    if (Status progress = WriteFileAtomic(ProgressFile(id_), ""); !progress.ok()) {
      TONY_LOG(kWarning) << progress.message() << "; the task's touches of $TONY_PROGRESS_FILE "
                         << "may not count as progress";
    }
  }
  if (options.ok()) WriteClusterSpecFile();
  Status s = options.ok() ? processes_.Start(*options) : options.status();
  if (!s.ok()) {
    TONY_LOG(kError) << s.message();
    phase_ = Phase::kReporting;
    ReportAndExit(MakeReport(id_, 127, s.message()), 127);
    return;
  }
  phase_ = Phase::kRunning;
  if (role_.stall_timeout_ms > 0) WatchForStalls(*options);
  if (spec_.execution_timeout_ms > 0) execution_timeout_.Arm(spec_.execution_timeout_ms);
  if (spec_.metrics_interval_ms > 0) {
    metrics_timer_.Arm(spec_.metrics_interval_ms, spec_.metrics_interval_ms);
  }
  if (runtime::Publishes(spec_, id_.role)) {
    publish_deadline_ms_ = NowMs() + kPublishWaitMs;
    publish_poll_.Arm(kPublishPollMs, kPublishPollMs);
  }
}

void TaskRun::PollPublished() {
  if (phase_ != Phase::kRunning) {
    publish_poll_.Disarm();
    return;
  }
  auto found = runtime::PollPublished(spec_, id_.role);
  if (found.ok() && !*found && NowMs() < publish_deadline_ms_) return;
  publish_poll_.Disarm();
  if (!found.ok()) {
    StopTask(found.status().message(), false);
    return;
  }
  if (!*found) {
    StopTask("the user process published nothing for the tasks that wait for it within " +
                 std::to_string(kPublishWaitMs / 1000) + " s",
             false);
    return;
  }
  rpc::PublishRequest req;
  *req.mutable_task() = id_.Ref();
  req.set_port((*found)->port);
  req.set_info((*found)->info);
  const int port = (*found)->port;
  TONY_LOG(kInfo) << "the user process serves port " << port << "; publishing it";
  control_.Publish(req, kRpcTimeoutMs, [this, port](const Status& s) {
    if (s.ok()) {
      TONY_LOG(kInfo) << "published port " << port;
    } else {
      StopTask(s.WithContext("publishing port " + std::to_string(port)).message(), false);
    }
  });
}

void TaskRun::WatchForStalls(const std::vector<SpawnOptions>& options) {
  StallWatchOptions w;
  w.timeout_ms = role_.stall_timeout_ms;
  w.key = keys::ForRole(keys::kRoleStallTimeoutMs, role_.name);
  if (auto it = spec_.sources.find(w.key); it != spec_.sources.end()) w.source = it->second;
  w.log_dir = id_.log_dir;
  for (const SpawnOptions& o : options) {
    w.files.push_back(o.stdout_path);
    w.files.push_back(o.stderr_path);
  }
  w.files.push_back(ProgressFile(id_));
  TONY_LOG(kInfo) << "watching for stalls: no output and no touch of " << ProgressFile(id_)
                  << " for " << role_.stall_timeout_ms << " ms (" << w.key << ") is one; on "
                  << OnStallName(role_.on_stall) << " ("
                  << keys::ForRole(keys::kRoleOnStall, role_.name) << ")";
  stall_watch_.Start(std::move(w), [this] { return processes_.LiveGroups(); });
}

void TaskRun::OnStallChange(bool stalled, const std::string& note) {
  if (phase_ != Phase::kRunning) return;
  stalled_ = stalled;
  stall_note_ = note;
  // Tell the coordinator now, not at the next beat (while one is looked for, the next one hears).
  if (!lost_ && reconnect_since_ms_ < 0) OnHeartbeatTick();
}

void TaskRun::OnHeartbeatTick() {
  if (reconnect_since_ms_ >= 0) {
    Reconnect();
    return;
  }
  if (heartbeat_in_flight_) return;
  heartbeat_in_flight_ = true;
  rpc::HeartbeatRequest req;
  *req.mutable_task() = id_.Ref();
  req.set_tokens_generation(tokens_generation_);
  req.set_spec_generation(spec_generation_);
  AddMetrics(req.mutable_metrics());
  if (stalled_) {
    req.set_stalled(true);
    req.set_stall(stall_note_);
  }
  int deadline = static_cast<int>(std::max<int64_t>(spec_.heartbeat_interval_ms, 100));
  control_.Heartbeat(req, deadline,
                     [this](Result<rpc::HeartbeatResponse> r) { OnHeartbeat(std::move(r)); });
}

void TaskRun::OnHeartbeat(Result<rpc::HeartbeatResponse> resp) {
  heartbeat_in_flight_ = false;
  if (lost_ || reconnect_since_ms_ >= 0) return;
  int64_t now = NowMs();
  if (resp.ok()) {
    last_answer_ms_ = now;
    if (resp->tokens_generation() > tokens_generation_) OnTokensRenewed(*resp);
    if (resp->spec_generation() > spec_generation_) OnNewerSpec(*resp);
    if (resp->stop()) StopTask("stopped by the coordinator", true);
    return;
  }
  if (now - last_answer_ms_ >= LossMs()) OnCoordinatorLost();
}

int64_t TaskRun::LossMs() const {
  return spec_.heartbeat_interval_ms * std::max(1, spec_.max_missed_heartbeats);
}

std::string TaskRun::LossReason() const {
  return "no answer to " + std::to_string(std::max(1, spec_.max_missed_heartbeats)) +
         " heartbeat(s), " + std::to_string(LossMs()) + " ms (" +
         spec_.KeyAndSource(keys::kTaskMaxMissedHeartbeats) + ", " +
         spec_.KeyAndSource(keys::kTaskHeartbeatIntervalMs) + ")";
}

void TaskRun::OnCoordinatorLost() {
  // Only a running task has work worth keeping; before it, the task has nothing to lose by
  // stopping, and the new coordinator starts it again.
  if (spec_.am_reconnect_window_ms > 0 && phase_ == Phase::kRunning) {
    reconnect_since_ms_ = NowMs();
    TONY_LOG(kWarning) << "lost contact with the coordinator at " << control_.address() << ": "
                       << LossReason() << "; the task keeps running while it looks for a new "
                       << "coordinator for up to " << spec_.am_reconnect_window_ms
                       << " ms (an AM restart)";
    Reconnect();
    return;
  }
  lost_ = true;
  heartbeat_.Disarm();
  StopTask("lost contact with the coordinator: " + LossReason(), false);
}

void TaskRun::Reconnect() {
  if (NowMs() - reconnect_since_ms_ >= spec_.am_reconnect_window_ms) {
    GiveUpReconnecting("lost contact with the coordinator: " + LossReason() +
                       ", and no coordinator took the task back within " +
                       std::to_string(spec_.am_reconnect_window_ms) + " ms");
    return;
  }
  if (rejoin_in_flight_) return;
  rejoin_in_flight_ = true;
  if (options_.locator == nullptr) {
    SendRejoin();
    return;
  }
  // The answer reaches this run only while it lives (a lookup may outlast it).
  options_.locator->Locate([this,
                            alive = std::weak_ptr<TaskRun*>(alive_)](Result<std::string> address) {
    if (alive.expired()) return;
    if (reconnect_since_ms_ < 0 || lost_) {
      rejoin_in_flight_ = false;
      return;
    }
    if (!address.ok()) {
      TONY_LOG(kWarning) << address.status().WithContext("looking up the coordinator").message();
    } else if (*address != control_.address()) {
      TONY_LOG(kInfo) << "the coordinator is now at " << *address << " (was " << control_.address()
                      << ")";
      control_.Retarget(*address);
    }
    SendRejoin();
  });
}

void TaskRun::SendRejoin() {
  rpc::RegisterTaskRequest req = RegisterRequest();
  req.set_rejoin(true);
  int deadline = static_cast<int>(std::max<int64_t>(spec_.heartbeat_interval_ms, 100));
  control_.RegisterTask(req, deadline, [this](const Status& s) { OnRejoined(s); });
}

void TaskRun::OnRejoined(const Status& s) {
  rejoin_in_flight_ = false;
  if (reconnect_since_ms_ < 0 || lost_) return;
  if (Unreachable(s)) return;  // the next interval tries again, within the window
  if (!s.ok()) {
    GiveUpReconnecting(
        s.WithContext("the coordinator at " + control_.address() + " refused the task's return")
            .message());
    return;
  }
  TONY_LOG(kInfo) << "registered again with the coordinator at " << control_.address() << " after "
                  << NowMs() - reconnect_since_ms_ << " ms; the task ran on";
  reconnect_since_ms_ = -1;
  last_answer_ms_ = NowMs();
  if (held_report_) {
    auto [report, code] = std::move(*held_report_);
    held_report_.reset();
    ReportAndExit(std::move(report), code);
  }
}

void TaskRun::GiveUpReconnecting(const std::string& why) {
  lost_ = true;
  reconnect_since_ms_ = -1;
  heartbeat_.Disarm();
  if (held_report_) {
    Exit(held_report_->second, why + "; exiting with " + std::to_string(held_report_->second) +
                                   " (the result was not reported)");
    return;
  }
  StopTask(why, false);
}

void TaskRun::WriteClusterSpecFile() const {
  // The cluster as CLUSTER_SPEC has it (runtime::ClusterSpecJson), under its generation.
  std::string json = "{\"generation\": " + std::to_string(spec_generation_) +
                     ", \"cluster\": " + runtime::ClusterSpecJson(cluster_) + "}\n";
  if (Status s = WriteFileAtomic(ClusterSpecFile(id_), json); !s.ok()) {
    TONY_LOG(kWarning) << s.message() << "; $TONY_CLUSTER_SPEC_FILE will not show the peers' "
                       << "new addresses";
  }
}

void TaskRun::OnNewerSpec(const rpc::HeartbeatResponse& resp) {
  // Before the process runs, the spec is kept as the readiness wait got it: a heartbeat after
  // the start brings the newer spec again.
  if (phase_ != Phase::kRunning) return;
  runtime::Cluster cluster = ClusterOf(resp.cluster());
  spec_generation_ = resp.spec_generation();
  if (cluster == cluster_) return;
  for (const auto& [role, addresses] : cluster) {
    const auto& before = cluster_[role];
    for (size_t i = 0; i < addresses.size(); ++i) {
      if (i >= before.size() || before[i] != addresses[i]) {
        TONY_LOG(kInfo) << role << ":" << i << " is now at " << addresses[i];
      }
    }
  }
  cluster_ = std::move(cluster);
  WriteClusterSpecFile();
}

// A failure leaves tokens_generation_ as it was: the next heartbeat brings the tokens again.
void TaskRun::OnTokensRenewed(const rpc::HeartbeatResponse& resp) {
  if (Status s = RenewTokenFile(resp.tokens()); !s.ok()) {
    TONY_LOG(kError) << "renewed delegation tokens (renewal " << resp.tokens_generation()
                     << ") not written to the token file: " << s.ToString();
    return;
  }
  tokens_generation_ = resp.tokens_generation();
  TONY_LOG(kInfo) << "renewed delegation tokens (renewal " << tokens_generation_ << ") in "
                  << std::getenv("HADOOP_TOKEN_FILE_LOCATION");
}

void TaskRun::OnSignal(int sig) {
  if (sig == SIGCHLD) {
    processes_.Reap();
    return;
  }
  StopTask("stopped by signal " + std::to_string(sig), true);
}

void TaskRun::StopTask(const std::string& why, bool by_request) {
  switch (phase_) {
    case Phase::kRegistering:
      Exit(1, why + " while registering with the coordinator; the user process was not started");
      return;
    case Phase::kWaitingForSpec:
      Exit(1, why + " while waiting for the cluster spec; the user process was not started");
      return;
    case Phase::kWaitingUntilReady:
      Exit(1, why +
                  " while waiting for the framework to be ready; the user process was not "
                  "started");
      return;
    case Phase::kRunning:
      processes_.Stop(why, by_request);
      return;
    case Phase::kReporting:
      TONY_LOG(kInfo) << why << " while reporting the result";
      return;
  }
}

void TaskRun::SampleMetrics() {
  if (phase_ != Phase::kRunning) return;
  int64_t rss = launcher_.DescendantsRssBytes();
  max_rss_bytes_ = std::max(max_rss_bytes_, rss);
  sum_rss_bytes_ += static_cast<double>(rss);
  ++rss_samples_;
}

void TaskRun::AddMetrics(google::protobuf::RepeatedPtrField<rpc::Metric>* out) const {
  if (rss_samples_ == 0) return;
  rpc::Metric* max = out->Add();
  max->set_name("MAX_MEMORY_BYTES");
  max->set_value(static_cast<double>(max_rss_bytes_));
  rpc::Metric* avg = out->Add();
  avg->set_name("AVG_MEMORY_BYTES");
  avg->set_value(sum_rss_bytes_ / static_cast<double>(rss_samples_));
}

void TaskRun::OnProcessesEnded() {
  metrics_timer_.Disarm();
  execution_timeout_.Disarm();
  stall_watch_.Stop();
  publish_poll_.Disarm();
  launcher_.KillDescendants();  // the task is over: nothing it started may outlive it
  phase_ = Phase::kReporting;
  ProcessesOutcome outcome = processes_.Outcome();
  TONY_LOG(kInfo) << "user process(es) exited with code " << outcome.exit_code
                  << (outcome.why.empty() ? "" : " (" + outcome.why + ")");
  int code = outcome.exit_code == 0
                 ? 0
                 : (outcome.exit_code > 0 && outcome.exit_code < 256 ? outcome.exit_code : 1);
  if (lost_) {
    Exit(code, "exiting with " + std::to_string(code) +
                   " (the result was not reported: the coordinator is lost)");
    return;
  }
  rpc::ReportResultRequest report = MakeReport(id_, spec_, outcome, processes_);
  AddMetrics(report.mutable_metrics());
  if (reconnect_since_ms_ >= 0) {
    TONY_LOG(kInfo) << "the result waits for a coordinator to take the task back";
    held_report_.emplace(std::move(report), code);
    return;
  }
  ReportAndExit(std::move(report), code);
}

void TaskRun::ReportAndExit(rpc::ReportResultRequest req, int code) {
  reporter_.Send(std::move(req), [this, code](bool reported) {
    if (reported) {
      TONY_LOG(kInfo) << "result reported; exiting with " << code;
    } else {
      TONY_LOG(kInfo) << "exiting with " << code << " (the result was not reported)";
    }
    Exit(code);
  });
}

void TaskRun::Exit(int code, const std::string& error) {
  if (!error.empty()) TONY_LOG(kError) << error;
  loop_.Quit(code);
}

}  // namespace tony
