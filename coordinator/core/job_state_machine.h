// JobStateMachine: the coordinator's whole policy as a pure state machine.
//
// Events in (container allocated, task registered, heartbeat, exit, timer tick, kill), commands
// out (request containers, launch, stop, publish the cluster spec, finish). No I/O, no threads,
// no clock: `now_ms` (monotonic milliseconds) comes with every event. The shell
// (coordinator/coordinator.h) turns commands into engine calls and RPC answers.
//
// Identity is (task, attempt): every event carries the attempt it is about, and an event for an
// attempt that is not the task's current one is ignored (fenced). A restart gives the task a new
// attempt; the ended one is kept in TaskRecord::past_attempts and never changes.
//
// Outcome rules (TonY's, docs/tony-compat.md §1.5, with the differences README lists):
//  * How a task's end maps to a state (common/task_state.h, ClassifyExit in
//    job_state_machine_outcome.cc): exit 0 -> SUCCEEDED; stopped by its executor (or killed by
//    SIGTERM/SIGKILL after tony asked it to stop) -> STOPPED, or NOT_STARTED before its user
//    process could run; any other exit or signal -> FAILED, even after a stop request; no exit
//    known (heartbeat loss, a container gone without a report) -> LOST, which counts as FAILED.
//  * A FAILED task fails the job at once when it is: the chief (role "chief", else worker:0); of a
//    stop-on-failure role; untracked (e.g. ps: workers would hang without it); failed before it
//    registered; or any tracked task while fail_on_worker_failure is true (our default).
//    A FAILED sidecar task is ignored.
//  * An explicit "chief" role that SUCCEEDS ends the job as SUCCEEDED; tasks still running are
//    stopped (the ParameterServerStrategy pattern, where ps and workers never exit by themselves).
//  * Otherwise the job ends when every tracked task has ended: FAILED if any tracked task failed
//    and (fail_on_worker_failure or all tracked tasks failed), else SUCCEEDED (with "completed
//    with N failed task(s)" when some failed, TonY #428).
//  * Stages (TonY's prepare/training stages, RoleSpec::stage): Start asks for the containers of
//    stage 0's roles only; stage 1's tasks wait in NEW until every tracked task of stage 0 has
//    SUCCEEDED, then their containers are asked for. A tracked stage-0 task that FAILS fails the
//    job (the training stage must not start on half-prepared data), whatever
//    fail_on_worker_failure says. Each stage has its own GANG barrier and cluster spec (its own
//    roles only) and its own allocation timeout, from the stage's start. An explicit chief
//    decides the job only in the last stage.
//  * Group dependency timeouts (JobSpec::group_dependencies), once the last stage has started:
//    when every task of a group's roles has ended and a task of the dependent role is still
//    running timeout_ms after the last of them ended, the job fails; with `ignored` the role's
//    running tasks are no longer waited for instead (untracked, as TonY makes them), and the job
//    may complete without them.
//  * Timeouts, checked on every event including Tick: application timeout (from Start); gang
//    timeout (JobSpec::gang_timeout_ms: every container of the stage allocated within it, from
//    the stage's start or its gang restart; the message names the containers still missing);
//    registration timeout (per task, from its container allocation); allocation timeout (GANG:
//    every task registered within it, from Start); heartbeat loss (no heartbeat for
//    heartbeat_interval_ms * max(3, max_missed_heartbeats) after registration): the task is LOST,
//    which counts as a failure of that task, like a container failure (TonY #606).
//  * Restarts (RoleSpec::restart_*, README "Restarts"), before any rule above: a task that
//    ended FAILED or LOST while the job runs starts again when its role's policy says so and the
//    role's budget (max_restarts) has a restart left; a preempted container, a lost node or
//    failed disks (TakenBackByCluster; YARN's container status -102, -100, -101) is always
//    replaced and never counted. After the backoff,
//    scope task: the task alone gets a new attempt and a new container (GANG: its own spec has
//    its new address; running peers are not told, issue 11); scope gang: every task of its stage is
//    stopped, and once all have ended and the backoff passed, each starts again with a new attempt,
//    new containers and a new GANG barrier. A task of that stage ending meanwhile, however it ends,
//    is part of that restart, not a new failure. While a restart is pending the job cannot
//    complete. With the budget used up the failure applies the rules above, its message saying
//    so.
//  * Stalls (RoleSpec::stall_timeout_ms, README "Stalls"): the executor watches its task's output
//    and progress file and, once the timeout passes without either, captures the Python stacks
//    and says so (TaskStalled): RUNNING becomes STALLED, and back when it says progress resumed.
//    With on_stall kFail or kRestart tony stops it; that stop ends it FAILED for its stall (the
//    message carries the stacks), and with kRestart it restarts whatever its restart policy says
//    while its role's budget lasts.
//  * An executor's report that it was stopped by a signal tony did not send (on YARN: the
//    NodeManager preempting the container) is held until the container's status comes, at most
//    kForeignStopWaitMs: only that status tells a preemption from a kill.
//  * The first decision wins: later events never change a job's final status or message (#599).
//  * After the decision the job is STOPPING: StopTask for every task not yet ended; when all have
//    ended, or kStopGraceMs has passed, FinishJob.
//
// Thread-safety: none; owned by the coordinator's event loop.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "common/task_state.h"
#include "config/job_spec.h"
#include "engine/container_request.h"
#include "runtime/runtime.h"

