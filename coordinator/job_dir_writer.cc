// Coordinator: what it keeps in the job directory while the job runs: status.json at every
// visible change, and one events.jsonl line per task state change, only ever forward
// (common/task_state.h). Runs on the coordinator's loop, like the rest of the shell.
#include <nlohmann/json.hpp>

#include "common/log.h"
#include "coordinator/coordinator.h"

namespace tony {

std::string Coordinator::StateKey(const core::TaskId& id, int attempt) {
  return id.ToString() + "#" + std::to_string(attempt);
}

void Coordinator::RecordTaskState(const core::TaskRecord& t, core::TaskState state) {
  nlohmann::json e = {{"time_ms", WallMs()},
                      {"task", t.id.ToString()},
                      {"attempt", t.attempt},
                      {"state", core::TaskStateName(state)}};
  if (state == core::TaskState::kRegistered) {
    e["address"] = t.host + ":" + std::to_string(t.port);
  } else if (core::IsTerminal(state)) {
    if (t.exit_code) e["exit_code"] = *t.exit_code;
    if (t.signal > 0) e["signal"] = t.signal;
    if (std::string exit = core::DescribeExit(t.exit_code, t.signal); !exit.empty()) {
      e["exit"] = exit;
    }
    if (!t.end_reason.empty()) e["reason"] = t.end_reason;
    e["history_status"] = core::TonyHistoryStatus(state);
  }
  (void)history::AppendEvent(paths_, e.dump());
  last_states_[StateKey(t.id, t.attempt)] = state;
}

void Coordinator::RecordPastAttempt(const core::TaskId& id, const core::PastAttempt& past) {
  nlohmann::json e = {{"time_ms", WallMs()},
                      {"task", id.ToString()},
                      {"attempt", past.attempt},
                      {"state", core::TaskStateName(past.state)}};
  if (past.exit_code) e["exit_code"] = *past.exit_code;
  if (past.signal > 0) e["signal"] = past.signal;
  if (std::string exit = core::DescribeExit(past.exit_code, past.signal); !exit.empty()) {
    e["exit"] = exit;
  }
  if (!past.end_reason.empty()) e["reason"] = past.end_reason;
  e["history_status"] = core::TonyHistoryStatus(past.state);
  (void)history::AppendEvent(paths_, e.dump());
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
  Status s = history::WriteJobStatus(paths_, Snapshot());
  if (!s.ok()) TONY_LOG(kWarning) << "writing status: " << s.ToString();
}

}  // namespace tony
