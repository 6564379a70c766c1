// JobStateMachine: how a task's end decides the job (docs/tony-compat.md §1.5), and stopping.
#include <utility>

#include "coordinator/core/job_state_machine.h"

namespace tony::core {
namespace {

constexpr int kMaxListedTasks = 10;

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

void JobStateMachine::EndTask(TaskRecord& t, TaskState state, std::optional<int> exit_code,
                              std::string diagnostics, int64_t now_ms) {
  t.state = state;
  t.exit_code = exit_code;
  t.diagnostics = std::move(diagnostics);
  t.ended_ms = now_ms;
  --live_count_;
  if (InCompletionSet(t)) {
    ++completion_ended_;
    if (state == TaskState::kFailed) ++completion_failed_;
  }
  Touch();
}

void JobStateMachine::AfterTaskEnded(const TaskRecord& t, const std::string& failure,
                                     int64_t now_ms, std::vector<Command>& out) {
  if (phase_ != JobPhase::kRunning) return;
  if (t.state == TaskState::kFailed) {
    if (InCompletionSet(t) && first_failure_.empty()) first_failure_ = failure;
    if (FailureEndsJob(t)) {
      Decide(FinalStatus::kFailed, failure, now_ms, out);
      return;
    }
  }
  // An explicit chief decides alone: ps and workers of ParameterServerStrategy never exit.
  if (t.state == TaskState::kSucceeded && t.is_chief && chief_role_ == "chief") {
    std::string message = "chief task " + t.id.ToString() + " succeeded";
    if (completion_failed_ > 0) message += "; " + FailedTaskList();
    Decide(FinalStatus::kSucceeded, message, now_ms, out);
    return;
  }
  MaybeCompleteJob(now_ms, out);
}

bool JobStateMachine::FailureEndsJob(const TaskRecord& t) const {
  if (t.is_chief || t.untracked) return true;  // untracked: workers would hang without ps (#405)
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
  if (completion_failed_ == 0) {
    Decide(FinalStatus::kSucceeded,
           "all " + std::to_string(completion_total_) + " tracked task(s) succeeded", now_ms, out);
  } else if (completion_failed_ == completion_total_) {
    Decide(FinalStatus::kFailed,
           "all " + std::to_string(completion_total_) +
               " tracked task(s) failed; the first: " + first_failure_,
           now_ms, out);
  } else if (spec_.fail_on_worker_failure) {
    Decide(FinalStatus::kFailed, first_failure_, now_ms, out);
  } else {
    Decide(FinalStatus::kSucceeded, FailedTaskList(), now_ms, out);  // TonY #428
  }
}

std::string JobStateMachine::FailedTaskList() const {
  std::string list = "completed with " + std::to_string(completion_failed_) + " failed task(s):";
  int listed = 0;
  for (const TaskRecord& t : tasks_) {
    if (t.state != TaskState::kFailed || !InCompletionSet(t)) continue;
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
  const std::string reason =
      std::string("job ") + FinalStatusName(status) + ": " + FirstLine(final_message_);
  for (TaskRecord& t : tasks_) {
    if (IsTerminal(t.state)) continue;
    if (t.container_id.empty()) {
      EndTask(t, TaskState::kFinished, std::nullopt, "never started: the job ended first", now_ms);
      continue;
    }
    t.stop_requested = true;
    out.push_back(StopTask{t.id, t.attempt, t.container_id, reason});
  }
  RecomputeCheckAfter();
}

void JobStateMachine::MaybeFinish(std::vector<Command>& out) {
  if (phase_ != JobPhase::kStopping || live_count_ > 0) return;
  phase_ = JobPhase::kFinished;
  check_after_ms_ = std::numeric_limits<int64_t>::max();
  Touch();
  out.push_back(FinishJob{final_status_, final_message_});
}

}  // namespace tony::core