namespace tony::core {

struct TaskId {
  std::string role;
  int index = 0;
  std::string ToString() const { return role + ":" + std::to_string(index); }
  auto operator<=>(const TaskId&) const = default;
};

enum class JobPhase { kRunning, kStopping, kFinished };
enum class FinalStatus { kUndecided, kSucceeded, kFailed, kKilled };
const char* FinalStatusName(FinalStatus s);

inline constexpr int64_t kStopGraceMs = 15'000;
// How long an executor's report of a foreign stop waits for its container's status.
inline constexpr int64_t kForeignStopWaitMs = 10'000;

// How an earlier attempt of a task ended; it never changes.
struct PastAttempt {
  int attempt = 0;
  TaskState state = TaskState::kNew;
  std::optional<int> exit_code;
  int signal = 0;
  std::string end_reason;
  std::string host;
  std::string container_id;
  int64_t ended_ms = -1;
  std::string restart;  // the restart that followed it (TaskRecord::restart then)
};

struct TaskRecord {
  TaskId id;
  int attempt = 0;
  int stage = 0;  // RoleSpec::stage
  TaskState state = TaskState::kNew;
  bool tracked = true;
  bool sidecar = false;
  bool untracked = false;
  bool is_chief = false;
  // The job waits for it to end (tracked, or every task when none is tracked); cleared when an
  // ignored group dependency timeout releases it.
  bool in_completion = true;
  std::string container_id;
  std::string host;
  int port = 0;
  std::optional<int> exit_code;  // the user process's exit code, when it exited
  int signal = 0;                // the signal that ended the user process; 0 when it exited
  std::string end_reason;        // one line: why it ended (a stop's reason, a loss, a memory kill)
  std::string diagnostics;       // the details, incl. the stderr tail the executor sent
  bool stop_requested = false;
  std::string stop_reason;  // why tony asked it to stop ("the job failed: ...")
  int64_t allocated_ms = -1;
  int64_t registered_ms = -1;
  int64_t last_heartbeat_ms = -1;
  int64_t ended_ms = -1;
  // Why the container ended when the engine reported its end, with the engine's words
  // (TaskExited); kExited when the executor's report decided.
  ContainerExitReason container_reason = ContainerExitReason::kExited;
  std::string container_words;
  // A restart of this task alone is due then (restart scope task); -1: none pending.
  int64_t restart_at_ms = -1;
  // What restarts it, or what restarted it last: "restart 1 of 3 (tony.worker.max-restarts) in
  // 1000 ms, task scope: task worker:1 failed: exit 3". Cleared when an attempt ends, unless
  // the end brings a restart: a terminal task with a note in a running job awaits its restart.
  std::string restart;
  // While STALLED, and when a stall ended it: the executor's note, its first line "no output or
  // progress for 30000 ms (tony.worker.stall-timeout-ms); ...", then the captured stacks.
  std::string stall;
  bool stopped_for_stall = false;  // tony stopped it for its stall (RoleSpec::on_stall)
  // YARN's preemption notice stopped it (PreemptionNotice): however it ends, it is STOPPED and
  // replaced without counting against its role's restart budget.
  bool preempted = false;
  // A later AM attempt recovered it live (Recovered): it awaits its executor's rejoin until then,
  // and is LOST after; -1 when not awaiting one (docs/am-restart.md §5).
  int64_t rejoin_by_ms = -1;
  std::vector<PastAttempt> past_attempts;
};

// The attempt `t` is now, as its past_attempts keep it, with the restart that followed it.
inline PastAttempt PastAttemptOf(const TaskRecord& t, std::string restart) {
  return PastAttempt{t.attempt, t.state,        t.exit_code, t.signal,          t.end_reason,
                     t.host,    t.container_id, t.ended_ms,  std::move(restart)};
}

// What the coordinator knows that the cluster cannot tell a later AM attempt (docs/am-restart.md
// §3): the AM journals it (coordinator/am_journal.h) and a new attempt recovers from it. Of each
// task only the journaled fields are set: id, attempt, state, container_id, host, port, exit_code,
// signal, end_reason, restart, in_completion, preempted and past_attempts (without ended_ms);
// the others are their defaults. Times are not in it: they are this process's monotonic clock.
struct JobJournal {
  JobPhase phase = JobPhase::kRunning;
  FinalStatus final_status = FinalStatus::kUndecided;
  std::string final_message;
  int session = 0;
  std::string session_note;
  int stage = 0;
  int64_t spec_generation = 0;
  std::vector<TaskRecord> tasks;
  std::map<std::string, int> restarts_used;  // roles that used some
  std::set<std::string> published;           // "role:index" (TaskPublished)
};

// ---- Events ----
struct Start {};
struct ContainerAllocated {
  std::string container_id;
  std::string role;
  std::string host;
};
struct TaskLaunchFailed {
  TaskId task;
  int attempt = 0;
  std::string message;
};
struct TaskRegistered {
  TaskId task;
  int attempt = 0;
  std::string host;
  int port = 0;
};
struct Heartbeat {
  TaskId task;
  int attempt = 0;
};
// Who saw a task end: its executor (ReportResult: how the user process ended) or the engine (the
// container is gone; the executor reported nothing first).
enum class ExitSource { kExecutor, kContainer };
// The task's process ended. The first report for an attempt wins.
struct TaskExited {
  TaskId task;
  int attempt = 0;
  // kExecutor: the user process's exit code (0 when a signal ended it). kContainer: the
  // container's exit status (128 + N for the executor's signal N; the engine's own codes).
  int exit_code = 0;
  std::string diagnostics;
  int signal = 0;        // kExecutor: the signal that ended the user process, 0 when it exited
  bool stopped = false;  // kExecutor: the executor itself stopped the user process
  ExitSource source = ExitSource::kExecutor;
  // kContainer: why the container ended, as its engine says (engine/engine.h, ContainerEnd), and
  // the engine's words for a reason other than kExited. The core decides on the reason only.
  ContainerExitReason reason = ContainerExitReason::kExited;
  std::string reason_words{};
};
// The task's executor saw it make no progress for its role's stall timeout (`stalled`, with its
// note), or progress again after that.
struct TaskStalled {
  TaskId task;
  int attempt = 0;
  bool stalled = false;
  std::string note;
};
// A task's user process serves what the tasks awaiting it need (RoleSpec::awaits): their spec
// is released now.
struct TaskPublished {
  TaskId task;
  int attempt = 0;
};
// The cluster will take the task's container back (YARN's preemption notice): the task is stopped
// at once, so that its user process can save its state in the stop's grace (SIGTERM first), and
// then replaced like a preempted container, never counted as a failure.
struct PreemptionNotice {
  TaskId task;
  int attempt = 0;
};
// A later AM attempt recovers the job (docs/am-restart.md §5), instead of Start: the tasks, the
// session, the stage, the budgets and any decision as `journal` has them. A live task whose
// container the cluster still reports (`live_containers`: YARN's containers from previous
// attempts) awaits its executor's rejoin for JobSpec::am_reconnect_window_ms and is LOST if none
// comes; any other live task is LOST at once. Either LOST goes to its restart policy. The NEW
// tasks of the current stage are asked for again, and a restart pending when the AM died runs now
// (its backoff's start is not journaled). A decided job is only stopped and finished.
struct Recovered {
  JobJournal journal;
  std::set<std::string> live_containers;
};
// The executor of a task awaiting its rejoin registers again from its container: the task is
// adopted as it was (RUNNING; its heartbeat clock starts now). Only for the task's current
// attempt, from the container and address the journal has (RejoinRefusal says why not).
struct TaskRejoined {
  TaskId task;
  int attempt = 0;
  std::string container_id;
  std::string host;
  int port = 0;
};
struct Tick {};
struct KillRequested {
  std::string reason;  // e.g. "killed by user (tony kill)"
};
using Event = std::variant<Start, ContainerAllocated, TaskLaunchFailed, TaskRegistered, Heartbeat,
                           TaskStalled, TaskExited, TaskPublished, PreemptionNotice, Tick,
                           KillRequested, Recovered, TaskRejoined>;

// ---- Commands ----
struct LaunchTask {
  TaskId task;
  int attempt = 0;
  std::string container_id;
};
struct StopTask {
  TaskId task;
  int attempt = 0;
  std::string container_id;
  std::string reason;
};
struct ReleaseContainer {
  std::string container_id;  // allocated but not needed
};
// The cluster spec became available to some tasks: answer their waiting GetClusterSpec calls
// (SpecFor says which).
struct SpecPublished {};
struct FinishJob {
  FinalStatus status = FinalStatus::kUndecided;
  std::string message;
};
// engine::ContainerRequest: ask the engine for a role's containers.
using Command = std::variant<engine::ContainerRequest, LaunchTask, StopTask, ReleaseContainer,
                             SpecPublished, FinishJob>;

class JobStateMachine {
 public:
  explicit JobStateMachine(JobSpec spec);

