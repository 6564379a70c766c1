#include "client/job_control.h"

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "client/render.h"
#include "client/yarn_submit.h"
#include "common/clock.h"
#include "common/files.h"
#include "common/process.h"
#include "common/strings.h"
#include "hadoop/hdfs/webhdfs.h"
#include "history/job_dir.h"
#include "rpc/client.h"

namespace tony::client {
namespace {

int Error(const std::string& message) {
  std::cerr << "tony: error: " << message << "\n";
  return 2;
}

// True when `pid` is the coordinator of the job in `job_dir` (guards against pid reuse).
bool IsCoordinatorOf(int pid, const std::string& job_dir) {
  std::string cmdline = ProcessCommandLine(pid);
  return cmdline.find(" am ") != std::string::npos && cmdline.find(job_dir) != std::string::npos;
}

// True while the coordinator recorded in am.json runs. The pid and start id recorded together
// tell a reused pid apart; am.json without a start id (older versions) falls back to the
// command line.
bool CoordinatorRuns(const history::AmInfo& am, const std::string& job_dir) {
  if (am.start_id.empty()) return IsCoordinatorOf(am.pid, job_dir);
  return ProcessStartId(am.pid) == am.start_id;
}

bool TaskEnded(const std::string& state) {
  return state == "SUCCEEDED" || state == "FAILED" || state == "FINISHED" || state == "KILLED" ||
         state == "LOST" || state == "UNKNOWN";
}

// A finished job whose coordinator ended without recording its tasks' ends: no row may stay
// RUNNING, since the coordinator's end ends every executor.
void EndUnendedTasks(rpc::JobStatus& status, const std::string& state, const std::string& why) {
  for (auto& t : *status.mutable_tasks()) {
    if (TaskEnded(t.state())) continue;
    t.set_diagnostics(why + " while the task was " + t.state());
    t.set_state(state);
  }
}

// The coordinator is gone without writing the job's end (kill -9, a crash): the job failed.
// Recorded in status.json and events.jsonl, so every later look agrees.
rpc::JobStatus RecordCoordinatorLost(const history::JobPaths& paths, const history::AmInfo& am,
                                     rpc::JobStatus status) {
  std::string why = "coordinator (pid " + std::to_string(am.pid) +
                    ") died without recording the job's end (killed or crashed); see " +
                    paths.AmLog();
  status.set_phase("FINISHED");
  status.set_final_status("FAILED");
  status.set_message(why);
  status.set_end_wall_ms(SystemClock().WallMs());
  EndUnendedTasks(status, "LOST", "lost: the coordinator died");
  (void)history::WriteJobStatus(paths, status);
  nlohmann::json event = {{"event", "coordinator_lost"}, {"message", why}};
  (void)history::AppendEvent(paths, event.dump());
  return status;
}

bool IsYarnJob(const history::JobPaths& paths) {
  return StartsWith(BaseName(paths.root), "application_");
}

// A YARN job the job dir does not show ended: the RM's report decides; its end is recorded.
Result<rpc::JobStatus> CurrentYarnStatus(const history::JobPaths& paths) {
  auto written = history::ReadJobStatus(paths);
  if (written.ok() && IsFinished(*written)) return written;
  TONY_ASSIGN_OR_RETURN(rpc::JobStatus status,
                        YarnJobStatus(paths, written.ok() ? *written : rpc::JobStatus()));
  if (IsFinished(status)) {
    // The RM knows the application's end, not each task's.
    EndUnendedTasks(status, "UNKNOWN", "the application ended with no client recording it");
    (void)history::WriteJobStatus(paths, status);
  }
  return status;
}

// What the job dir says, with a dead coordinator's unfinished job recorded as failed.
Result<rpc::JobStatus> RecordedStatus(const history::JobPaths& paths) {
  TONY_ASSIGN_OR_RETURN(rpc::JobStatus status, history::ReadJobStatus(paths));
  if (IsFinished(status) || IsYarnJob(paths)) return status;
  auto am = history::ReadAmInfo(paths);
  if (!am.ok() || CoordinatorRuns(*am, paths.root)) return status;
  // It may have written its end and exited since the first read: that end stands.
  TONY_ASSIGN_OR_RETURN(status, history::ReadJobStatus(paths));
  if (IsFinished(status)) return status;
  return RecordCoordinatorLost(paths, *am, std::move(status));
}

// The live status: on YARN the RM's report and the AM; else the coordinator if it runs, else
// what it last wrote.
Result<rpc::JobStatus> CurrentStatus(const history::JobPaths& paths) {
  if (IsYarnJob(paths)) return CurrentYarnStatus(paths);
  auto am = history::ReadAmInfo(paths);
  auto secret = ReadFile(paths.Secret());
  if (am.ok() && secret.ok() && CoordinatorRuns(*am, paths.root)) {
    rpc::CoordinatorClient client(am->Address(), std::string(Trim(*secret)));
    rpc::GetJobStatusRequest req;
    req.set_after_version(-1);
    auto live = client.GetJobStatus(req, 3000);
    if (live.ok()) return live;
  }
  return RecordedStatus(paths);
}

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.resize(width, ' ');
  return s;
}

int ListJobs() {
  auto ids = history::ListJobIds();
  if (ids.empty()) {
    std::cout << "no jobs under " << history::JobsRoot() << "\n";
    return 0;
  }
  std::cout << Pad("JOB", 34) << Pad("STATUS", 11) << "MESSAGE\n";
  for (const auto& id : ids) {
    history::JobPaths paths(history::JobsRoot() + "/" + id);
    auto status = RecordedStatus(paths);
    std::string state = "UNKNOWN";
    std::string message;
    if (status.ok()) {
      state = IsFinished(*status) ? status->final_status() : status->phase();
      message = status->message().substr(0, status->message().find('\n'));
    }
    std::cout << Pad(id, 34) << Pad(state, 11) << message << "\n";
  }
  return 0;
}

// A task whose logs stayed where its engine ran it (YARN: the NodeManager's container log dir):
// read over HTTP from the log URL the coordinator put in the job's status.
int ShowRemoteLogs(const history::JobPaths& paths, const std::string& task, const std::string& role,
                   int64_t index, int attempt, const std::string& stream) {
  auto status = CurrentStatus(paths);
  if (!status.ok())
    return Error("no status for job " + paths.root + ": " + status.status().message());
  const rpc::TaskStatus* found = nullptr;
  for (const auto& t : status->tasks()) {
    if (t.role() == role && t.index() == index && (attempt < 0 || t.attempt() == attempt))
      found = &t;
  }
  if (found == nullptr) return Error("job " + status->job_id() + " has no task " + task);
  if (found->log_url().empty()) {
    return Error("task " + task + " of job " + status->job_id() + " has no logs yet");
  }
  std::vector<std::string> files;
  if (stream == "stdout" || stream == "all") files.push_back("stdout");
  if (stream == "stderr" || stream == "all") files.push_back("stderr");
  if (stream == "executor" || stream == "all") files.push_back("executor.log");
  if (files.empty())
    return Error("--stream " + stream + ": expected stdout, stderr, executor or all");
  int rc = 0;
  for (const auto& f : files) {
    auto content = hadoop::hdfs::HttpGet(found->log_url() + "/" + f);
    if (files.size() > 1)
      std::cout << "==> " << task << " attempt " << found->attempt() << " " << f << " <==\n";
    if (content.ok()) {
      std::cout << *content;
    } else {
      std::cerr << "tony: warning: " << content.status().message() << "\n";
      rc = 1;
    }
    if (files.size() > 1) std::cout << "\n";
  }
  return rc;
}

}  // namespace

