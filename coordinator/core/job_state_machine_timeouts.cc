// JobStateMachine: timeouts (docs/tony-compat.md §1.6) and the deadline the shell sleeps until.
//
// Deadlines that passed since the last event are applied in the order they fell due, so the
// job's message names the first cause even when the shell ticks late.
#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "common/strings.h"
#include "config/key_names.h"
#include "coordinator/core/job_state_machine.h"

namespace tony::core {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

}  // namespace

// A deadline that has passed. Job-wide ones carry no task.
struct JobStateMachine::Expired {
  enum Kind { kApplication, kGang, kAllocation, kTask, kGroup };
  int64_t at_ms;
  Kind kind;
  size_t task = 0;
  bool operator<(const Expired& o) const {
    return std::tie(at_ms, kind, task) < std::tie(o.at_ms, o.kind, o.task);
  }
};

void JobStateMachine::CheckTimeouts(int64_t now_ms, std::vector<Command>& out) {
  if (phase_ == JobPhase::kStopping) {
    CheckStopGrace(now_ms, out);
    RecomputeCheckAfter();
    return;
  }
  for (const Expired& e : ExpiredBy(now_ms)) {
    if (phase_ != JobPhase::kRunning) break;  // decided; stopping has its own deadline
    Expire(e, now_ms, out);
  }
  ResolveHeldExits(now_ms, out);
  RunDueRestarts(now_ms, out);
  RecomputeCheckAfter();
}

std::vector<JobStateMachine::Expired> JobStateMachine::ExpiredBy(int64_t now_ms) const {
  std::vector<Expired> expired;
  if (spec_.application_timeout_ms > 0 && now_ms >= start_ms_ + spec_.application_timeout_ms) {
    expired.push_back({start_ms_ + spec_.application_timeout_ms, Expired::kApplication});
  }
  if (spec_.mode == DistributedMode::kGang && !gang_specs_[stage_] &&
      spec_.allocation_timeout_ms > 0 && now_ms >= stage_start_ms_ + spec_.allocation_timeout_ms) {
    expired.push_back({stage_start_ms_ + spec_.allocation_timeout_ms, Expired::kAllocation});
  }
  if (std::optional<int64_t> gang = GangDeadlineMs(); gang && now_ms >= *gang) {
    expired.push_back({*gang, Expired::kGang});
  }
  for (size_t i = 0; i < tasks_.size(); ++i) {
    std::optional<int64_t> deadline = TaskDeadlineMs(tasks_[i]);
    if (deadline && now_ms >= *deadline) expired.push_back({*deadline, Expired::kTask, i});
  }
  for (size_t i = 0; i < spec_.group_dependencies.size(); ++i) {
    std::optional<int64_t> deadline = GroupDeadlineMs(i);
    if (deadline && now_ms >= *deadline) expired.push_back({*deadline, Expired::kGroup, i});
  }
  std::sort(expired.begin(), expired.end());
  return expired;
}

void JobStateMachine::Expire(const Expired& e, int64_t now_ms, std::vector<Command>& out) {
  switch (e.kind) {
    case Expired::kApplication:
      Decide(FinalStatus::kFailed,
             "application timed out after " + std::to_string(spec_.application_timeout_ms) +
                 " ms (" + spec_.KeyAndSource(keys::kApplicationTimeout) + ")",
             now_ms, out);
      break;
    case Expired::kGang:
      Decide(FinalStatus::kFailed,
             "the gang" +
                 (last_stage_ == 0 ? "" : " of the " + spec_.StageName(stage_) + " stage") +
                 " was not allocated within " + std::to_string(spec_.gang_timeout_ms) + " ms (" +
                 spec_.KeyAndSource(keys::kApplicationGangTimeoutMs) + "): " + MissingContainers(),
             now_ms, out);
      break;
    case Expired::kAllocation: {
      std::string missing = MissingContainers();
      Decide(FinalStatus::kFailed,
             "only " + std::to_string(stage_registered_[stage_]) + " of " +
                 std::to_string(stage_tasks_[stage_]) + " tasks" +
                 (last_stage_ == 0 ? "" : " of the " + spec_.StageName(stage_) + " stage") +
                 " registered within " + std::to_string(spec_.allocation_timeout_ms) + " ms (" +
                 spec_.KeyAndSource(keys::kContainerAllocationTimeout) + ")" +
                 (missing.empty() ? "" : "; " + missing),
             now_ms, out);
      break;
    }
    case Expired::kTask:
      FailTimedOutTask(tasks_[e.task], now_ms, out);
      break;
    case Expired::kGroup:
      FireGroupTimeout(e.task, now_ms, out);
      break;
  }
}

