#include "client/job_record.h"

#include "client/render.h"
#include "client/warnings.h"
#include "common/clock.h"
#include "common/files.h"
#include "common/task_state.h"

namespace tony::client {

rpc::JobStatus RecordJobEnd(const history::JobPaths& paths, rpc::JobStatus status,
                            rpc::FinalStatus final_status, const std::string& message,
                            UnendedTasks unended, const std::string& why) {
  const int64_t now = SystemClock().WallMs();
  status.set_phase(rpc::FINISHED);
  status.set_final_status(final_status);
  status.set_message(message);
  if (status.end_wall_ms() == 0) status.set_end_wall_ms(now);
  std::vector<std::string> lines;
  for (auto& t : *status.mutable_tasks()) {
    if (TaskEnded(t.state())) continue;
    core::TaskState state = core::TaskState::kLost;
    if (unended == UnendedTasks::kStopped) {
      auto parsed = core::ParseTaskState(t.state());
      bool ran = parsed && core::IsRunning(*parsed);
      state = ran ? core::TaskState::kStopped : core::TaskState::kNotStarted;
    }
    t.set_diagnostics(why + " while the task was " + t.state());
    t.set_state(core::TaskStateName(state));
    t.set_end_reason(why);
    history::TaskEvent e{t.role() + ":" + std::to_string(t.index()), t.attempt(), state};
    e.reason = why;
    lines.push_back(history::TaskEventLine(now, e));
  }
  lines.push_back(history::JobEndLine(status.end_wall_ms(), final_status, message));
  // A full disk fails every line alike: said once.
  Warner warner;
  const std::string what = "the end of job " + BaseName(paths.root) + " is not fully recorded";
  warner.WarnIfFailed(history::WriteJobStatus(paths, status), what);
  for (const auto& line : lines) warner.WarnIfFailed(history::AppendEvent(paths, line), what);
  return status;
}

}  // namespace tony::client