  std::vector<Command> Handle(const Event& event, int64_t now_ms);

  // The spec a task may start with: in GANG mode once every task has registered, in FCFS mode
  // once the task itself has registered; nullopt before. Only for the task's current attempt.
  std::optional<runtime::Cluster> SpecFor(const TaskId& task, int attempt) const;

  const JobSpec& spec() const { return spec_; }
  const std::vector<TaskRecord>& tasks() const { return tasks_; }
  const TaskRecord* FindTask(const TaskId& id) const;
  JobPhase phase() const { return phase_; }
  // The stage whose containers have been asked for (0 until the training stage starts), and the
  // job's last stage (0 for a job without stages).
  int stage() const { return stage_; }
  int last_stage() const { return last_stage_; }
  FinalStatus final_status() const { return final_status_; }
  // The session (tony.am.retry-count): 0, then 1 after the first session retry, ...; and what
  // started the current one ("" in the first).
  int session() const { return session_; }
  const std::string& session_note() const { return session_note_; }
  const std::string& final_message() const { return final_message_; }
  // Increases on every change a client could see (task state, phase); for long-polling status.
  int64_t version() const { return version_; }
  // Grows each time a stage's cluster spec changes: its first publication, and every new address
  // after (a task restarted in task scope registering anew; in FCFS mode each registration).
  // Executors compare it with the one they hold to learn a peer's new address.
  int64_t spec_generation() const { return spec_generation_; }
  // The earliest time a Tick could change anything (a timeout), or nullopt: lets the shell sleep.
  // After heartbeats it may be earlier than the true deadline (never later); a Tick then finds
  // nothing to do and the next call answers the true one.
  std::optional<int64_t> NextDeadlineMs() const;
  // The restarts a role has used of its budget (RoleSpec::max_restarts).
  int RestartsUsed(const std::string& role) const;
  // True while a task or gang restart is pending: the job waits for it.
  bool RestartPending() const { return pending_task_restarts_ > 0 || gang_restart_at_ms_ >= 0; }
  // False while the task's role awaits a task that has not published yet (RoleSpec::awaits).
  bool AwaitedPublished(const TaskRecord& t) const;
  // What the AM journals now (JobJournal); O(tasks).
  JobJournal Journal() const;
  // Why TaskRejoined `e` would not adopt its task (one line: the shell's FAILED_PRECONDITION), or
  // "" when it would: the task awaits a rejoin, of that attempt, from that container and address.
  std::string RejoinRefusal(const TaskRejoined& e) const;