void JobStateMachine::ResolveHeldExits(int64_t now_ms, std::vector<Command>& out) {
  for (auto it = held_exits_.begin(); it != held_exits_.end();) {
    if (phase_ != JobPhase::kRunning || now_ms < it->second.until_ms) {
      ++it;
      continue;
    }
    TaskExited report = it->second.report;
    it = held_exits_.erase(it);
    TaskRecord* t = CurrentAttempt(report.task, report.attempt);
    if (t != nullptr && !IsTerminal(t->state)) EndFromReport(*t, report, now_ms, out);
  }
}

// A task that never registered, or stopped heartbeating, is LOST: no exit is known, and it counts
// as a failure (TonY #606). It may still run somewhere, so it is stopped too.
void JobStateMachine::FailTimedOutTask(TaskRecord& t, int64_t now_ms, std::vector<Command>& out) {
  std::string why;
  if (t.rejoin_by_ms >= 0) {
    why = "did not come back within " + std::to_string(spec_.am_reconnect_window_ms) +
          " ms of the AM's restart (the executors' reconnect window)";
    t.rejoin_by_ms = -1;
  } else if (t.registered_ms < 0) {
    why = "did not register within " + std::to_string(spec_.registration_timeout_ms) + " ms (" +
          spec_.KeyAndSource(keys::kContainerRegistrationTimeout) + ")";
  } else {
    why = "no heartbeat for " + std::to_string(HeartbeatExpiryMs()) + " ms";
  }
  out.push_back(StopTask{t.id, t.attempt, t.container_id, why});
  EndTask(t, TaskState::kLost, std::nullopt, 0, why, why, now_ms);
  AfterTaskEnded(t, Describe(t) + (t.registered_ms < 0 ? " " : " lost: ") + why, now_ms, out);
}

std::optional<int64_t> JobStateMachine::GangDeadlineMs() const {
  if (spec_.gang_timeout_ms <= 0 || phase_ != JobPhase::kRunning || stage_start_ms_ < 0) {
    return std::nullopt;
  }
  for (const TaskRecord& t : tasks_) {
    if (t.stage == stage_ && t.state == TaskState::kNew && t.restart_at_ms < 0) {
      return stage_start_ms_ + spec_.gang_timeout_ms;
    }
  }
  return std::nullopt;  // every container of the stage was allocated
}

std::string JobStateMachine::MissingContainers() const {
  std::vector<std::string> parts;
  for (const RoleSpec& role : spec_.roles) {
    if (role.stage != stage_) continue;
    int allocated = 0;
    int total = 0;
    for (const TaskRecord& t : tasks_) {
      if (t.id.role != role.name) continue;
      ++total;
      if (t.state != TaskState::kNew) ++allocated;
    }
    if (allocated == total) continue;
    parts.push_back(std::to_string(allocated) + " of " + std::to_string(total) + " " + role.name +
                    " containers of " + std::to_string(role.memory_mb) + " MB, " +
                    std::to_string(role.vcores) + " vcores" +
                    (role.gpus > 0 ? ", " + std::to_string(role.gpus) + " GPUs" : "") +
                    " allocated");
  }
  return Join(parts, ", ");
}

std::optional<int64_t> JobStateMachine::GroupDeadlineMs(size_t i) const {
  const GroupDependency& d = spec_.group_dependencies[i];
  // TonY evaluates them only once every task has been asked for.
  if (group_fired_[i] || stage_ < last_stage_ || d.members.empty()) return std::nullopt;
  if (RestartPending()) return std::nullopt;  // a restarted member runs again
  int64_t group_end_ms = -1;
  bool dependent_running = false;
  for (const TaskRecord& t : tasks_) {
    if (t.id.role == d.role && !IsTerminal(t.state)) dependent_running = true;
    if (std::find(d.members.begin(), d.members.end(), t.id.role) == d.members.end()) continue;
    if (!IsTerminal(t.state)) return std::nullopt;  // the group has not ended
    group_end_ms = std::max(group_end_ms, t.ended_ms);
  }
  if (!dependent_running || group_end_ms < 0) return std::nullopt;
  return group_end_ms + d.timeout_ms;
}

