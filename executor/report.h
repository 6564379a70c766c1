// The task's result, as the executor reports it to the coordinator (ReportResult): the exit code,
// how the user process ended (a signal, stopped by the executor), and a diagnostics text with the
// reason the executor stopped it and the last lines of the failed process's stderr, capped in
// lines (tony.task.executor.execution.error-message-max-depth) and bytes.
//
// Thread-safety: the loop's thread only.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "config/job_spec.h"
#include "executor/control_plane.h"
#include "executor/event_loop.h"
#include "executor/task_identity.h"
#include "executor/user_processes.h"
#include "rpc/tony.pb.h"

namespace tony {

rpc::ReportResultRequest MakeReport(const TaskIdentity& id, int exit_code,
                                    const std::string& diagnostics);
// The report of the user processes' outcome, with the stderr tail of the failed one.
rpc::ReportResultRequest MakeReport(const TaskIdentity& id, const JobSpec& spec,
                                    const ProcessesOutcome& outcome,
                                    const UserProcesses& processes);

// What the preprocess task's stdout says after its first "Model parameters: " (TonY's marker; the
// rest of that line), or nothing. The coordinator hands it to the later tasks as MODEL_PARAMS.
std::optional<std::string> ModelParamsFrom(const std::string& stdout_path);

// Sends a report, trying again (after a backoff on a LoopTimer) while the coordinator is
// unreachable; a refusal is final. `done(true)` once the coordinator has it, `done(false)` (and an
// error in the log) when it never got it.
class ResultReporter {
 public:
  ResultReporter(TimeSource& time, CoordinatorCalls& control);
  void Send(rpc::ReportResultRequest request, std::function<void(bool reported)> done);

 private:
  void Attempt();
  void OnAnswer(const Status& s);

  CoordinatorCalls& control_;
  LoopTimer backoff_;
  rpc::ReportResultRequest request_;
  std::function<void(bool)> done_;
  int attempt_ = 0;
};

}  // namespace tony
