// JobStateMachine: restart policies (RoleSpec::restart_*, README "Restarts").
//
// A restart never rewrites an ended attempt: the attempt is copied into past_attempts, the
// counters its end moved are moved back, and the task becomes NEW with the next attempt number,
// so every event about the old attempt is fenced off by CurrentAttempt.
#include <algorithm>
#include <string>
#include <vector>

#include "common/strings.h"
#include "config/key_names.h"
#include "coordinator/core/job_state_machine.h"

namespace tony::core {
namespace {

// Whether the exit-code policy restarts this end: a signal tony did not send, a listed exit
// code, or an end with no exit known (LOST: the executor or its node vanished).
bool RetryableExit(const TaskRecord& t, const RoleSpec& role) {
  if (t.stopped_for_stall) return false;  // the signal was tony's (on-stall restart decides)
  if (t.state == TaskState::kLost) return true;
  if (t.signal != 0) return true;
  if (!t.exit_code) return false;  // failed to launch, or killed by YARN for memory
  return std::find(role.restart_exit_codes.begin(), role.restart_exit_codes.end(), *t.exit_code) !=
         role.restart_exit_codes.end();
}

int64_t Backoff(const RoleSpec& role, int restart_number) {
  int64_t wait = role.restart_backoff_ms;
  for (int i = 1; i < restart_number && wait < role.restart_backoff_max_ms; ++i) wait *= 2;
  return std::min(wait, role.restart_backoff_max_ms);
}

}  // namespace

int JobStateMachine::RestartsUsed(const std::string& role) const {
  auto it = restarts_used_.find(role);
  return it == restarts_used_.end() ? 0 : it->second;
}

std::string JobStateMachine::TakenBack(const TaskRecord& t) {
  std::string loss = TakenBackByCluster(t.container_reason) ? t.container_words : "";
  if (loss.empty() && t.preempted) loss = "preempted by YARN (the ResourceManager's notice)";
  return loss;
}

bool JobStateMachine::MaybeScheduleRestart(TaskRecord& t, std::string& failure, int64_t now_ms,
                                           std::vector<Command>& out) {
  const RoleSpec* role = Role(t.id.role);
  if (role == nullptr || role->preprocess) return false;
  const std::string taken_back = TakenBack(t);
  const std::string restarts_key = keys::ForRole(keys::kRoleMaxRestarts, role->name);
  if (taken_back.empty()) {
    const bool retryable =
        role->restart_policy == RestartPolicy::kOnFailure ||
        (t.stopped_for_stall && role->on_stall == OnStall::kRestart) ||
        (role->restart_policy == RestartPolicy::kExitCode && RetryableExit(t, *role));
    if (!retryable) return false;
    int& used = restarts_used_[role->name];
    if (used >= role->max_restarts) {
      size_t end = std::min(failure.find('\n'), failure.size());
      failure.insert(end, "; no restart left (" + restarts_key + " = " +
                              std::to_string(role->max_restarts) + ", " + std::to_string(used) +
                              " used)");
      return false;
    }
    ++used;
  }
  const int used = RestartsUsed(role->name);
  const int64_t wait = taken_back.empty() ? Backoff(*role, used) : role->restart_backoff_ms;
  const std::string cause =
      taken_back.empty() ? FirstLine(failure) : Describe(t) + ": " + taken_back;
  const std::string budget = taken_back.empty() ? "restart " + std::to_string(used) + " of " +
                                                      std::to_string(role->max_restarts) + " (" +
                                                      restarts_key + ")"
                                                : "replaced, not counted as a failure";
  const std::string note = budget + " in " + std::to_string(wait) + " ms, " +
                           RestartScopeName(role->restart_scope) + " scope: " + cause;
  Touch();
  if (role->restart_scope == RestartScope::kTask) {
    t.restart_at_ms = now_ms + wait;
    t.restart = note;
    ++pending_task_restarts_;
    LowerCheckAfter(t.restart_at_ms);
    return true;
  }
  gang_restart_at_ms_ = now_ms + wait;
  gang_stop_started_ms_ = now_ms;
  gang_restart_note_ = note;
  const std::string reason = "restarting the gang: " + cause;
  for (TaskRecord& task : tasks_) {
    if (task.stage != stage_) continue;
    task.restart = note;
    if (IsTerminal(task.state) || task.container_id.empty()) continue;
    task.stop_requested = true;
    task.stop_reason = reason;
    out.push_back(StopTask{task.id, task.attempt, task.container_id, reason});
  }
  RunDueRestarts(now_ms, out);  // nothing left running: only the backoff to wait for
  if (gang_restart_at_ms_ >= 0) {
    LowerCheckAfter(*GangRestartDueMs());
  }
  return true;
}

std::optional<int64_t> JobStateMachine::GangRestartDueMs() const {
  if (gang_restart_at_ms_ < 0) return std::nullopt;
  for (const TaskRecord& t : tasks_) {
    // A task still running holds it back until its stop grace, after which it is given up.
    if (t.stage == stage_ && !IsTerminal(t.state) && !t.container_id.empty()) {
      return std::max(gang_restart_at_ms_, gang_stop_started_ms_ + kStopGraceMs);
    }
  }
  return gang_restart_at_ms_;
}

void JobStateMachine::RunDueRestarts(int64_t now_ms, std::vector<Command>& out) {
  if (phase_ != JobPhase::kRunning) return;
  if (std::optional<int64_t> due = GangRestartDueMs(); due && now_ms >= *due) {
    RestartGang(now_ms, out);
  }
  // A stopped task that ended may have brought the gang's restart closer.
  if (std::optional<int64_t> due = GangRestartDueMs()) LowerCheckAfter(*due);
  if (pending_task_restarts_ == 0) return;
  for (TaskRecord& t : tasks_) {
    if (t.restart_at_ms < 0 || now_ms < t.restart_at_ms) continue;
    const RoleSpec* role = Role(t.id.role);
    --pending_task_restarts_;
    ResetForNewAttempt(t);
    out.push_back(
        engine::ContainerRequest{role->name, 1, role->memory_mb, role->vcores, role->gpus});
  }
  RecomputeCheckAfter();
}

void JobStateMachine::RestartGang(int64_t now_ms, std::vector<Command>& out) {
  std::map<std::string, int> asks;  // per role: the containers to ask for again
  for (TaskRecord& t : tasks_) {
    if (t.stage != stage_) continue;
    if (!IsTerminal(t.state)) {
      if (t.container_id.empty()) continue;  // NEW: its container is still asked for
      // Past its stop grace: given up; the engine kills what is left of it.
      EndTask(t, StoppedState(t), std::nullopt, 0, StopReason(t),
              "did not end within " + std::to_string(kStopGraceMs) + " ms of the stop; killed",
              now_ms);
    }
    if (t.restart_at_ms >= 0) {  // a lone restart it had pending is this one now
      t.restart_at_ms = -1;
      --pending_task_restarts_;
    }
    held_exits_.erase(t.id);
    ResetForNewAttempt(t);
    ++asks[t.id.role];
  }
  for (const auto& [role, count] : gang_reasks_) asks[role] += count;
  gang_reasks_.clear();
  gang_restart_at_ms_ = -1;
  gang_stop_started_ms_ = -1;
  gang_specs_[stage_] = std::nullopt;
  stage_start_ms_ = now_ms;  // the allocation timeout counts from the restart
  for (const RoleSpec& role : spec_.roles) {
    auto it = asks.find(role.name);
    if (it == asks.end()) continue;
    out.push_back(
        engine::ContainerRequest{role.name, it->second, role.memory_mb, role.vcores, role.gpus});
  }
  Touch();
  RecomputeCheckAfter();
}

void JobStateMachine::ResetForNewAttempt(TaskRecord& t) {
  t.past_attempts.push_back(PastAttemptOf(t, t.restart));
  // Undo what EndTask and OnTaskRegistered counted for the ended attempt.
  ++live_count_;
  if (t.tracked && t.state == TaskState::kSucceeded) ++stage_pending_[t.stage];
  if (t.in_completion) {
    --completion_ended_;
    if (IsFailure(t.state)) --completion_failed_;
  }
  if (t.registered_ms >= 0) --stage_registered_[t.stage];
  published_.erase(t.id.ToString());  // a restarted driver serves anew
  ++t.attempt;
  t.state = TaskState::kNew;
  t.container_id.clear();
  t.host.clear();
  t.port = 0;
  t.exit_code.reset();
  t.signal = 0;
  t.end_reason.clear();
  t.diagnostics.clear();
  t.stop_requested = false;
  t.stop_reason.clear();
  t.allocated_ms = -1;
  t.registered_ms = -1;
  t.last_heartbeat_ms = -1;
  t.ended_ms = -1;
  t.container_reason = ContainerExitReason::kExited;
  t.container_words.clear();
  t.restart_at_ms = -1;
  t.stall.clear();
  t.stopped_for_stall = false;
  t.preempted = false;
  Touch();
}

}  // namespace tony::core
