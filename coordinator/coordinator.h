// Coordinator: the shell around the pure JobStateMachine (TonY's ApplicationMaster).
//
// It owns one asio event loop. The gRPC server's handlers (callback API, on gRPC's threads) only
// post work into that loop; the engine calls back on it. All job state therefore lives on one
// thread and needs no locks. Commands the state machine emits become engine calls and answers to
// waiting RPCs; every visible change is written to the job directory (status.json, events.jsonl)
// so the job can be inspected after it ends.
//
// Time comes from an injected TimeSource (common/timer.h): the real clock in the daemon, a
// simulated one in the in-process tests (tests/unit/coordinator_shell_test.cc). The loop keeps one
// timer, armed for the earliest of: the state machine's NextDeadlineMs(), the deadline of a
// waiting long-poll, and the end of the linger after the job finished. There is no periodic tick:
// with nothing due, the loop sleeps until an RPC or an engine event arrives. The job's end shuts
// the control plane down as soon as a client has read the final status.
#pragma once

#include <grpcpp/grpcpp.h>

#include <asio.hpp>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/timer.h"
#include "coordinator/core/job_state_machine.h"
#include "coordinator/journal_writer.h"
#include "coordinator/status_http.h"
#include "engine/engine.h"
#include "history/job_dir.h"
#include "history/tony_history.h"
#include "rpc/tls.h"
#include "rpc/tony.grpc.pb.h"

namespace tony {

struct CoordinatorOptions {
  std::string job_id;
  std::string job_dir;
  std::string secret;
  // YARN: the control plane is TLS with this identity (rpc/tls.h), handed on to every executor.
  std::optional<rpc::JobTls> tls;
  std::string bind_host = "127.0.0.1";        // where the control plane listens
  std::string advertised_host = "127.0.0.1";  // what executors and clients dial
  std::string tony_binary;                    // the executable executors run (`tony executor`)
  // After the end, wait this long for a client to read it (JobSpec::client_wait_ms).
  int64_t linger_ms = 15'000;
  // Serve the read-only status endpoint (coordinator/status_http.h) on bind_host and pass its
  // URL to the engine (YARN: the tracking URL).
  bool status_endpoint = false;
  // The RM's web proxy, host:port each (engine/yarn_contract.h kWebProxyEnv): the only peers the
  // status endpoint answers with the job; others get 403. Unset: every peer (tests).
  std::optional<std::vector<std::string>> status_proxies;
  // tony.history.location's history in TonY's layout (history/tony_history.h); nullopt: none.
  // The coordinator fills in the app id, user, host, container and tony-final.xml.
  std::optional<history::TonyHistoryOptions> tony_history;
  // Where the AM's journal goes after every change (docs/am-restart.md §3; YARN: the staging dir
  // on HDFS, when a later AM attempt may recover the job); nullptr: nowhere.
  JournalWriter::Write write_journal;
  // A later AM attempt (docs/am-restart.md §5): the journal of the attempt before, from which the
  // job is recovered (core::Recovered, with the engine's ContainersFromPreviousAttempts) instead
  // of started.
  std::optional<core::JobJournal> journal;
};

using EngineFactory = std::function<std::unique_ptr<engine::Engine>(asio::io_context&)>;
using TimeSourceFactory = std::function<std::unique_ptr<TimeSource>(asio::io_context&)>;

class Coordinator final : public engine::EngineListener {
 public:
  // Both factories are called once, in the constructor, with the coordinator's loop. Without
  // `make_time` the coordinator runs on the real clock (AsioTimeSource).
  Coordinator(CoordinatorOptions options, JobSpec spec, const EngineFactory& make_engine,
              const TimeSourceFactory& make_time = nullptr);
  ~Coordinator() override;

  // Runs the job to its end, on the calling thread. Returns 0 when it SUCCEEDED, 1 otherwise.
  int Run();
  // The port the control plane listens on, once Run() has started it (0 before). For tests: any
  // thread may read it.
  int port() const { return port_.load(); }