void JobStateMachine::FireGroupTimeout(size_t i, int64_t now_ms, std::vector<Command>& out) {
  const GroupDependency& d = spec_.group_dependencies[i];
  group_fired_[i] = true;
  const std::string what = "role " + d.role + " still running " +
                           std::to_string(d.timeout_ms / 1000) + " s after every task of group " +
                           d.group + " (" + Join(d.members, ", ") + ") ended";
  if (!d.ignored) {
    Decide(FinalStatus::kFailed, what + " (" + spec_.KeyAndSource(d.key) + ")", now_ms, out);
    return;
  }
  // TonY makes the role untracked: the job no longer waits for it, and stops it at the end.
  for (TaskRecord& t : tasks_) {
    if (t.id.role != d.role || IsTerminal(t.state)) continue;
    if (t.in_completion) --completion_total_;
    t.in_completion = false;
    t.tracked = false;
    t.untracked = true;
  }
  released_ +=
      "; " + what + ", no longer waited for (" + spec_.KeyAndSource(d.key + ".ignored") + ")";
  Touch();
  MaybeCompleteJob(now_ms, out);
}

void JobStateMachine::CheckStopGrace(int64_t now_ms, std::vector<Command>& out) {
  if (now_ms < stop_started_ms_ + kStopGraceMs) return;
  for (TaskRecord& t : tasks_) {
    if (IsTerminal(t.state)) continue;
    // The engine's shutdown kills what is left of it.
    EndTask(t, StoppedState(t), std::nullopt, 0, StopReason(t),
            "did not end within " + std::to_string(kStopGraceMs) + " ms of the stop; killed",
            now_ms);
  }
  MaybeFinish(now_ms, out);
}

std::optional<int64_t> JobStateMachine::TaskDeadlineMs(const TaskRecord& t) const {
  if (IsTerminal(t.state)) return std::nullopt;
  if (t.rejoin_by_ms >= 0) return t.rejoin_by_ms;  // recovered: its executor's window
  if (t.state == TaskState::kAllocated && spec_.registration_timeout_ms > 0) {
    return t.allocated_ms + spec_.registration_timeout_ms;
  }
  if (t.registered_ms >= 0 && HeartbeatExpiryMs() > 0) {
    return t.last_heartbeat_ms + HeartbeatExpiryMs();
  }
  return std::nullopt;
}

int64_t JobStateMachine::HeartbeatExpiryMs() const {
  return spec_.heartbeat_interval_ms * std::max(3, spec_.max_missed_heartbeats);
}

void JobStateMachine::LowerCheckAfter(int64_t deadline_ms) {
  check_after_ms_ = std::min(check_after_ms_, deadline_ms);
}

void JobStateMachine::RecomputeCheckAfter() {
  check_after_ms_ = kNever;
  if (start_ms_ < 0 || phase_ == JobPhase::kFinished) return;
  if (phase_ == JobPhase::kStopping) {
    check_after_ms_ = stop_started_ms_ + kStopGraceMs;
    return;
  }
  if (spec_.application_timeout_ms > 0) LowerCheckAfter(start_ms_ + spec_.application_timeout_ms);
  if (spec_.mode == DistributedMode::kGang && !gang_specs_[stage_] &&
      spec_.allocation_timeout_ms > 0) {
    LowerCheckAfter(stage_start_ms_ + spec_.allocation_timeout_ms);
  }
  for (const TaskRecord& t : tasks_) {
    if (std::optional<int64_t> deadline = TaskDeadlineMs(t)) LowerCheckAfter(*deadline);
  }
  for (size_t i = 0; i < spec_.group_dependencies.size(); ++i) {
    if (std::optional<int64_t> deadline = GroupDeadlineMs(i)) LowerCheckAfter(*deadline);
  }
  if (std::optional<int64_t> gang = GangDeadlineMs()) LowerCheckAfter(*gang);
  for (const auto& [task, held] : held_exits_) LowerCheckAfter(held.until_ms);
  if (pending_task_restarts_ > 0) {
    for (const TaskRecord& t : tasks_) {
      if (t.restart_at_ms >= 0) LowerCheckAfter(t.restart_at_ms);
    }
  }
  if (std::optional<int64_t> due = GangRestartDueMs()) LowerCheckAfter(*due);
}

std::optional<int64_t> JobStateMachine::NextDeadlineMs() const {
  if (check_after_ms_ == kNever) return std::nullopt;
  return check_after_ms_;
}

}  // namespace tony::core
