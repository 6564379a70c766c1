// JobStateMachine: construction, event dispatch, the per-event handlers and the queries.
// Outcome rules live in job_state_machine_outcome.cc, timeouts in job_state_machine_timeouts.cc.
#include "coordinator/core/job_state_machine.h"

#include <algorithm>
#include <utility>

namespace tony::core {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

bool HasRole(const JobSpec& spec, const std::string& name) {
  for (const RoleSpec& role : spec.roles) {
    if (role.name == name) return true;
  }
  return false;
}

}  // namespace

const char* FinalStatusName(FinalStatus s) {
  switch (s) {
    case FinalStatus::kUndecided:
      return "UNDECIDED";
    case FinalStatus::kSucceeded:
      return "SUCCEEDED";
    case FinalStatus::kFailed:
      return "FAILED";
    case FinalStatus::kKilled:
      return "KILLED";
  }
  return "UNKNOWN";
}

JobStateMachine::JobStateMachine(JobSpec spec) : spec_(std::move(spec)) {
  chief_role_ = spec_.chief_role;
  chief_index_ = spec_.chief_index;
  // BuildJobSpec always fills chief_role; a spec built by hand may not (docs/tony-compat.md §1.5).
  if (chief_role_.empty()) {
    if (HasRole(spec_, "chief")) {
      chief_role_ = "chief";
    } else if (HasRole(spec_, "worker")) {
      chief_role_ = "worker";
    }
    chief_index_ = 0;
  }
}

std::vector<Command> JobStateMachine::Handle(const Event& event, int64_t now_ms) {
  std::vector<Command> out;
  if (phase_ == JobPhase::kFinished) return out;
  // Deadlines that passed before this event count first: the shell merely ticked late.
  if (start_ms_ >= 0 && now_ms >= check_after_ms_) {
    CheckTimeouts(now_ms, out);
    if (phase_ == JobPhase::kFinished) return out;
  }
  std::visit(Overloaded{
                 [&](const Start&) { OnStart(now_ms, out); },
                 [&](const ContainerAllocated& e) { OnContainerAllocated(e, now_ms, out); },
                 [&](const TaskLaunchFailed& e) { OnTaskLaunchFailed(e, now_ms, out); },
                 [&](const TaskRegistered& e) { OnTaskRegistered(e, now_ms, out); },
                 [&](const Heartbeat& e) { OnHeartbeat(e, now_ms); },
                 [&](const TaskStalled& e) { OnTaskStalled(e, out); },
                 [&](const TaskExited& e) { OnTaskExited(e, now_ms, out); },
                 [&](const Tick&) {},
                 [&](const KillRequested& e) { OnKillRequested(e, now_ms, out); },
                 [&](const TaskPublished& e) { OnTaskPublished(e, out); },
                 [&](const PreemptionNotice& e) { OnPreemptionNotice(e, out); },
                 [&](const Recovered& e) { OnRecovered(e, now_ms, out); },
                 [&](const TaskRejoined& e) { OnTaskRejoined(e, now_ms); },
             },
             event);
  MaybeFinish(now_ms, out);
  return out;
}

void JobStateMachine::OnStart(int64_t now_ms, std::vector<Command>& out) {
  if (start_ms_ >= 0) return;
  start_ms_ = now_ms;
  for (const RoleSpec& role : spec_.roles) last_stage_ = std::max(last_stage_, role.stage);
  stage_tasks_.assign(last_stage_ + 1, 0);
  stage_registered_.assign(last_stage_ + 1, 0);
  stage_pending_.assign(last_stage_ + 1, 0);
  gang_specs_.assign(last_stage_ + 1, std::nullopt);
  for (const RoleSpec& role : spec_.roles) {
    for (int i = 0; i < role.instances; ++i) {
      TaskRecord t;
      t.id = TaskId{role.name, i};
      t.stage = role.stage;
      t.untracked = role.untracked;
      t.sidecar = role.sidecar;
      t.tracked = !role.untracked && !role.sidecar;
      t.is_chief = role.name == chief_role_ && i == chief_index_;
      ++stage_tasks_[t.stage];
      if (t.tracked) ++stage_pending_[t.stage];
      index_[t.id] = tasks_.size();
      tasks_.push_back(std::move(t));
    }
  }
  RequestStage(0, now_ms, out);
  live_count_ = static_cast<int>(tasks_.size());
  // The preprocess task am:0 decides the job only in a single-node job; otherwise the job waits
  // for it as a stage (it must succeed for the next stage to start), not as a task.
  const bool single_node = spec_.SingleNode();
  auto decides = [single_node, this](const TaskRecord& t) {
    const RoleSpec* role = Role(t.id.role);
    return single_node || role == nullptr || !role->preprocess;
  };
  for (const TaskRecord& t : tasks_) completion_total_ += t.tracked && decides(t) ? 1 : 0;
  // With no tracked task at all, the job ends when every task has ended.
  const bool wait_for_all = completion_total_ == 0;
  if (wait_for_all) {
    completion_total_ = 0;
    for (const TaskRecord& t : tasks_) completion_total_ += decides(t) ? 1 : 0;
  }
  for (TaskRecord& t : tasks_) t.in_completion = decides(t) && (t.tracked || wait_for_all);
  group_fired_.assign(spec_.group_dependencies.size(), false);
  Touch();
  RecomputeCheckAfter();
  if (tasks_.empty()) Decide(FinalStatus::kSucceeded, "the job has no tasks", now_ms, out);
}

