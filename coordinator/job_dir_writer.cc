// Coordinator: what it keeps in the job directory while the job runs: status.json at every
// visible change, and one events.jsonl line per task state change, only ever forward
// (common/task_state.h). Runs on the coordinator's loop, like the rest of the shell.
#include <nlohmann/json.hpp>

#include "common/log.h"
#include "coordinator/coordinator.h"

namespace tony {

namespace {

// An event line's start, and what an ended attempt adds to it: its exit, reason, TonY's name.
nlohmann::json StateEvent(int64_t time_ms, const core::TaskId& id, int attempt,
                          core::TaskState state) {
  return {{"time_ms", time_ms},
          {"task", id.ToString()},
          {"attempt", attempt},
          {"state", core::TaskStateName(state)}};
}

void AddEnd(nlohmann::json& e, core::TaskState state, std::optional<int> exit_code, int signal,
            const std::string& end_reason) {
  if (exit_code) e["exit_code"] = *exit_code;
  if (signal > 0) e["signal"] = signal;
  if (std::string exit = core::DescribeExit(exit_code, signal); !exit.empty()) e["exit"] = exit;
  if (!end_reason.empty()) e["reason"] = end_reason;
  e["history_status"] = core::TonyHistoryStatus(state);
}

}  // namespace

std::string Coordinator::StateKey(const core::TaskId& id, int attempt) {
  return id.ToString() + "#" + std::to_string(attempt);
}

void Coordinator::RecordTaskState(const core::TaskRecord& t, core::TaskState state) {
  nlohmann::json e = StateEvent(WallMs(), t.id, t.attempt, state);
  if (state == core::TaskState::kRegistered) {
    e["address"] = t.host + ":" + std::to_string(t.port);
  } else if (state == core::TaskState::kStalled) {
    e["reason"] = t.stall.substr(0, t.stall.find('\n'));
  } else if (core::IsTerminal(state)) {
    AddEnd(e, state, t.exit_code, t.signal, t.end_reason);
  }
  NoteRecordError(history::AppendEvent(paths_, e.dump()));
  last_states_[StateKey(t.id, t.attempt)] = state;
}

void Coordinator::RecordPastAttempt(const core::TaskId& id, const core::PastAttempt& past) {
  nlohmann::json e = StateEvent(WallMs(), id, past.attempt, past.state);
  AddEnd(e, past.state, past.exit_code, past.signal, past.end_reason);
  NoteRecordError(history::AppendEvent(paths_, e.dump()));
  last_states_[StateKey(id, past.attempt)] = past.state;
}

void Coordinator::PersistChanges() {
  if (machine_.version() == persisted_version_) return;
  persisted_version_ = machine_.version();
  for (const auto& t : machine_.tasks()) {
    // An attempt that ended and restarted within one event (a gang whose last task stopped)
    // gets its end written first.
    for (const core::PastAttempt& past : t.past_attempts) {
      auto it = last_states_.find(StateKey(t.id, past.attempt));
      if (it != last_states_.end() && core::IsTerminal(it->second)) continue;
      RecordPastAttempt(t.id, past);
    }
    auto it = last_states_.find(StateKey(t.id, t.attempt));
    int last_rank = it == last_states_.end() ? -1 : core::StateRank(it->second);
    if (it != last_states_.end() && it->second == t.state) continue;
    if (core::StateRank(t.state) < last_rank) continue;  // never happens: the core moves forward
    // Only forward. A gang's last registration moves its task on to RUNNING in the same event:
    // REGISTERED, which it passed, is written first.
    if (t.registered_ms >= 0 && last_rank < core::StateRank(core::TaskState::kRegistered) &&
        core::StateRank(t.state) > core::StateRank(core::TaskState::kRegistered)) {
      RecordTaskState(t, core::TaskState::kRegistered);
    }
    RecordTaskState(t, t.state);
  }
  NoteRecordError(history::WriteJobStatus(paths_, Snapshot()));
}

void Coordinator::NoteRecordError(const Status& s) {
  if (s.ok()) return;
  if (record_error_.empty()) {
    record_error_ = s.message();
    TONY_LOG(kError) << "the job's record in " << paths_.root
                     << " is incomplete (the job goes on): " << s.message();
  } else {
    TONY_LOG(kWarning) << "writing the job's record: " << s.message();
  }
}

std::string Coordinator::WithRecordError(const std::string& message) const {
  if (record_error_.empty()) return message;
  return message + " (the job's record in " + paths_.root + " is incomplete: " + record_error_ +
         ")";
}

}  // namespace tony