int ShowStatus(const std::string& id_or_path) {
  if (id_or_path.empty()) return ListJobs();
  auto dir = history::ResolveJobDir(id_or_path);
  if (!dir.ok()) return Error(dir.status().message());
  history::JobPaths paths(*dir);
  auto status = CurrentStatus(paths);
  if (!status.ok())
    return Error("no status for job " + id_or_path + ": " + status.status().message());
  std::cout << "job " << status->job_id() << " (" << status->framework() << ", " << status->engine()
            << " engine): " << status->phase();
  if (IsFinished(*status)) std::cout << " " << status->final_status();
  std::cout << "\n" << RenderTaskTable(*status);
  if (IsFinished(*status)) std::cout << RenderSummary(*status);
  return IsFinished(*status) && !Succeeded(*status) ? 1 : 0;
}

int KillJob(const std::string& id_or_path) {
  auto dir = history::ResolveJobDir(id_or_path);
  if (!dir.ok()) return Error(dir.status().message());
  history::JobPaths paths(*dir);
  auto before = history::ReadJobStatus(paths);
  if (before.ok() && IsFinished(*before)) {
    std::cout << "job " << before->job_id() << " already ended: " << before->final_status() << "\n";
    return 0;
  }
  auto am = history::ReadAmInfo(paths);
  auto secret = ReadFile(paths.Secret());
  if (!am.ok() || !secret.ok()) return Error("job " + id_or_path + " has no coordinator info");
  if (IsCoordinatorOf(am->pid, paths.root)) {
    rpc::CoordinatorClient client(am->Address(), std::string(Trim(*secret)));
    rpc::KillJobRequest req;
    req.set_reason("killed by user (tony kill)");
    Status s = client.KillJob(req, 5000);
    if (!s.ok()) std::cerr << "tony: warning: " << s.message() << "; killing it by force\n";
    // The coordinator stops every task, then exits once a client has read the final status:
    // read it (bounded), then wait for the exit.
    for (int i = 0; i < 300 && s.ok(); ++i) {
      rpc::GetJobStatusRequest status_req;
      status_req.set_after_version(-1);
      auto status = client.GetJobStatus(status_req, 2000);
      if (!status.ok() || IsFinished(*status)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    for (int i = 0; i < 200 && IsCoordinatorOf(am->pid, paths.root); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (IsCoordinatorOf(am->pid, paths.root)) KillSession(am->pid);
  }
  auto after = history::ReadJobStatus(paths);
  if (!after.ok() || !IsFinished(*after)) {
    rpc::JobStatus killed = after.ok() ? *after : rpc::JobStatus();
    killed.set_phase("FINISHED");
    killed.set_final_status("KILLED");
    killed.set_message("killed by user (tony kill; the coordinator was not running)");
    (void)history::WriteJobStatus(paths, killed);
    after = killed;
  }
  std::cout << "job " << BaseName(paths.root) << " " << after->final_status() << "\n";
  return 0;
}

int ShowLogs(const std::string& id_or_path, const std::string& task, int attempt,
             const std::string& stream) {
  auto dir = history::ResolveJobDir(id_or_path);
  if (!dir.ok()) return Error(dir.status().message());
  history::JobPaths paths(*dir);
  if (task.empty()) {
    auto log = ReadFile(paths.AmLog());
    if (!log.ok()) return Error(log.status().message());
    std::cout << *log;
    return 0;
  }
  size_t colon = task.find(':');
  auto index = colon == std::string::npos ? std::nullopt : ParseInt64(task.substr(colon + 1));
  if (!index) return Error("--task " + task + ": expected role:index, e.g. worker:1");
  std::string role = task.substr(0, colon);
  std::string task_dir = paths.root + "/tasks/" + role + "-" + std::to_string(*index);
  if (!IsDirectory(task_dir)) {
    if (history::ReadJobStatus(paths).ok())
      return ShowRemoteLogs(paths, task, role, *index, attempt, stream);
    return Error("job " + id_or_path + " has no task " + task);
  }
  if (attempt < 0) {
    for (int a = 0; IsDirectory(task_dir + "/attempt-" + std::to_string(a)); ++a) attempt = a;
  }
  std::string attempt_dir = task_dir + "/attempt-" + std::to_string(attempt);
  std::vector<std::string> files;
  if (stream == "stdout" || stream == "all") files.push_back("stdout");
  if (stream == "stderr" || stream == "all") files.push_back("stderr");
  if (stream == "executor" || stream == "all") files.push_back("executor.log");
  if (files.empty())
    return Error("--stream " + stream + ": expected stdout, stderr, executor or all");
  for (const auto& f : files) {
    std::string path = attempt_dir + "/" + f;
    auto content = ReadFile(path);
    if (files.size() > 1)
      std::cout << "==> " << task << " attempt " << attempt << " " << f << " <==\n";
    std::cout << (content.ok() ? *content : std::string());
    if (files.size() > 1) std::cout << "\n";
  }
  return 0;
}

}  // namespace tony::client