  // EngineListener (called on the loop).
  void OnContainerAllocated(const std::string& container_id, const std::string& role,
                            const std::string& host) override;
  void OnContainerPreempting(const std::string& container_id) override;
  void OnContainerCompleted(const std::string& container_id,
                            const engine::ContainerEnd& end) override;
  void OnContainerLaunchFailed(const std::string& container_id,
                               const std::string& message) override;
  void OnTaskTokensRenewed(const std::string& credentials) override;

  // Entry points for the RPC service; each runs on the loop.
  class Service;
  void HandleRegister(const rpc::RegisterTaskRequest& req, grpc::ServerUnaryReactor* reactor);
  void HandleGetClusterSpec(const rpc::GetClusterSpecRequest& req,
                            rpc::GetClusterSpecResponse* resp, grpc::ServerUnaryReactor* reactor);
  void HandleHeartbeat(const rpc::HeartbeatRequest& req, rpc::HeartbeatResponse* resp,
                       grpc::ServerUnaryReactor* reactor);
  void HandleReportResult(const rpc::ReportResultRequest& req, grpc::ServerUnaryReactor* reactor);
  void HandlePublish(const rpc::PublishRequest& req, grpc::ServerUnaryReactor* reactor);
  void HandleGetJobStatus(const rpc::GetJobStatusRequest& req, rpc::JobStatus* resp,
                          grpc::ServerUnaryReactor* reactor);
  void HandleKill(const rpc::KillJobRequest& req, grpc::ServerUnaryReactor* reactor);

  asio::io_context& io() { return io_; }
  const std::string& secret() const { return options_.secret; }

 private:
  struct SpecWaiter {
    core::TaskId task;
    int attempt = 0;
    rpc::GetClusterSpecResponse* response = nullptr;
    grpc::ServerUnaryReactor* reactor = nullptr;
    int64_t deadline_ms = 0;
  };
  struct StatusWaiter {
    int64_t after_version = 0;
    rpc::JobStatus* response = nullptr;
    grpc::ServerUnaryReactor* reactor = nullptr;
    int64_t deadline_ms = 0;
  };
  struct ContainerTask {
    core::TaskId task;
    int attempt = 0;
  };

  // A task's executor that lost this coordinator registers again (RegisterTaskRequest.rejoin).
  void HandleRejoin(const core::TaskId& id, const core::TaskRecord& task,
                    const rpc::RegisterTaskRequest& req, grpc::ServerUnaryReactor* reactor);
  // The same for a task this AM attempt recovered from the journal: it awaits that rejoin.
  void HandleRecoveredRejoin(const core::TaskId& id, const rpc::RegisterTaskRequest& req,
                             grpc::ServerUnaryReactor* reactor);
  // Start, or Recovered from CoordinatorOptions::journal.
  void StartOrRecover();
  Status StartServer();
  Status StartStatusEndpoint();
  void Dispatch(const core::Event& event);
  // Says in the coordinator's log that the training stage started, and after which roles.
  void LogStageStart();
  void Execute(const core::Command& command);
  void Launch(const core::LaunchTask& launch);
  engine::LaunchSpec BuildLaunchSpec(const core::LaunchTask& launch) const;
  // The one timer fired: dispatch a Tick (timeouts), expire long-polls, maybe shut down.
  void OnWake();
  // Arms the timer for the earliest thing due; called after everything the loop runs.
  void ArmWake();
  void MaybeShutDown();
  void AnswerSpecWaiters(bool expire_only);
  void AnswerStatusWaiters(bool expire_only);
  rpc::JobStatus Snapshot() const;
  // One task's part of Snapshot: its current attempt and the attempts before it.
  void AddTaskStatus(const core::TaskRecord& t, rpc::TaskStatus* ts) const;
  // A write of the job's record (status.json, events.jsonl) failed: logged, and the first such
  // error is kept for the job's final message, so that a full disk is never silent.
  void NoteRecordError(const Status& s);
  // The job's final message, with the record's first error when there was one.
  std::string WithRecordError(const std::string& message) const;
  void PersistChanges();
  // Offers the journal to journal_ when the job changed since the last offer.
  void JournalChanges();
  // Appends a task's state change to events.jsonl (with how it ended, for a terminal state) and
  // remembers it; states only move forward (common/task_state.h).
  void RecordTaskState(const core::TaskRecord& t, core::TaskState state);
  // The same for an ended attempt of a task that has restarted since.
  void RecordPastAttempt(const core::TaskId& id, const core::PastAttempt& past);
  static std::string StateKey(const core::TaskId& id, int attempt);
  // TonY's history (job_dir_writer.cc): opened with APPLICATION_INITED at the start; a task
  // attempt's TASK_STARTED when it gets its container, TASK_FINISHED when it ends; at the job's
  // end APPLICATION_FINISHED, the final name and the move to finished/.
  void StartTonyHistory();
  void HistoryTaskState(const core::TaskId& id, int attempt, core::TaskState state,
                        const std::string& host, const std::string& container_id,
                        const std::string& diagnostic);
  void FinishTonyHistory(core::FinalStatus status);
  // A failed write of TonY's history: a warning naming the path and why, the first one kept for
  // the job's final message, and no further writes (a file missing events would mislead).
  void NoteHistoryError(const Status& s);
  void Finish(const core::FinishJob& finish);
  void ShutdownServer();
  int64_t NowMs() const { return time_->clock().MonotonicMs(); }
  int64_t WallMs() const { return time_->clock().WallMs(); }