void JobStateMachine::RequestStage(int stage, int64_t now_ms, std::vector<Command>& out) {
  stage_ = stage;
  stage_start_ms_ = now_ms;
  for (const RoleSpec& role : spec_.roles) {
    if (role.stage != stage || role.instances <= 0) continue;
    out.push_back(engine::ContainerRequest{role.name, role.instances, role.memory_mb, role.vcores,
                                           role.gpus});
  }
}

void JobStateMachine::MaybeAdvanceStage(int64_t now_ms, std::vector<Command>& out) {
  if (phase_ != JobPhase::kRunning || stage_ >= last_stage_ || stage_pending_[stage_] > 0) return;
  RequestStage(stage_ + 1, now_ms, out);
  Touch();
  RecomputeCheckAfter();  // the new stage's allocation timeout
}

void JobStateMachine::OnContainerAllocated(const ContainerAllocated& e, int64_t now_ms,
                                           std::vector<Command>& out) {
  if (start_ms_ >= 0 && phase_ == JobPhase::kRunning) {
    // A role's tasks are contiguous in tasks_, in index order.
    for (auto it = index_.lower_bound(TaskId{e.role, 0});
         it != index_.end() && it->first.role == e.role; ++it) {
      TaskRecord& t = tasks_[it->second];
      if (t.state != TaskState::kNew || t.stage > stage_) continue;  // not asked for yet
      if (gang_restart_at_ms_ >= 0 && t.stage == stage_) {
        // Its gang is being restarted: the restart asks for this container again.
        ++gang_reasks_[e.role];
        break;
      }
      t.state = TaskState::kAllocated;
      t.container_id = e.container_id;
      t.host = e.host;
      t.allocated_ms = now_ms;
      Touch();
      if (spec_.registration_timeout_ms > 0) {
        LowerCheckAfter(now_ms + spec_.registration_timeout_ms);
      }
      out.push_back(LaunchTask{t.id, t.attempt, t.container_id});
      return;
    }
  }
  out.push_back(ReleaseContainer{e.container_id});
}

void JobStateMachine::OnTaskLaunchFailed(const TaskLaunchFailed& e, int64_t now_ms,
                                         std::vector<Command>& out) {
  TaskRecord* t = CurrentAttempt(e.task, e.attempt);
  if (t == nullptr || t->state == TaskState::kNew || IsTerminal(t->state)) return;
  if (t->stop_requested) {
    EndTask(*t, TaskState::kNotStarted, std::nullopt, 0, t->stop_reason, e.message, now_ms);
    return;
  }
  std::string failure = Describe(*t) + " failed to launch";
  if (t->registered_ms < 0) failure += " before it registered";
  if (!e.message.empty()) failure += "\n" + e.message;
  EndTask(*t, TaskState::kFailed, std::nullopt, 0,
          "failed to launch: " + e.message.substr(0, e.message.find('\n')), e.message, now_ms);
  AfterTaskEnded(*t, failure, now_ms, out);
}

