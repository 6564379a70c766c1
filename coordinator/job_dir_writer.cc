// Coordinator: what it keeps in the job directory while the job runs: status.json at every
// visible change, and one events.jsonl line per task state change, only ever forward
// (common/task_state.h). With tony.history.location set, the same changes also go to TonY's
// history (history/tony_history.h). Runs on the coordinator's loop, like the rest of the shell.
#include <cstdlib>

#include "common/log.h"
#include "common/strings.h"
#include "config/key_names.h"
#include "coordinator/am_journal.h"
#include "coordinator/coordinator.h"

namespace tony {

namespace {

// TASK_FINISHED's containerDiagnostic: how the attempt ended ("exit 3"), why, and the details the
// executor sent (its stderr's last lines), one per line.
std::string HistoryDiagnostic(std::optional<int> exit_code, int signal, const std::string& reason,
                              const std::string& details) {
  std::vector<std::string> lines;
  for (const std::string& part : {core::DescribeExit(exit_code, signal), reason, details}) {
    if (!part.empty()) lines.push_back(part);
  }
  return Join(lines, "\n");
}

}  // namespace

std::string Coordinator::StateKey(const core::TaskId& id, int attempt) {
  return id.ToString() + "#" + std::to_string(attempt);
}

void Coordinator::RecordTaskState(const core::TaskRecord& t, core::TaskState state) {
  history::TaskEvent e{t.id.ToString(), t.attempt, state};
  if (state == core::TaskState::kRegistered) {
    e.address = t.host + ":" + std::to_string(t.port);
  } else if (state == core::TaskState::kStalled) {
    e.reason = t.stall.substr(0, t.stall.find('\n'));
  } else if (core::IsTerminal(state)) {
    e.exit_code = t.exit_code;
    e.signal = t.signal;
    e.reason = t.end_reason;
  }
  NoteRecordError(history::AppendEvent(paths_, history::TaskEventLine(WallMs(), e)));
  last_states_[StateKey(t.id, t.attempt)] = state;
  HistoryTaskState(t.id, t.attempt, state, t.host, t.container_id,
                   HistoryDiagnostic(t.exit_code, t.signal, t.end_reason, t.diagnostics));
}

void Coordinator::RecordPastAttempt(const core::TaskId& id, const core::PastAttempt& past) {
  history::TaskEvent e{id.ToString(), past.attempt, past.state};
  e.exit_code = past.exit_code;
  e.signal = past.signal;
  e.reason = past.end_reason;
  NoteRecordError(history::AppendEvent(paths_, history::TaskEventLine(WallMs(), e)));
  last_states_[StateKey(id, past.attempt)] = past.state;
  HistoryTaskState(id, past.attempt, past.state, past.host, past.container_id,
                   HistoryDiagnostic(past.exit_code, past.signal, past.end_reason, ""));
}

void Coordinator::StartTonyHistory() {
  if (!options_.tony_history) return;
  history::TonyHistoryOptions o = *options_.tony_history;
  o.app_id = history::HistoryAppId(options_.job_id);
  o.user = history::HistoryUser();
  o.host = options_.advertised_host;
  // YARN's NodeManager names the AM's container in CONTAINER_ID; the local engine has none.
  if (const char* container = std::getenv("CONTAINER_ID"); container != nullptr) {
    o.container_id = container;
  }
  o.final_conf = paths_.FinalConf();
  auto writer = history::TonyHistoryWriter::Start(std::move(o), start_wall_ms_);
  if (!writer.ok()) {
    NoteHistoryError(writer.status());
    return;
  }
  tony_history_ = std::move(*writer);
  TONY_LOG(kInfo) << "TonY history: " << tony_history_->events_path();
  int num_tasks = 0;
  for (const RoleSpec& role : machine_.spec().roles) num_tasks += role.instances;
  NoteHistoryError(tony_history_->ApplicationInited(num_tasks, start_wall_ms_));
}

void Coordinator::HistoryTaskState(const core::TaskId& id, int attempt, core::TaskState state,
                                   const std::string& host, const std::string& container_id,
                                   const std::string& diagnostic) {
  if (tony_history_ == nullptr || state == core::TaskState::kNew) return;
  const std::string key = StateKey(id, attempt);
  // TonY writes TASK_STARTED when it launches a container, TASK_FINISHED when that container
  // ends: an attempt that never got one (NOT_STARTED) has neither.
  if (!core::IsTerminal(state)) {
    if (!history_started_.insert(key).second) return;
    NoteHistoryError(tony_history_->TaskStarted(id.role, id.index, host, container_id, WallMs()));
    return;
  }
  if (history_started_.count(key) == 0) return;
  // The attempt's metrics as its executor last sent them (TonY's metrics list).
  std::vector<history::HistoryMetric> metrics;
  if (auto m = metrics_.find(key); m != metrics_.end()) {
    for (const rpc::Metric& metric : m->second) metrics.push_back({metric.name(), metric.value()});
  }
  NoteHistoryError(tony_history_->TaskFinished(
      id.role, id.index, core::TonyHistoryStatus(state), metrics,
      state == core::TaskState::kSucceeded ? "" : diagnostic, WallMs()));
}

void Coordinator::FinishTonyHistory(core::FinalStatus status) {
  if (tony_history_ == nullptr) return;
  int finished = 0;
  int failed = 0;
  for (const auto& t : machine_.tasks()) {
    if (core::IsTerminal(t.state)) ++finished;
    if (core::IsFailure(t.state)) ++failed;
  }
  NoteHistoryError(tony_history_->ApplicationFinished(finished, failed, {}, end_wall_ms_));
  if (tony_history_ == nullptr) return;
  auto done = tony_history_->Finish(end_wall_ms_, core::FinalStatusName(status));
  if (done.ok()) {
    TONY_LOG(kInfo) << "TonY history: " << *done;
  } else {
    NoteHistoryError(done.status());
  }
  tony_history_.reset();
}

void Coordinator::NoteHistoryError(const Status& s) {
  if (s.ok()) return;
  std::string where =
      tony_history_ ? tony_history_->events_path() : std::string(keys::kHistoryLocation);
  if (history_error_.empty()) {
    history_error_ = s.message();
    TONY_LOG(kWarning) << "the job's TonY history (" << where
                       << ") is incomplete; the job goes on without it: " << s.message();
  } else {
    TONY_LOG(kWarning) << "writing the job's TonY history: " << s.message();
  }
  tony_history_.reset();
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

void Coordinator::JournalChanges() {
  if (!journal_ || machine_.version() == journaled_version_) return;
  journaled_version_ = machine_.version();
  journal_->Offer(SerializeAmJournal(machine_.Journal()));
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
  std::string out = message;
  if (!record_error_.empty()) {
    out += " (the job's record in " + paths_.root + " is incomplete: " + record_error_ + ")";
  }
  if (!history_error_.empty())
    out += " (the job's TonY history is incomplete: " + history_error_ + ")";
  return out;
}

}  // namespace tony
