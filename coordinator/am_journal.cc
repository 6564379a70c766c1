#include "coordinator/am_journal.h"

#include <utility>

#include "rpc/am_journal.pb.h"

namespace tony {
namespace {

namespace pb = ::tony::journal;

// The file's enums number the core's in the same order.
static_assert(static_cast<int>(core::JobPhase::kFinished) == pb::PHASE_FINISHED);
static_assert(static_cast<int>(core::FinalStatus::kKilled) == pb::FINAL_STATUS_KILLED);

template <class Out, class In>
void PutEnd(Out& out, const In& in) {
  out.set_state(core::TaskStateName(in.state));
  out.set_has_exit_code(in.exit_code.has_value());
  out.set_exit_code(in.exit_code.value_or(0));
  out.set_signal(in.signal);
  out.set_end_reason(in.end_reason);
  out.set_host(in.host);
  out.set_container_id(in.container_id);
  out.set_restart(in.restart);
}

// Reads back what PutEnd wrote; an unknown state name is an error.
template <class Out, class In>
Status GetEnd(Out& out, const In& in, const std::string& what) {
  auto state = core::ParseTaskState(in.state());
  if (!state) return InvalidArgument(what + ": unknown task state \"" + in.state() + "\"");
  out.state = *state;
  if (in.has_exit_code()) out.exit_code = in.exit_code();
  out.signal = in.signal();
  out.end_reason = in.end_reason();
  out.host = in.host();
  out.container_id = in.container_id();
  out.restart = in.restart();
  return Status::Ok();
}

void PutTask(pb::Task& out, const core::TaskRecord& t) {
  out.set_role(t.id.role);
  out.set_index(t.id.index);
  out.set_attempt(t.attempt);
  PutEnd(out, t);
  out.set_port(t.port);
  out.set_released(!t.in_completion);
  out.set_preempted(t.preempted);
  for (const core::PastAttempt& past : t.past_attempts) {
    pb::PastAttempt& p = *out.add_past_attempts();
    p.set_attempt(past.attempt);
    PutEnd(p, past);
  }
}

Result<core::TaskRecord> GetTask(const pb::Task& in, const std::string& source) {
  core::TaskRecord t;
  t.id = core::TaskId{in.role(), in.index()};
  t.attempt = in.attempt();
  const std::string what = source + ": task " + t.id.ToString();
  TONY_RETURN_IF_ERROR(GetEnd(t, in, what));
  t.port = in.port();
  t.in_completion = !in.released();
  t.preempted = in.preempted();
  for (const pb::PastAttempt& p : in.past_attempts()) {
    core::PastAttempt past;
    past.attempt = p.attempt();
    TONY_RETURN_IF_ERROR(GetEnd(past, p, what + " attempt " + std::to_string(p.attempt())));
    t.past_attempts.push_back(std::move(past));
  }
  return t;
}

}  // namespace

std::string AmJournalPath(const std::string& staging_dir) { return staging_dir + "/am/journal.pb"; }

std::string AmJournalTmpPath(const std::string& staging_dir) {
  return staging_dir + "/am/journal.pb.tmp";
}

std::string SerializeAmJournal(const core::JobJournal& journal) {
  pb::AmJournal f;
  f.set_version(kAmJournalVersion);
  f.set_phase(static_cast<pb::Phase>(journal.phase));
  f.set_final_status(static_cast<pb::FinalStatus>(journal.final_status));
  f.set_final_message(journal.final_message);
  f.set_session(journal.session);
  f.set_session_note(journal.session_note);
  f.set_stage(journal.stage);
  f.set_spec_generation(journal.spec_generation);
  for (const core::TaskRecord& t : journal.tasks) PutTask(*f.add_tasks(), t);
  for (const auto& [role, used] : journal.restarts_used) {
    pb::RestartsUsed& r = *f.add_restarts_used();
    r.set_role(role);
    r.set_used(used);
  }
  for (const std::string& task : journal.published) f.add_published(task);
  return f.SerializeAsString();
}

Result<core::JobJournal> ParseAmJournal(const std::string& bytes, const std::string& source) {
  pb::AmJournal f;
  if (!f.ParseFromString(bytes)) return InvalidArgument(source + ": not an AM journal");
  // Every writer sets a version: none is a file cut short or not ours (an empty file parses).
  if (f.version() != kAmJournalVersion) {
    return InvalidArgument(source + ": AM journal version " + std::to_string(f.version()) +
                           ", but this tony reads version " + std::to_string(kAmJournalVersion));
  }
  if (!pb::Phase_IsValid(f.phase()) || !pb::FinalStatus_IsValid(f.final_status())) {
    return InvalidArgument(source + ": unknown phase or final status");
  }
  core::JobJournal j;
  j.phase = static_cast<core::JobPhase>(f.phase());
  j.final_status = static_cast<core::FinalStatus>(f.final_status());
  j.final_message = f.final_message();
  j.session = f.session();
  j.session_note = f.session_note();
  j.stage = f.stage();
  j.spec_generation = f.spec_generation();
  for (const pb::Task& in : f.tasks()) {
    auto t = GetTask(in, source);
    if (!t.ok()) return t.status();
    j.tasks.push_back(std::move(*t));
  }
  for (const pb::RestartsUsed& r : f.restarts_used()) j.restarts_used[r.role()] = r.used();
  for (const std::string& task : f.published()) j.published.insert(task);
  return j;
}

}  // namespace tony