void JobStateMachine::OnTaskRegistered(const TaskRegistered& e, int64_t now_ms,
                                       std::vector<Command>& out) {
  if (phase_ != JobPhase::kRunning) return;  // it is being stopped; no spec for it
  TaskRecord* t = CurrentAttempt(e.task, e.attempt);
  if (t == nullptr || t->state != TaskState::kAllocated) return;
  t->host = e.host;
  t->port = e.port;
  t->registered_ms = now_ms;
  t->last_heartbeat_ms = now_ms;
  t->state = TaskState::kRegistered;
  ++stage_registered_[t->stage];
  Touch();
  if (HeartbeatExpiryMs() > 0) LowerCheckAfter(now_ms + HeartbeatExpiryMs());
  if (spec_.mode == DistributedMode::kFcfs) {
    ++spec_generation_;  // the stage's spec now holds this task's address
    if (!AwaitedPublished(*t)) return;
    t->state = TaskState::kRunning;
    out.push_back(SpecPublished{});
    return;
  }
  // GANG barrier: every task of the stage has registered (a task that ended since still counts).
  if (stage_registered_[t->stage] < stage_tasks_[t->stage]) return;
  runtime::Cluster cluster;
  for (TaskRecord& task : tasks_) {
    if (task.stage != t->stage) continue;
    cluster[task.id.role].push_back(task.host + ":" + std::to_string(task.port));
    if (task.state == TaskState::kRegistered && AwaitedPublished(task)) {
      task.state = TaskState::kRunning;
    }
  }
  if (gang_specs_[t->stage] != cluster) ++spec_generation_;
  gang_specs_[t->stage] = std::move(cluster);
  RecomputeCheckAfter();  // the stage's allocation timeout no longer applies
  out.push_back(SpecPublished{});
}

void JobStateMachine::OnHeartbeat(const Heartbeat& e, int64_t now_ms) {
  TaskRecord* t = CurrentAttempt(e.task, e.attempt);
  // A recovered task awaiting its rejoin is not back before it rejoins (TaskRejoined).
  if (t == nullptr || t->registered_ms < 0 || IsTerminal(t->state) || t->rejoin_by_ms >= 0) return;
  t->last_heartbeat_ms = now_ms;  // not a visible change: version_ stays
}

void JobStateMachine::OnTaskStalled(const TaskStalled& e, std::vector<Command>& out) {
  TaskRecord* t = CurrentAttempt(e.task, e.attempt);
  if (phase_ != JobPhase::kRunning || t == nullptr || !IsRunning(t->state) || t->stop_requested) {
    return;
  }
  if (!e.stalled) {
    if (t->state != TaskState::kStalled) return;
    t->state = TaskState::kRunning;
    t->stall.clear();
    Touch();
    return;
  }
  if (t->state == TaskState::kStalled && t->stall == e.note) return;
  t->state = TaskState::kStalled;
  t->stall = e.note;
  Touch();
  const RoleSpec* role = Role(t->id.role);
  if (role == nullptr || role->on_stall == OnStall::kWarn) return;
  t->stopped_for_stall = true;
  t->stop_requested = true;
  t->stop_reason = "stalled: " + e.note.substr(0, e.note.find('\n'));
  out.push_back(StopTask{t->id, t->attempt, t->container_id, t->stop_reason});
}

void JobStateMachine::OnTaskExited(const TaskExited& e, int64_t now_ms, std::vector<Command>& out) {
  TaskRecord* t = CurrentAttempt(e.task, e.attempt);
  // Nothing runs for a kNew task; a terminal one already had its first report.
  if (t == nullptr || t->state == TaskState::kNew) return;
  if (e.source == ExitSource::kContainer) {
    t->container_reason = e.reason;
    t->container_words = e.reason_words;
  }
  if (IsTerminal(t->state)) {
    RefineEnd(*t, e);
    return;
  }
  auto held = held_exits_.find(t->id);
  if (e.source == ExitSource::kExecutor && e.stopped && !t->stop_requested &&
      StateRank(t->state) >= StateRank(TaskState::kRunning)) {
    // A stop tony did not send: only the container's status can tell a preemption.
    if (held == held_exits_.end()) {
      held_exits_[t->id] = HeldExit{e, now_ms + kForeignStopWaitMs};
      LowerCheckAfter(now_ms + kForeignStopWaitMs);
    }
    return;
  }
  if (held == held_exits_.end()) {
    EndFromReport(*t, e, now_ms, out);
    return;
  }
  // The container's status came for a held report: it decides when it says why (YARN took the
  // container back, or killed it for memory), with the executor's diagnostics; otherwise the
  // executor's report says more.
  TaskExited report = held->second.report;
  held_exits_.erase(held);
  if (TakenBackByCluster(e.reason) || e.reason == ContainerExitReason::kMemoryExceeded) {
    std::string diagnostics = std::move(report.diagnostics);
    report = e;
    report.diagnostics = std::move(diagnostics);
  }
  EndFromReport(*t, report, now_ms, out);
}

