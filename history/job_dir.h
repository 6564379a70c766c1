// The job directory: everything a job leaves on the machine that submitted it, so that
// `tony status <id>` and `tony logs <id>` work while the job runs and after it has ended.
//
//   $TONY_HOME (default ~/.tony)/jobs/<job id>/
//     tony-final.xml   the configuration as run
//     tony-spec.pb     the job spec validated from it at submit, which the job runs with
//                      (rpc/spec_file.h, docs/job-spec.md)
//     am.json          where the coordinator listens {host, port, pid, start_id}
//     am.log           the coordinator's own log
//     status.json      the latest job status (the RPC's JobStatus as JSON), final after the end
//     events.jsonl     one line per state change, for history
//     staging/         what the client staged (src archive, venv archive, resources/<role>/)
//     tasks/<role>-<index>/attempt-<n>/{stdout,stderr,executor.log,work/}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/net.h"
#include "common/status.h"
#include "common/task_state.h"
#include "rpc/spec_file.h"
#include "rpc/tony.pb.h"

namespace tony::history {

// $TONY_HOME made absolute, else $HOME/.tony, else /tmp/.tony.
std::string TonyHome();
inline constexpr char kNoHomeDir[] = "/tmp";
// Before a client writes anything there: TONY_HOME and its jobs/ and cache/ made or checked as
// directories only this user can write to (common/files.h MakePrivateDir). With neither
// TONY_HOME nor HOME set it is an error: tony does not fall back to a directory under /tmp,
// where another user could create it first.
Status PrepareTonyHome();
// Before a client reads a job's record by its id (status, logs, kill, the job list, a YARN
// application's recorded cluster): the same conditions, checked without creating anything, so
// that a record planted by another user (a forged am.json or cluster conf dir) is never used.
// OK when TONY_HOME or its jobs/ does not exist yet (there is nothing to read).
Status CheckJobRecordsReadable();
std::string JobsRoot();
std::string NewJobId();

struct JobPaths {
  explicit JobPaths(std::string dir) : root(std::move(dir)) {}
  std::string root;
  std::string FinalConf() const { return root + "/tony-final.xml"; }
  std::string SpecFile() const { return root + "/" + rpc::kJobSpecFileName; }
  std::string AmInfo() const { return root + "/am.json"; }
  std::string AmLog() const { return root + "/am.log"; }
  std::string Status() const { return root + "/status.json"; }
  std::string Events() const { return root + "/events.jsonl"; }
  std::string Staging() const { return root + "/staging"; }
  // Local engine: a role's tony.*.resources, staged for its tasks' working directories.
  std::string Resources(const std::string& role) const {
    return root + "/staging/resources/" + role;
  }
  std::string TaskAttemptDir(const std::string& role, int index, int attempt) const;
};

struct AmInfo {
  std::string host;
  int port = 0;
  int pid = 0;
  // The coordinator's ProcessStartId (common/process.h): `tony status` tells a dead coordinator
  // from a live one, even when its pid was reused. Empty in am.json files of older versions.
  std::string start_id;
  // host:port, an IPv6 host in brackets: the line the coordinator announces to a local client,
  // read back with ParseHostPort, and a gRPC target.
  std::string Address() const { return HostPort{host, static_cast<uint16_t>(port)}.ToString(); }
};

// am.json's and status.json's contents; `source` names the file in errors.
Result<AmInfo> ParseAmInfo(const std::string& text, const std::string& source);
Result<rpc::JobStatus> ParseJobStatus(const std::string& text, const std::string& source);

Status WriteAmInfo(const JobPaths& paths, const AmInfo& info);
Result<AmInfo> ReadAmInfo(const JobPaths& paths);

// status.json's text for `status` (also what the YARN AM's status endpoint serves).
Result<std::string> JobStatusJson(const rpc::JobStatus& status);
Status WriteJobStatus(const JobPaths& paths, const rpc::JobStatus& status);
Result<rpc::JobStatus> ReadJobStatus(const JobPaths& paths);
Status AppendEvent(const JobPaths& paths, const std::string& json_line);

// events.jsonl's lines (docs/architecture.md, the table of files), built here only. A task
// attempt's state change carries what the change knows: a registered task's address, a stall's
// reason, an end's exit code or signal and reason; an end also gets "exit" (core::DescribeExit)
// and TonY's history status.
struct TaskEvent {
  TaskEvent(std::string task, int attempt, core::TaskState state)
      : task(std::move(task)), attempt(attempt), state(state) {}

  std::string task;  // role:index
  int attempt = 0;
  core::TaskState state = core::TaskState::kNew;
  std::string address;  // host:port; empty: none
  std::optional<int> exit_code;
  int signal = 0;  // 0: none
  std::string reason;
};
std::string TaskEventLine(int64_t time_ms, const TaskEvent& event);
// The last line: the job's end.
std::string JobEndLine(int64_t time_ms, rpc::FinalStatus status, const std::string& message);

// A job's directory from its id, a unique prefix of one, or a path to it; refuses ids that name no
// single job (empty, ".", "..", a directory that is not a job's).
Result<std::string> ResolveJobDir(const std::string& id_or_path);
// Job ids under JobsRoot(), oldest first.
// An error, naming the directory and why, where CheckJobRecordsReadable refuses them.
Result<std::vector<std::string>> ListJobIds();

}  // namespace tony::history
