// JobStateMachine: how a task's end decides the job (docs/tony-compat.md §1.5), and stopping.
#include <algorithm>
#include <csignal>
#include <utility>

#include "common/strings.h"
#include "config/key_names.h"
#include "coordinator/core/job_state_machine.h"

namespace tony::core {
namespace {

constexpr int kMaxListedTasks = 10;
constexpr size_t kMaxReasonChars = 300;  // a one-line reason in a table cell

std::string OneLine(const std::string& s) { return FirstLine(s).substr(0, kMaxReasonChars); }

// Why tony stops the tasks left when the job is decided, in the words of the decision.
std::string DecisionStopReason(FinalStatus status, const std::string& message) {
  switch (status) {
    case FinalStatus::kSucceeded:
      return "the job succeeded (" + OneLine(message) + ")";
    case FinalStatus::kFailed:
      return "the job failed: " + OneLine(message);
    default:
      return OneLine(message);  // "killed by user (...)", "killed by SIGTERM to tony submit"
  }
}

}  // namespace

TaskState JobStateMachine::StoppedState(const TaskRecord& t) {
  // Before RUNNING the executor is still waiting for the cluster spec: no user process ran.
  return StateRank(t.state) < StateRank(TaskState::kRunning) ? TaskState::kNotStarted
                                                             : TaskState::kStopped;
}

std::string JobStateMachine::StopReason(const TaskRecord& t) {
  return t.stop_reason.empty() ? "stopped by tony" : t.stop_reason;
}

JobStateMachine::ExitOutcome JobStateMachine::ClassifyExit(const TaskRecord& t,
                                                           const TaskExited& e) {
  if (e.source == ExitSource::kContainer) {
    // The executor reported nothing: it was stopped before or while it ran, or it vanished.
    // A task stopped for its stall whose executor ended without a report still FAILED for it.
    if (t.stop_requested && t.stopped_for_stall) {
      return {TaskState::kFailed, std::nullopt, 0, t.stop_reason};
    }
    if (t.stop_requested || e.reason == ContainerExitReason::kStoppedByCoordinator) {
      return {StoppedState(t), std::nullopt, 0, StopReason(t)};
    }
    // The cluster took the container back: a preemption is tony's stop in the cluster's name; a
    // lost node or failed disks leave no exit. Neither counts against a restart budget
    // (job_state_machine.h).
    if (TakenBackByCluster(e.reason)) {
      TaskState state =
          e.reason == ContainerExitReason::kPreempted ? StoppedState(t) : TaskState::kLost;
      return {state, std::nullopt, 0, e.reason_words};
    }
    if (e.reason == ContainerExitReason::kMemoryExceeded) {
      return {
          TaskState::kFailed, std::nullopt, 0,
          e.reason_words + "; " + keys::ForRole(keys::kRoleMemory, t.id.role) + " sets the limit"};
    }
    return {TaskState::kLost, std::nullopt, 0,
            "its container ended without a report" +
                (e.diagnostics.empty() ? std::string() : " (" + OneLine(e.diagnostics) + ")")};
  }
  // Before RUNNING no user process ran: an executor that says it stopped then stopped the task.
  if (e.stopped && StateRank(t.state) < StateRank(TaskState::kRunning)) {
    return {TaskState::kNotStarted, std::nullopt, 0, StopReason(t)};
  }
  // Stopped for YARN's preemption notice: however its process ended (saving its state and
  // exiting 0 is the usual answer to the SIGTERM), the work is not done; it is replaced.
  if (t.preempted) {
    std::optional<int> exited;
    if (e.signal == 0) exited = e.exit_code;
    TaskState state = StoppedState(t);
    if (state == TaskState::kNotStarted) return {state, std::nullopt, 0, StopReason(t)};
    return {state, exited, e.signal, StopReason(t)};
  }
  std::optional<int> code;
  if (e.signal == 0) code = e.exit_code;
  if (e.signal == 0 && e.exit_code == 0) return {TaskState::kSucceeded, 0, 0, ""};
  // A process that exits by itself, even after tony asked it to stop, FAILED; one tony's stop
  // ended (the executor says so, or it died of the signals a stop sends) was STOPPED.
  // One tony stopped for its stall FAILED for it, however it ended (its own exit in a SIGTERM
  // handler too).
  if (t.stopped_for_stall) return {TaskState::kFailed, code, e.signal, t.stop_reason};
  bool by_tony = t.stop_requested && (e.stopped || e.signal == SIGTERM || e.signal == SIGKILL);
  if (by_tony) {
    TaskState state = StoppedState(t);
    if (state == TaskState::kNotStarted) return {state, std::nullopt, 0, StopReason(t)};
    return {state, code, e.signal, StopReason(t)};
  }
  std::string reason;
  if (e.stopped) {
    reason = "its executor was stopped by a signal tony did not send (on YARN: its NodeManager)";
  } else if (e.signal == SIGKILL) {
    reason = "SIGKILL not sent by tony: the kernel's OOM killer sends it when memory runs out";
  }
  return {TaskState::kFailed, code, e.signal, reason};
}

void JobStateMachine::RefineEnd(TaskRecord& t, const TaskExited& e) {
  if (e.source != ExitSource::kContainer || t.state != TaskState::kFailed) return;
  if (e.reason != ContainerExitReason::kMemoryExceeded) return;
  const std::string& memory = e.reason_words;
  if (memory.empty() || t.end_reason.find(memory) != std::string::npos) return;
  t.end_reason = memory + "; " + keys::ForRole(keys::kRoleMemory, t.id.role) + " sets the limit";
  Touch();
}

void JobStateMachine::EndTask(TaskRecord& t, TaskState state, std::optional<int> exit_code,
                              int signal, std::string end_reason, std::string diagnostics,
                              int64_t now_ms) {
  t.state = state;
  t.exit_code = exit_code;
  t.signal = signal;
  t.end_reason = std::move(end_reason);
  t.diagnostics = std::move(diagnostics);
  t.ended_ms = now_ms;
  t.rejoin_by_ms = -1;
  // A new end: an earlier restart's note no longer applies, unless the end is part of the
  // pending restart of its gang.
  if (gang_restart_at_ms_ < 0 || t.stage != stage_) t.restart.clear();
  --live_count_;
  if (t.tracked && state == TaskState::kSucceeded) --stage_pending_[t.stage];
  if (InCompletionSet(t)) {
    ++completion_ended_;
    if (IsFailure(state)) ++completion_failed_;
  }
  Touch();
}

void JobStateMachine::AfterTaskEnded(TaskRecord& t, std::string failure, int64_t now_ms,
                                     std::vector<Command>& out) {
  if (phase_ != JobPhase::kRunning) return;
  // A task of a gang being restarted: its end, however it ended, is part of that restart.
  if (gang_restart_at_ms_ >= 0 && t.stage == stage_) {
    RunDueRestarts(now_ms, out);
    return;
  }
  const bool taken_back = !TakenBack(t).empty();
  if ((IsFailure(t.state) || taken_back) && MaybeScheduleRestart(t, failure, now_ms, out)) return;
  if (IsFailure(t.state)) {
    if (InCompletionSet(t) && first_failure_.empty()) first_failure_ = failure;
    if (FailureEndsJob(t)) {
      std::string message = failure;
      if (t.tracked && t.stage < last_stage_) {
        size_t end = std::min(message.find('\n'), message.size());
        message.insert(end, "; the " + spec_.StageName(t.stage + 1) + " stage does not start");
      }
      Decide(FinalStatus::kFailed, message, now_ms, out);
      return;
    }
  }
  // A task the others need to the end (the Horovod driver: RoleSpec::serves_peers) ended by
  // itself: they would wait for it until a timeout.
  if (const RoleSpec* role = Role(t.id.role); t.state == TaskState::kSucceeded &&
                                              !t.stop_requested && role != nullptr &&
                                              !role->serves_peers.empty()) {
    Decide(FinalStatus::kFailed,
           Describe(t) + " exited with exit code 0 while the job runs, but " + role->serves_peers +
               ": the job cannot go on",
           now_ms, out);
    return;
  }
  // An explicit chief decides alone: ps and workers of ParameterServerStrategy never exit.
  if (t.state == TaskState::kSucceeded && t.is_chief && chief_role_ == "chief" &&
      t.stage == last_stage_) {
    std::string message = "chief task " + t.id.ToString() + " succeeded";
    if (completion_failed_ > 0) message += "; " + FailedTaskList();
    Decide(FinalStatus::kSucceeded, message, now_ms, out);
    return;
  }
  MaybeCompleteJob(now_ms, out);
  MaybeAdvanceStage(now_ms, out);
  // The end may complete a group: its dependents' deadline.
  for (size_t i = 0; i < spec_.group_dependencies.size(); ++i) {
    if (std::optional<int64_t> deadline = GroupDeadlineMs(i)) LowerCheckAfter(*deadline);
  }
}

bool JobStateMachine::FailureEndsJob(const TaskRecord& t) const {
  if (t.is_chief || t.untracked) return true;  // untracked: workers would hang without ps (#405)
  // The next stage waits for this one's tracked tasks to succeed: it can no longer start.
  if (t.tracked && t.stage < last_stage_) return true;
  const RoleSpec* role = Role(t.id.role);
  if (role != nullptr && role->stop_on_failure) return true;
  // Before registering it never ran: a bad command or environment, and a GANG barrier that can
  // no longer complete (#635). This holds for sidecars too.
  if (t.registered_ms < 0) return true;
  if (t.sidecar) return false;  // e.g. a TensorBoard crash (#558)
  return spec_.fail_on_worker_failure;
}

void JobStateMachine::MaybeCompleteJob(int64_t now_ms, std::vector<Command>& out) {
  if (phase_ != JobPhase::kRunning || completion_ended_ < completion_total_) return;
  if (RestartPending()) return;  // the restarted tasks will end again
  // With no tracked task the job waited for every task (InCompletionSet): say so.
  const bool none_tracked = spec_.TrackedInstances() == 0 && !spec_.SingleNode();
  const std::string tasks =
      std::to_string(completion_total_) + (none_tracked ? " task(s)" : " tracked task(s)");
  const std::string why = none_tracked ? " (the job has no tracked task)" : "";
  if (completion_failed_ == 0) {
    Decide(FinalStatus::kSucceeded, "all " + tasks + " succeeded" + why + released_, now_ms, out);
  } else if (completion_failed_ == completion_total_) {
    Decide(FinalStatus::kFailed,
           "all " + tasks + " failed" + why + "; the first: " + first_failure_, now_ms, out);
  } else if (spec_.fail_on_worker_failure) {
    Decide(FinalStatus::kFailed, first_failure_, now_ms, out);
  } else {
    Decide(FinalStatus::kSucceeded, FailedTaskList() + released_, now_ms, out);  // TonY #428
  }
}

std::string JobStateMachine::FailedTaskList() const {
  std::string list = "completed with " + std::to_string(completion_failed_) + " failed task(s):";
  int listed = 0;
  for (const TaskRecord& t : tasks_) {
    if (!IsFailure(t.state) || !InCompletionSet(t)) continue;
    if (listed++ == kMaxListedTasks) {
      list += " ...";
      break;
    }
    list += " " + t.id.ToString();
  }
  return list;
}

void JobStateMachine::Decide(FinalStatus status, std::string message, int64_t now_ms,
                             std::vector<Command>& out) {
  if (final_status_ != FinalStatus::kUndecided) return;  // the first decision wins (#599)
  final_status_ = status;
  final_message_ = std::move(message);
  phase_ = JobPhase::kStopping;
  stop_started_ms_ = now_ms;
  Touch();
  std::string reason = DecisionStopReason(status, final_message_);
  if (SessionRetryDue()) {
    reason = SessionRetryName(session_ + 1) + ": " + reason;
  }
  for (TaskRecord& t : tasks_) {
    if (IsTerminal(t.state)) continue;
    t.stop_reason = reason;
    if (t.container_id.empty()) {
      EndTask(t, TaskState::kNotStarted, std::nullopt, 0, reason,
              "the job ended before the task had a container", now_ms);
      continue;
    }
    t.stop_requested = true;
    out.push_back(StopTask{t.id, t.attempt, t.container_id, reason});
  }
  RecomputeCheckAfter();
}

bool JobStateMachine::SessionRetryDue() const {
  return final_status_ == FinalStatus::kFailed && session_ < spec_.session_retries &&
         !spec_.SingleNode();
}

std::string JobStateMachine::SessionRetryName(int session) const {
  return "session retry " + std::to_string(session) + " of " +
         std::to_string(spec_.session_retries) + " (" + spec_.KeyAndSource(keys::kAmRetryCount) +
         ")";
}

void JobStateMachine::StartNextSession(int64_t now_ms, std::vector<Command>& out) {
  const int session = session_ + 1;
  std::string note = SessionRetryName(session) + ": the job failed: " + OneLine(final_message_);
  std::vector<TaskRecord> previous = std::move(tasks_);
  const int64_t version = version_;
  const int64_t generation = spec_generation_;
  const int64_t started = start_ms_;
  JobStateMachine next(spec_);
  *this = std::move(next);
  session_ = session;
  session_note_ = note;
  version_ = version;
  spec_generation_ = generation;  // a peer never takes the new session's spec for an old one
  OnStart(now_ms, out);
  start_ms_ = started;  // tony.application.timeout counts from the job's start
  for (TaskRecord& t : tasks_) {
    auto prev = std::find_if(previous.begin(), previous.end(),
                             [&t](const TaskRecord& p) { return p.id == t.id; });
    if (prev == previous.end()) continue;
    // Its attempts go on from the last one: an old session's executor is fenced like any other.
    t.past_attempts = std::move(prev->past_attempts);
    t.past_attempts.push_back(PastAttemptOf(*prev, note));
    t.attempt = prev->attempt + 1;
    t.restart = note;
  }
  Touch();
  RecomputeCheckAfter();
}

void JobStateMachine::MaybeFinish(int64_t now_ms, std::vector<Command>& out) {
  if (phase_ != JobPhase::kStopping || live_count_ > 0) return;
  if (SessionRetryDue()) {
    StartNextSession(now_ms, out);
    return;
  }
  if (session_ > 0) {  // the end says that it came in a retried session, and why
    size_t end = std::min(final_message_.find('\n'), final_message_.size());
    final_message_.insert(end, "; in " + session_note_);
  }
  phase_ = JobPhase::kFinished;
  check_after_ms_ = std::numeric_limits<int64_t>::max();
  Touch();
  out.push_back(FinishJob{final_status_, final_message_});
}

}  // namespace tony::core