void JobStateMachine::EndFromReport(TaskRecord& t, const TaskExited& e, int64_t now_ms,
                                    std::vector<Command>& out) {
  ExitOutcome o = ClassifyExit(t, e);
  EndTask(t, o.state, o.exit_code, o.signal, o.reason, e.diagnostics, now_ms);
  std::string failure;
  if (IsFailure(o.state)) {
    failure = Describe(t) + (o.state == TaskState::kLost ? " lost" : " failed");
    if (t.registered_ms < 0) failure += " before it registered";
    std::string exit = DescribeExit(o.exit_code, o.signal);
    if (!exit.empty()) failure += ": " + exit;
    if (!o.reason.empty()) failure += (exit.empty() ? ": " : "; ") + o.reason;
    // A stall's stacks come first: they say where it hung, the stderr tail only what it said.
    if (size_t stacks = t.stall.find('\n'); t.stopped_for_stall && stacks != std::string::npos) {
      failure += t.stall.substr(stacks);
    }
    if (!e.diagnostics.empty()) failure += "\n" + e.diagnostics;
  }
  AfterTaskEnded(t, failure, now_ms, out);
}

void JobStateMachine::OnKillRequested(const KillRequested& e, int64_t now_ms,
                                      std::vector<Command>& out) {
  Decide(FinalStatus::kKilled, e.reason, now_ms, out);
}

void JobStateMachine::OnPreemptionNotice(const PreemptionNotice& e, std::vector<Command>& out) {
  TaskRecord* t = CurrentAttempt(e.task, e.attempt);
  // A task already being stopped (the job ends, its gang restarts) keeps that stop's reason.
  if (phase_ != JobPhase::kRunning || t == nullptr || IsTerminal(t->state) || t->stop_requested) {
    return;
  }
  t->preempted = true;
  t->stop_requested = true;
  t->stop_reason =
      "preempted by YARN: the ResourceManager takes its container back; stopped so that it can "
      "save its state (SIGTERM, then SIGKILL after the stop grace)";
  Touch();
  out.push_back(StopTask{t->id, t->attempt, t->container_id, t->stop_reason});
}

bool JobStateMachine::AwaitedPublished(const TaskRecord& t) const {
  const RoleSpec* role = Role(t.id.role);
  return role == nullptr || role->awaits.empty() || published_.count(role->awaits) > 0;
}

void JobStateMachine::OnTaskPublished(const TaskPublished& e, std::vector<Command>& out) {
  TaskRecord* t = CurrentAttempt(e.task, e.attempt);
  if (phase_ != JobPhase::kRunning || t == nullptr || IsTerminal(t->state)) return;
  if (!published_.insert(e.task.ToString()).second) return;
  bool released = false;
  for (TaskRecord& task : tasks_) {
    if (task.state != TaskState::kRegistered || !AwaitedPublished(task)) continue;
    // GANG: only once the task's stage has its spec; FCFS: at once.
    if (spec_.mode == DistributedMode::kGang && !gang_specs_[task.stage]) continue;
    task.state = TaskState::kRunning;
    released = true;
  }
  Touch();
  if (released) out.push_back(SpecPublished{});
}

std::optional<runtime::Cluster> JobStateMachine::SpecFor(const TaskId& task, int attempt) const {
  const TaskRecord* t = FindTask(task);
  if (t == nullptr || t->attempt != attempt || t->registered_ms < 0) return std::nullopt;
  if (!AwaitedPublished(*t)) return std::nullopt;
  if (spec_.mode == DistributedMode::kGang) return gang_specs_[t->stage];
  // FCFS: the tasks of its stage registered so far, in index order; unregistered ones are left
  // out.
  runtime::Cluster cluster;
  for (const TaskRecord& other : tasks_) {
    if (other.registered_ms < 0 || other.stage != t->stage) continue;
    cluster[other.id.role].push_back(other.host + ":" + std::to_string(other.port));
  }
  return cluster;
}

const TaskRecord* JobStateMachine::FindTask(const TaskId& id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &tasks_[it->second];
}

TaskRecord* JobStateMachine::MutableTask(const TaskId& id) {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &tasks_[it->second];
}

TaskRecord* JobStateMachine::CurrentAttempt(const TaskId& id, int attempt) {
  TaskRecord* t = MutableTask(id);
  return t != nullptr && t->attempt == attempt ? t : nullptr;
}

const RoleSpec* JobStateMachine::Role(const std::string& name) const {
  for (const RoleSpec& role : spec_.roles) {
    if (role.name == name) return &role;
  }
  return nullptr;
}

std::string JobStateMachine::Describe(const TaskRecord& t) {
  return (t.untracked ? "untracked task " : "task ") + t.id.ToString();
}

bool JobStateMachine::InCompletionSet(const TaskRecord& t) const { return t.in_completion; }

}  // namespace tony::core