  CoordinatorOptions options_;
  history::JobPaths paths_;
  asio::io_context io_;
  std::unique_ptr<TimeSource> time_;
  std::unique_ptr<Timer> wake_timer_;  // destroyed before time_, which made it
  int64_t wake_at_ms_ = -1;            // what wake_timer_ is armed for; -1: not armed
  core::JobStateMachine machine_;
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<grpc::Service> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<StatusHttpServer> status_http_;
  std::string tracking_url_;
  std::atomic<int> port_{0};
  int64_t start_wall_ms_ = 0;
  int64_t end_wall_ms_ = 0;
  int64_t persisted_version_ = -1;
  std::unique_ptr<JournalWriter> journal_;  // nullptr: no journal (write_journal unset)
  int64_t journaled_version_ = -1;
  std::map<std::string, core::TaskState> last_states_;  // StateKey -> last state in events.jsonl
  std::string record_error_;  // the first failed write of the job's record (NoteRecordError)
  std::unique_ptr<history::TonyHistoryWriter> tony_history_;
  std::string history_error_;              // the first failed write of TonY's history
  std::set<std::string> history_started_;  // StateKeys with a TASK_STARTED written
  std::map<std::string, ContainerTask> container_tasks_;
  std::map<std::string, std::string> log_urls_;  // container -> engine's log URL, if any
  std::map<std::string, std::string> nodes_;     // container -> engine's node name, if any
  // JobStatus::tensorboard_url: where the task with TB_PORT registered it (its latest attempt).
  std::string tensorboard_url_;
  // "role:index#attempt" -> the metrics its executor last sent (heartbeats, then its report).
  std::map<std::string, std::vector<rpc::Metric>> metrics_;
  // When status.json last got new metrics: rewritten for them at most once a second (a change of
  // state rewrites it at once anyway).
  int64_t metrics_written_ms_ = 0;
  bool metrics_unwritten_ = false;  // metrics kept since, not in status.json yet
  // Keeps a task's metrics; true when they differ from what was kept.
  bool KeepMetrics(const rpc::TaskRef& task,
                   const google::protobuf::RepeatedPtrField<rpc::Metric>& metrics);
  std::vector<SpecWaiter> spec_waiters_;
  // What the preprocess task am:0 reported as its model parameters (TonY's MODEL_PARAMS).
  std::optional<std::string> model_params_;
  // What tasks published for the tasks that await them (runtime/framework.h, SpecAwaits), by
  // "role:index"; a waiting task's spec is held until its awaited task is here.
  std::map<std::string, rpc::Published> published_;
  std::vector<StatusWaiter> status_waiters_;
  bool finished_ = false;
  bool final_status_seen_ = false;
  bool shutting_down_ = false;
  int64_t finished_at_ms_ = 0;
  // The latest renewal of the tasks' delegation tokens (it holds every renewed token: only the
  // staging file system's is renewed) and its number; 0: none yet.
  std::string renewed_tokens_;
  int64_t tokens_generation_ = 0;
  std::thread stopper_;
};

}  // namespace tony
