// TaskRun: one task attempt on the executor's loop, as a sequence of phases driven by events:
//
//   registering --RegisterTask ok--> waiting for the spec --ready--> waiting until the framework
//   is ready (runtime/framework.h, on a thread this run owns) --> running --all ended--> reporting
//
// Events: answers from the coordinator (ControlPlane), the loop's signals (SIGTERM, SIGINT,
// SIGHUP: stop; SIGCHLD: reap), timers (heartbeat cadence, retry backoffs, execution timeout,
// the stop's grace period). Heartbeats start once registered, one interval apart; the
// coordinator is lost after max-missed-heartbeats intervals without an answer. With a reconnect
// window (JobSpec::am_reconnect_window_ms, docs/am-restart.md §6) a running task rides that out:
// each interval it looks up the coordinator's address (CoordinatorLocator) and registers again as
// the same (task, attempt) with `rejoin`; the first coordinator to take it resumes the heartbeats
// (and gets the result, held meanwhile, if the user processes ended); past the window, or refused,
// the task stops as a lost coordinator stops it. A stop (a signal,
// the coordinator's answer, a lost coordinator) before the running phase exits without starting
// the user process; in it, it stops the user processes (UserProcesses::Stop). The loop quits with
// the executor's exit code.
//
// Everything outside it comes through interfaces: the loop's time, timers, Post and Quit
// (ExecutorLoop), the coordinator (CoordinatorCalls) and the processes (ProcessLauncher). The
// executor gives it EventLoop, ControlPlane and OsProcessLauncher; the in-process tests
// (tests/unit/executor_task_run_test.cc) give it simulated time and fakes.
//
// Thread-safety: the loop's thread only, destruction included (which waits for the readiness
// wait's thread, if any). The loop, the calls and the launcher must outlive it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "common/net.h"
#include "config/job_spec.h"
#include "executor/control_plane.h"
#include "executor/event_loop.h"
#include "executor/report.h"
#include "executor/stall_watch.h"
#include "executor/task_identity.h"
#include "executor/user_processes.h"
#include "runtime/runtime.h"

namespace tony {

struct TaskRunOptions {
  int64_t registry_timeout_ms = 0;  // 0: retry registration until stopped
  int64_t grace_ms = 5'000;         // SIGTERM to SIGKILL
  // With a held port: the preload library that lets the user process bind it (common/net.h
  // kReusePortShimName); empty when it is missing (executor.cc decides whether to hold then).
  std::string reuse_port_shim;
  // The second port of a chief that gets TB_PORT (runtime/tensorboard.h), reserved and held as
  // the task's port is; port 0 for every other task (the sidecar's TB_PORT is its task port).
  ReservedPort tensorboard_port;
  // Where a new coordinator listens, looked up while the task rides out a lost coordinator
  // (JobSpec::am_reconnect_window_ms); null: the task only tries the address it has. Not owned.
  CoordinatorLocator* locator = nullptr;
};

class TaskRun {
 public:
  TaskRun(ExecutorLoop& loop, CoordinatorCalls& control, ProcessLauncher& launcher,
          const JobSpec& spec, const RoleSpec& role, const TaskIdentity& id, ReservedPort port,
          TaskRunOptions options);
  ~TaskRun();
  TaskRun(const TaskRun&) = delete;
  TaskRun& operator=(const TaskRun&) = delete;

  void Begin();  // registers
  void OnSignal(int sig);

 private:
  enum class Phase { kRegistering, kWaitingForSpec, kWaitingUntilReady, kRunning, kReporting };

