// JobStateMachine: what the AM journals (docs/am-restart.md §3) and the recovery of a later AM
// attempt from it (§5).
#include <utility>

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

}  // namespace tony::core
