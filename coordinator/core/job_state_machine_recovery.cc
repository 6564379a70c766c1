// JobStateMachine: what the AM journals (docs/am-restart.md §3) and the recovery of a later AM
// attempt from it (§5).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/core/job_state_machine.h"

namespace tony::core {
namespace {

// The journaled fields of `t` (JobJournal says which).
TaskRecord JournaledTask(const TaskRecord& t) {
  TaskRecord j;
  j.id = t.id;
  j.attempt = t.attempt;
  j.state = t.state;
  j.container_id = t.container_id;
  j.host = t.host;
  j.port = t.port;
  j.exit_code = t.exit_code;
  j.signal = t.signal;
  j.end_reason = t.end_reason;
  j.restart = t.restart;
  j.in_completion = t.in_completion;
  j.preempted = t.preempted;
  j.past_attempts = t.past_attempts;
  for (PastAttempt& past : j.past_attempts) past.ended_ms = -1;
  return j;
}

}  // namespace

JobJournal JobStateMachine::Journal() const {
  JobJournal j;
  j.phase = phase_;
  j.final_status = final_status_;
  j.final_message = final_message_;
  j.session = session_;
  j.session_note = session_note_;
  j.stage = stage_;
  j.spec_generation = spec_generation_;
  j.tasks.reserve(tasks_.size());
  for (const TaskRecord& t : tasks_) j.tasks.push_back(JournaledTask(t));
  for (const auto& [role, used] : restarts_used_) {
    if (used > 0) j.restarts_used[role] = used;
  }
  j.published = published_;
  return j;
}

void JobStateMachine::OnRecovered(const Recovered& e, int64_t now_ms, std::vector<Command>& out) {
  if (start_ms_ >= 0) return;
  const JobJournal& j = e.journal;
  std::vector<Command> first_stage;  // what a fresh start would ask for: the journal says instead
  OnStart(now_ms, first_stage);
  if (phase_ != JobPhase::kRunning) return;  // a job without tasks: decided already
  session_ = j.session;
  session_note_ = j.session_note;
  stage_ = std::clamp(j.stage, 0, last_stage_);
  restarts_used_ = j.restarts_used;
  published_ = j.published;
  std::vector<TaskRecord*> lost;
  for (const TaskRecord& journaled : j.tasks) {
    TaskRecord* t = MutableTask(journaled.id);
    if (t == nullptr) continue;  // not in the spec: not this job's
    if (RestoreTask(*t, journaled, e.live_containers, now_ms)) lost.push_back(t);
  }
  RestoreGangSpecs();
  spec_generation_ = std::max(spec_generation_, j.spec_generation);
  Touch();
  if (j.final_status != FinalStatus::kUndecided) {
    RecoverDecided(j, now_ms, out);
  } else {
    RecoverRunning(lost, now_ms, out);
  }
  RecomputeCheckAfter();
}

bool JobStateMachine::RestoreTask(TaskRecord& t, const TaskRecord& j,
                                  const std::set<std::string>& live, int64_t now_ms) {
  t.attempt = j.attempt;
  t.past_attempts = j.past_attempts;
  t.preempted = j.preempted;
  t.container_id = j.container_id;
  t.host = j.host;
  t.port = j.port;
  if (!j.in_completion && t.in_completion) {  // an ignored group timeout released it
    --completion_total_;
    t.in_completion = false;
    t.tracked = false;
    t.untracked = true;
  }
  if (j.port > 0) {  // it registered: its address is in its stage's spec
    t.registered_ms = now_ms;
    t.last_heartbeat_ms = now_ms;
    ++stage_registered_[t.stage];
  }
  if (j.state == TaskState::kNew) {
    t.restart = j.restart;
    return false;
  }
  if (t.state == TaskState::kNew) t.allocated_ms = now_ms;
  if (IsTerminal(j.state)) {
    EndTask(t, j.state, j.exit_code, j.signal, j.end_reason, "", now_ms);
    t.restart = j.restart;  // kept only while its restart is pending (EndTask)
    return false;
  }
  t.state = j.state;
  t.restart = j.restart;
  if (live.count(t.container_id) == 0) return true;
  t.rejoin_by_ms = now_ms + std::max<int64_t>(0, spec_.am_reconnect_window_ms);
  return false;
}

void JobStateMachine::RestoreGangSpecs() {
  if (spec_.mode != DistributedMode::kGang) return;
  for (int stage = 0; stage <= stage_; ++stage) {
    if (stage_registered_[stage] < stage_tasks_[stage]) continue;
    runtime::Cluster cluster;
    for (const TaskRecord& t : tasks_) {
      if (t.stage == stage) cluster[t.id.role].push_back(t.host + ":" + std::to_string(t.port));
    }
    gang_specs_[stage] = std::move(cluster);
  }
}

void JobStateMachine::RecoverDecided(const JobJournal& j, int64_t now_ms,
                                     std::vector<Command>& out) {
  final_status_ = j.final_status;
  final_message_ = j.final_message;
  phase_ = JobPhase::kStopping;
  stop_started_ms_ = now_ms;
  const std::string reason = "the job was decided before the AM restarted: " +
                             final_message_.substr(0, final_message_.find('\n'));
  for (TaskRecord& t : tasks_) {
    if (IsTerminal(t.state)) continue;
    t.stop_reason = reason;
    if (t.rejoin_by_ms < 0) {  // nothing of it runs any more (or ever ran)
      EndTask(t, t.container_id.empty() ? TaskState::kNotStarted : TaskState::kLost, std::nullopt,
              0, reason, "", now_ms);
      continue;
    }
    t.rejoin_by_ms = -1;
    t.stop_requested = true;
    out.push_back(StopTask{t.id, t.attempt, t.container_id, reason});
  }
  if (j.phase == JobPhase::kFinished && live_count_ == 0) {  // it only had to unregister
    phase_ = JobPhase::kFinished;
    out.push_back(FinishJob{final_status_, final_message_});
  }
}

void JobStateMachine::RecoverRunning(const std::vector<TaskRecord*>& lost, int64_t now_ms,
                                     std::vector<Command>& out) {
  for (const TaskRecord& t : tasks_) {
    if (first_failure_.empty() && IsFailure(t.state) && t.in_completion) {
      first_failure_ = Describe(t) + " failed: " + t.end_reason;
    }
  }
  // A restart pending when the AM died runs now, in its role's scope.
  for (TaskRecord& t : tasks_) {
    if (!IsTerminal(t.state) || t.restart.empty() || t.stage != stage_) continue;
    const RoleSpec* role = Role(t.id.role);
    if (role != nullptr && role->restart_scope == RestartScope::kGang) {
      gang_restart_at_ms_ = now_ms;
      gang_stop_started_ms_ = now_ms;
      gang_restart_note_ = t.restart;
    } else {
      t.restart_at_ms = now_ms;
      ++pending_task_restarts_;
    }
  }
  std::map<std::string, int> asks;  // the NEW tasks of the stage: their asks died with the AM
  for (const TaskRecord& t : tasks_) {
    if (t.stage == stage_ && t.state == TaskState::kNew) ++asks[t.id.role];
  }
  for (const RoleSpec& role : spec_.roles) {
    if (auto it = asks.find(role.name); it != asks.end()) {
      out.push_back(
          engine::ContainerRequest{role.name, it->second, role.memory_mb, role.vcores, role.gpus});
    }
  }
  const std::string why = "its container ended while no AM ran (the AM restarted)";
  for (TaskRecord* t : lost) {
    if (phase_ != JobPhase::kRunning || IsTerminal(t->state)) continue;
    EndTask(*t, TaskState::kLost, std::nullopt, 0, why, why, now_ms);
    AfterTaskEnded(*t, Describe(*t) + " lost: " + why, now_ms, out);
  }
  if (gang_restart_at_ms_ >= 0) {  // its running peers stop for it, as when it was scheduled
    for (TaskRecord& t : tasks_) {
      if (t.stage != stage_ || IsTerminal(t.state) || t.container_id.empty()) continue;
      t.rejoin_by_ms = -1;
      t.stop_requested = true;
      t.stop_reason = "restarting the gang: " + gang_restart_note_;
      out.push_back(StopTask{t.id, t.attempt, t.container_id, t.stop_reason});
    }
  }
  RunDueRestarts(now_ms, out);
  MaybeCompleteJob(now_ms, out);
}

std::string JobStateMachine::RejoinRefusal(const TaskRejoined& e) const {
  const TaskRecord* t = FindTask(e.task);
  if (t == nullptr) return "no task " + e.task.ToString();
  const std::string which = "attempt " + std::to_string(e.attempt) + " of " + e.task.ToString();
  if (t->attempt != e.attempt) return which + " is stale";
  if (t->rejoin_by_ms < 0) {
    return which + " does not await a rejoin" +
           (IsTerminal(t->state) ? std::string(": it ended ") + TaskStateName(t->state) : "");
  }
  if (t->container_id != e.container_id) {
    return which + " ran in container " + t->container_id + ", not in " +
           (e.container_id.empty() ? "an unnamed one" : e.container_id);
  }
  if (t->registered_ms < 0) return which + " never registered";
  if (t->host != e.host || t->port != e.port) {
    return which + " registered at " + t->host + ":" + std::to_string(t->port);
  }
  return "";
}

void JobStateMachine::OnTaskRejoined(const TaskRejoined& e, int64_t now_ms) {
  if (!RejoinRefusal(e).empty()) return;
  TaskRecord& t = *MutableTask(e.task);
  t.rejoin_by_ms = -1;
  t.last_heartbeat_ms = now_ms;
  if (!IsRunning(t.state)) t.state = TaskState::kRunning;  // its user process runs
  Touch();
  RecomputeCheckAfter();
}

}  // namespace tony::core