 private:
  // Event handlers; each appends the commands it decides to `out`.
  void OnStart(int64_t now_ms, std::vector<Command>& out);
  void OnContainerAllocated(const ContainerAllocated& e, int64_t now_ms, std::vector<Command>& out);
  void OnTaskLaunchFailed(const TaskLaunchFailed& e, int64_t now_ms, std::vector<Command>& out);
  void OnTaskRegistered(const TaskRegistered& e, int64_t now_ms, std::vector<Command>& out);
  void OnHeartbeat(const Heartbeat& e, int64_t now_ms);
  void OnTaskStalled(const TaskStalled& e, std::vector<Command>& out);
  void OnTaskExited(const TaskExited& e, int64_t now_ms, std::vector<Command>& out);
  void OnKillRequested(const KillRequested& e, int64_t now_ms, std::vector<Command>& out);
  void OnTaskPublished(const TaskPublished& e, std::vector<Command>& out);
  void OnPreemptionNotice(const PreemptionNotice& e, std::vector<Command>& out);

  // Recovery by a later AM attempt (job_state_machine_recovery.cc).
  void OnRecovered(const Recovered& e, int64_t now_ms, std::vector<Command>& out);
  void OnTaskRejoined(const TaskRejoined& e, int64_t now_ms);
  // Sets `t` as the journal's `j` has it, with the counters its state moves; true when it was live
  // and its container is gone (the caller ends it LOST once every task is restored).
  bool RestoreTask(TaskRecord& t, const TaskRecord& j, const std::set<std::string>& live,
                   int64_t now_ms);
  // After every task is restored: the cluster specs of the stages that had them, the decision,
  // the restarts that were pending, the lost tasks' ends, the NEW tasks' containers.
  void RestoreGangSpecs();
  void RecoverDecided(const JobJournal& j, int64_t now_ms, std::vector<Command>& out);
  void RecoverRunning(const std::vector<TaskRecord*>& lost, int64_t now_ms,
                      std::vector<Command>& out);
  // Why the cluster took the task's container back (a preemption, its node lost, its disks
  // failed), or "" when it did not: such an end is replaced and not counted.
  static std::string TakenBack(const TaskRecord& t);
  // Ends the task as `report` says and applies the rules.
  void EndFromReport(TaskRecord& t, const TaskExited& report, int64_t now_ms,
                     std::vector<Command>& out);
  // Asks for the containers of every role of `stage`.
  void RequestStage(int stage, int64_t now_ms, std::vector<Command>& out);
  // Starts the next stage once every tracked task of the current one has succeeded.
  void MaybeAdvanceStage(int64_t now_ms, std::vector<Command>& out);