  // What registering sends: the task, its address, its TensorBoard port (SendRejoin adds `rejoin`).
  rpc::RegisterTaskRequest RegisterRequest() const;
  void SendRegister();
  void OnRegistered(const Status& s);
  void SendSpecRequest();
  void OnSpec(Result<rpc::GetClusterSpecResponse> resp);
  // Runs the framework's readiness wait off the loop; OnReady gets its result on the loop.
  void WaitUntilReady();
  void OnReady(const Status& s);
  void StartUserProcesses();
  // Writes cluster_ and spec_generation_ to ClusterSpecFile; a failure is logged (the task runs
  // on with the spec of its environment).
  void WriteClusterSpecFile() const;
  // A newer spec from a heartbeat: a peer restarted in task scope has a new address.
  void OnNewerSpec(const rpc::HeartbeatResponse& resp);
  void SampleMetrics();
  // TonY's MAX_MEMORY_BYTES and AVG_MEMORY_BYTES so far; nothing before the first sample.
  void AddMetrics(google::protobuf::RepeatedPtrField<rpc::Metric>* out) const;
  // LD_PRELOAD and TONY_HELD_PORTS for a user process that binds the held port through the
  // preload library.
  void PreloadReusePortShim(EnvMap& env) const;
  // TB_PORT's port when this task gets one (the sidecar's task port, or the chief's second
  // port), else null.
  const ReservedPort* TensorBoardPort() const;
  // A task others await (runtime/framework.h, SpecAwaits): polls for what its user process
  // publishes, sends it to the coordinator once, and stops the task when it does not come.
  void PollPublished();
  // Arms the stall watch (README "Stalls") for a role with a stall timeout.
  void WatchForStalls(const std::vector<SpawnOptions>& options);
  void OnStallChange(bool stalled, const std::string& note);
  void OnHeartbeatTick();
  void OnHeartbeat(Result<rpc::HeartbeatResponse> resp);
  void OnTokensRenewed(const rpc::HeartbeatResponse& resp);
  // How long without an answer the coordinator counts as lost (max-missed x interval).
  int64_t LossMs() const;
  // "no answer to 3 heartbeat(s), 3000 ms (keys...)": why the coordinator counts as lost.
  std::string LossReason() const;
  // The coordinator is lost: ride it out within the reconnect window, or stop the task.
  void OnCoordinatorLost();
  // Once per heartbeat interval while the coordinator is lost: give up past the window, else look
  // up its address and register again.
  void Reconnect();
  void SendRejoin();
  void OnRejoined(const Status& s);
  // The window passed, or a coordinator refused the task: the task stops for `why`.
  void GiveUpReconnecting(const std::string& why);
  // Stops the task for `why`: before the running phase the executor exits without starting the
  // user process; in it, the user processes are stopped.
  void StopTask(const std::string& why, bool by_request);
  void OnProcessesEnded();
  void ReportAndExit(rpc::ReportResultRequest req, int code);
  void Exit(int code, const std::string& error = "");
  int64_t NowMs() const { return loop_.clock().MonotonicMs(); }

  ExecutorLoop& loop_;
  CoordinatorCalls& control_;
  ProcessLauncher& launcher_;
  const JobSpec& spec_;
  const RoleSpec& role_;
  const TaskIdentity& id_;
  ReservedPort port_;
  TaskRunOptions options_;
  Phase phase_ = Phase::kRegistering;
  int64_t register_deadline_ms_ = 0;
  int spec_failures_ = 0;
  runtime::Cluster cluster_;
  std::optional<std::string> model_params_;  // MODEL_PARAMS, from the preprocess task am:0
  runtime::Published published_;             // what the tasks this one awaited published
  int64_t publish_deadline_ms_ = 0;
  bool heartbeat_in_flight_ = false;
  int64_t last_answer_ms_ = 0;
  bool lost_ = false;
  int64_t reconnect_since_ms_ = -1;  // when the coordinator was lost, while riding it out
  bool rejoin_in_flight_ = false;
  // The result of user processes that ended while riding out a lost coordinator, with the exit
  // code: sent once a coordinator takes the task back.
  std::optional<std::pair<rpc::ReportResultRequest, int>> held_report_;
  bool stalled_ = false;  // what the heartbeats say (StallWatch)
  std::string stall_note_;
  int64_t tokens_generation_ = 0;  // the renewal of the delegation tokens in the token file
  int64_t spec_generation_ = 0;    // the cluster spec's generation in cluster_ (0: none yet)
  LoopTimer register_retry_;
  LoopTimer spec_retry_;
  LoopTimer heartbeat_;
  LoopTimer execution_timeout_;
  LoopTimer publish_poll_;
  // Task metrics (README "Task metrics"): the RSS of the executor's descendants, sampled every
  // tony.task.metrics-interval-ms while the user processes run.
  LoopTimer metrics_timer_;
  int64_t max_rss_bytes_ = 0;
  double sum_rss_bytes_ = 0;
  int64_t rss_samples_ = 0;
  UserProcesses processes_;
  StallWatch stall_watch_;
  ResultReporter reporter_;
  // What the readiness wait posts its result through: it reaches this run only while it lives.
  std::shared_ptr<TaskRun*> alive_ = std::make_shared<TaskRun*>(this);
  std::thread ready_wait_;  // joined by the destructor
};

}  // namespace tony