  // Timeouts (job_state_machine_timeouts.cc).
  struct Expired;  // a deadline that has passed
  void CheckTimeouts(int64_t now_ms, std::vector<Command>& out);
  // The deadlines that have passed by `now_ms`, in the order they fell due.
  std::vector<Expired> ExpiredBy(int64_t now_ms) const;
  // Applies one passed deadline: fails the job or the task, or fires a group's timeout.
  void Expire(const Expired& e, int64_t now_ms, std::vector<Command>& out);
  void FailTimedOutTask(TaskRecord& t, int64_t now_ms, std::vector<Command>& out);
  void CheckStopGrace(int64_t now_ms, std::vector<Command>& out);
  // Held foreign-stop reports whose container status did not come in time.
  void ResolveHeldExits(int64_t now_ms, std::vector<Command>& out);

  // Restarts (job_state_machine_restart.cc).
  // Schedules a restart of the task that just ended when its role's policy and budget allow;
  // false when the rules must decide instead (`failure` then says why no restart came).
  bool MaybeScheduleRestart(TaskRecord& t, std::string& failure, int64_t now_ms,
                            std::vector<Command>& out);
  // Restarts that fell due: tasks whose backoff passed; the gang once all its tasks ended.
  void RunDueRestarts(int64_t now_ms, std::vector<Command>& out);
  void RestartGang(int64_t now_ms, std::vector<Command>& out);
  // Keeps the ended attempt, undoes what its end counted, and makes the task NEW again with the
  // next attempt number.
  void ResetForNewAttempt(TaskRecord& t);
  // When the pending gang restart can run: every task of the stage ended (or its stop grace
  // passed) and the backoff passed; nullopt when none is pending.
  std::optional<int64_t> GangRestartDueMs() const;
  // When group dependency `i` fires, or nullopt: its group has not ended, its role has no task
  // left running, it fired already, or the last stage has not started.
  std::optional<int64_t> GroupDeadlineMs(size_t i) const;
  void FireGroupTimeout(size_t i, int64_t now_ms, std::vector<Command>& out);
  std::optional<int64_t> TaskDeadlineMs(const TaskRecord& t) const;
  // When the stage's gang must have every container (JobSpec::gang_timeout_ms), or nullopt: off,
  // or every container of the stage is there.
  std::optional<int64_t> GangDeadlineMs() const;
  // "1 of 2 worker containers of 4096 MB, 1 vcores allocated", per role of the stage missing
  // some; empty when none is missing.
  std::string MissingContainers() const;
  int64_t HeartbeatExpiryMs() const;
  void LowerCheckAfter(int64_t deadline_ms);
  void RecomputeCheckAfter();

  // Outcome rules (job_state_machine_outcome.cc).
  struct ExitOutcome {
    TaskState state;
    std::optional<int> exit_code;
    int signal = 0;
    std::string reason;
  };
  // What a task's end means (the rules at the top of this file).
  static ExitOutcome ClassifyExit(const TaskRecord& t, const TaskExited& e);
  // A later report about a task that already ended may only add what the first could not know
  // (YARN's memory kill behind a SIGTERM the executor got); the state never changes.
  void RefineEnd(TaskRecord& t, const TaskExited& e);
  static std::string StopReason(const TaskRecord& t);
  void EndTask(TaskRecord& t, TaskState state, std::optional<int> exit_code, int signal,
               std::string end_reason, std::string diagnostics, int64_t now_ms);
  // The state a task's stop ends it in: NOT_STARTED before its user process could run.
  static TaskState StoppedState(const TaskRecord& t);
  // Applies the outcome rules to a task that just ended; `failure` is the job's message should
  // this failure decide it.
  void AfterTaskEnded(TaskRecord& t, std::string failure, int64_t now_ms,
                      std::vector<Command>& out);
  bool FailureEndsJob(const TaskRecord& t) const;
  void MaybeCompleteJob(int64_t now_ms, std::vector<Command>& out);
  void Decide(FinalStatus status, std::string message, int64_t now_ms, std::vector<Command>& out);
  // Every task ended after the decision: FinishJob, or a session retry when one is due.
  void MaybeFinish(int64_t now_ms, std::vector<Command>& out);
  // tony.am.retry-count (TonY's session retry): a FAILED job with a retry left starts again from
  // its first stage with every task in a new attempt, instead of finishing.
  bool SessionRetryDue() const;
  // "session retry <session> of <n> (tony.am.retry-count[, from <source>])".
  std::string SessionRetryName(int session) const;
  void StartNextSession(int64_t now_ms, std::vector<Command>& out);
  std::string FailedTaskList() const;

  // The task for an event about (task, attempt): nullptr when unknown or not the current attempt.
  TaskRecord* CurrentAttempt(const TaskId& id, int attempt);
  TaskRecord* MutableTask(const TaskId& id);
  const RoleSpec* Role(const std::string& name) const;
  // "task worker:1" or "untracked task ps:0", the start of every message about a task.
  static std::string Describe(const TaskRecord& t);
  bool InCompletionSet(const TaskRecord& t) const;
  void Touch() { ++version_; }

  JobSpec spec_;
  std::vector<TaskRecord> tasks_;
  std::map<TaskId, size_t> index_;  // into tasks_
  JobPhase phase_ = JobPhase::kRunning;
  FinalStatus final_status_ = FinalStatus::kUndecided;
  std::string final_message_;
  int64_t version_ = 0;
  int64_t spec_generation_ = 0;
  int session_ = 0;
  std::string session_note_;
  int64_t start_ms_ = -1;
  int64_t stop_started_ms_ = -1;
  int stage_ = 0;
  int last_stage_ = 0;
  int64_t stage_start_ms_ = -1;
  // Per stage: its tasks, those registered, its tracked tasks not yet SUCCEEDED, and its cluster
  // spec once GANG publishes it.
  std::vector<int> stage_tasks_;
  std::vector<int> stage_registered_;
  std::vector<int> stage_pending_;
  std::vector<std::optional<runtime::Cluster>> gang_specs_;
  std::set<std::string> published_;  // "role:index" of the tasks that published (TaskPublished)
  std::string chief_role_;  // spec_.chief_role, or derived when a hand-built spec left it empty
  int chief_index_ = 0;

  // Counters kept by EndTask/OnTaskRegistered so no event costs O(tasks).
  int completion_total_ = 0;  // tracked tasks, or every task when none is tracked
  int completion_ended_ = 0;
  int completion_failed_ = 0;
  int live_count_ = 0;             // tasks not terminal
  std::string first_failure_;      // of a task in the completion set, for "all failed"
  std::vector<bool> group_fired_;  // per JobSpec::group_dependencies entry
  std::string released_;           // roles an ignored group timeout released, for the message

  // Restarts: each role's used budget; the executor reports held for their container's status
  // (with when they stop waiting); tasks whose lone restart is pending; the pending gang restart
  // of the current stage (at_ms < 0: none) with when its stop began and what caused it.
  struct HeldExit {
    TaskExited report;
    int64_t until_ms = 0;
  };
  std::map<std::string, int> restarts_used_;
  std::map<TaskId, HeldExit> held_exits_;
  int pending_task_restarts_ = 0;
  int64_t gang_restart_at_ms_ = -1;
  int64_t gang_stop_started_ms_ = -1;
  std::string gang_restart_note_;
  // Containers YARN gave for the gang's NEW tasks while its restart was pending, released: the
  // restart asks for them again.
  std::map<std::string, int> gang_reasks_;

  // A lower bound on the earliest deadline: events before it skip the O(tasks) timeout scan.
  // Heartbeats only move deadlines later, so they leave it valid.
  int64_t check_after_ms_ = std::numeric_limits<int64_t>::max();
};

}  // namespace tony::core
