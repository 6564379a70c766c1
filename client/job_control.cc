#include "client/job_control.h"

#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "client/engine_face.h"
#include "client/job_record.h"
#include "client/render.h"
#include "client/warnings.h"
#include "common/clock.h"
#include "common/files.h"
#include "common/process.h"
#include "common/strings.h"
#include "config/configuration.h"
#include "config/key_names.h"
#include "history/job_dir.h"

namespace tony::client {
namespace {

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

// The coordinator is gone without writing the job's end (kill -9, a crash): the job failed, and
// its unended tasks are LOST. Recorded in status.json and events.jsonl, so every later look agrees.
rpc::JobStatus RecordCoordinatorLost(const history::JobPaths& paths, const history::AmInfo& am,
                                     rpc::JobStatus status) {
  std::string why = "coordinator (pid " + std::to_string(am.pid) +
                    ") died without recording the job's end (killed or crashed); see " +
                    paths.AmLog();
  return RecordJobEnd(paths, std::move(status), rpc::FAILED, why, UnendedTasks::kLost,
                      "lost: the coordinator died");
}

// What the job dir says, with a dead coordinator's unfinished job recorded as failed. A job of an
// engine's cluster (`cluster_job`) has no coordinator here to look for.
Result<rpc::JobStatus> RecordedStatus(const history::JobPaths& paths, bool cluster_job) {
  TONY_ASSIGN_OR_RETURN(rpc::JobStatus status, history::ReadJobStatus(paths));
  if (IsFinished(status) || cluster_job) return status;
  auto am = history::ReadAmInfo(paths);
  if (!am.ok() || CoordinatorRuns(*am, paths.root)) return status;
  return RecordCoordinatorLost(paths, *am, std::move(status));
}

}  // namespace

// A cluster's job the job dir does not show ended: the cluster decides (YARN:
// engine/yarn/client/yarn_view.h). The job dir, when this TONY_HOME has one, is a cache: updated,
// and said to be stale when the cluster disagrees with it.
Result<rpc::JobStatus> CurrentClusterStatus(const EngineClientFace& face,
                                            const history::JobPaths& paths) {
  auto written = history::ReadJobStatus(paths);
  if (written.ok() && IsFinished(*written)) return written;
  auto cluster =
      face.ClusterStatus(BaseName(paths.root), written.ok() ? *written : rpc::JobStatus());
  if (!cluster.ok()) {
    if (!written.ok()) return cluster.status();
    std::cerr << "tony: warning: " << cluster.status().message() << "; showing the local record "
              << paths.Status() << "\n";
    return written;
  }
  rpc::JobStatus status = std::move(*cluster);
  if (!IsDirectory(paths.root)) return status;  // no local record here: nothing to cache
  if (written.ok() &&
      (written->phase() != status.phase() || written->final_status() != status.final_status())) {
    std::cerr << "tony: note: the local record " << paths.Status() << " was stale ("
              << rpc::JobPhase_Name(written->phase()) << "); updated from the cluster\n";
  }
  if (IsFinished(status)) {
    // The RM knows the application's end, not each task's: the record's unended tasks are LOST.
    return RecordJobEnd(paths, status, status.final_status(), status.message(), UnendedTasks::kLost,
                        "lost: the application ended with no client recording it");
  }
  WarnIfFailed(history::WriteJobStatus(paths, status),
               "the local record of " + BaseName(paths.root) + " was not updated",
               "it shows the job as it was");
  return status;
}

// The live status. On YARN the RM's report decides; on the local engine, what the coordinator
// last wrote (it rewrites status.json at every change; no process but the job's own holds the
// job secret, README "The job secret"), with a dead coordinator's unfinished job recorded as
// failed.
Result<rpc::JobStatus> CurrentJobStatus(const EngineFaces& faces, const history::JobPaths& paths) {
  if (const EngineClientFace* face = faces.ClusterOf(BaseName(paths.root))) {
    return CurrentClusterStatus(*face, paths);
  }
  return RecordedStatus(paths, false);
}

namespace {

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.resize(width, ' ');
  return s;
}

// One row of `tony status` without an id.
struct JobRow {
  std::string id, name, user, started, duration, state, message;
  int64_t start_ms = 0;
};

std::string FormatWallTime(int64_t ms) {
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string FormatDuration(int64_t ms) {
  int64_t s = std::max<int64_t>(ms, 0) / 1000;
  std::string out;
  if (s >= 3600) out += std::to_string(s / 3600) + "h";
  if (s >= 60) out += std::to_string(s / 60 % 60) + "m";
  return out + std::to_string(s % 60) + "s";
}

JobRow ReadJobRow(const EngineFaces& faces, const std::string& id) {
  history::JobPaths paths(history::JobsRoot() + "/" + id);
  JobRow row{id, "-", "-", "-", "-", "UNKNOWN", "", 0};
  struct stat st {};
  if (::stat(paths.root.c_str(), &st) == 0) {
    row.start_ms = static_cast<int64_t>(st.st_mtime) * 1000;  // until status.json says better
    if (const passwd* pw = ::getpwuid(st.st_uid)) row.user = pw->pw_name;
  }
  Configuration conf;
  if (conf.AddFile(paths.FinalConf()).ok()) {
    row.name = conf.GetOr(keys::kApplicationName, "-");
  }
  auto status = RecordedStatus(paths, faces.ClusterOf(id) != nullptr);
  if (!status.ok()) return row;
  row.state = IsFinished(*status) ? rpc::FinalStatus_Name(status->final_status())
                                  : rpc::JobPhase_Name(status->phase());
  row.message = status->message().substr(0, status->message().find('\n'));
  if (status->start_wall_ms() > 0) {
    row.start_ms = status->start_wall_ms();
    row.started = FormatWallTime(status->start_wall_ms());
    int64_t end = status->end_wall_ms() > 0 ? status->end_wall_ms() : SystemClock().WallMs();
    row.duration = FormatDuration(end - status->start_wall_ms());
  }
  return row;
}

// The user's TONY applications the RM knows, next to the local rows: a local row of an
// application takes the RM's state while its record does not show the end; the others are added.
void AddClusterRows(const EngineClientFace& face, std::vector<JobRow>& rows) {
  auto apps = face.ListClusterJobs();
  if (!apps.ok()) {
    std::cerr << "tony: warning: listing the cluster's applications: " << apps.status().message()
              << "\n";
    return;
  }
  for (const auto& a : *apps) {
    auto local =
        std::find_if(rows.begin(), rows.end(), [&](const JobRow& r) { return r.id == a.id; });
    JobRow row{a.id,
               a.name.empty() ? "-" : a.name,
               a.user.empty() ? "-" : a.user,
               "-",
               "-",
               a.state,
               a.message.substr(0, a.message.find('\n')),
               a.start_ms};
    if (a.start_ms > 0) {
      row.started = FormatWallTime(a.start_ms);
      row.duration =
          FormatDuration((a.finish_ms > 0 ? a.finish_ms : SystemClock().WallMs()) - a.start_ms);
    }
    if (local == rows.end()) {
      rows.push_back(row);
    } else if (local->state == "RUNNING" || local->state == "STOPPING" ||
               local->state == "UNKNOWN") {
      local->state = row.state;
      if (a.ended) {
        local->message = row.message;
        local->duration = row.duration;
      }
    }
  }
}

int ListJobs(const EngineFaces& faces, bool json) {
  std::vector<JobRow> rows;
  if (auto ids = history::ListJobIds(); !ids.ok()) {
    std::cerr << "tony: warning: not listing local jobs: " << ids.status().message() << "\n";
  } else {
    for (const auto& id : *ids) rows.push_back(ReadJobRow(faces, id));
  }
  for (const auto& face : faces.All()) AddClusterRows(*face, rows);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const JobRow& a, const JobRow& b) { return a.start_ms < b.start_ms; });
  if (json) {
    // docs/status-json.md: one object per job, the table's columns plus the start in ms.
    nlohmann::json jobs = nlohmann::json::array();
    for (const auto& r : rows) {
      jobs.push_back({{"job_id", r.id},
                      {"name", r.name},
                      {"user", r.user},
                      {"start_wall_ms", r.start_ms},
                      {"started", r.started},
                      {"duration", r.duration},
                      {"state", r.state},
                      {"message", r.message}});
    }
    std::cout << nlohmann::json{{"jobs", jobs}}.dump(1, ' ', false,
                                                     nlohmann::json::error_handler_t::replace)
              << "\n";
    return 0;
  }
  if (rows.empty()) {
    std::cout << "no jobs under " << history::JobsRoot() << "\n";
    return 0;
  }
  size_t id_width = 4, name_width = 5, user_width = 5;
  for (const auto& r : rows) {
    id_width = std::max(id_width, r.id.size() + 2);
    name_width = std::max(name_width, std::min<size_t>(r.name.size(), 30) + 2);
    user_width = std::max(user_width, r.user.size() + 2);
  }
  std::cout << Pad("JOB", id_width) << Pad("NAME", name_width) << Pad("USER", user_width)
            << Pad("STARTED", 21) << Pad("DURATION", 10) << Pad("STATE", 11) << "MESSAGE\n";
  for (const auto& r : rows) {
    std::cout << Pad(r.id, id_width) << Pad(r.name.substr(0, 30), name_width)
              << Pad(r.user, user_width) << Pad(r.started, 21) << Pad(r.duration, 10)
              << Pad(r.state, 11) << Printable(r.message) << "\n";
  }
  return 0;
}

}  // namespace

Result<history::JobPaths> JobPathsFor(const EngineFaces& faces, const std::string& id_or_path) {
  auto dir = history::ResolveJobDir(id_or_path);
  if (dir.ok()) return history::JobPaths(*dir);
  // An application id needs no local record: the cluster knows the job.
  const EngineClientFace* face = faces.ClusterOf(id_or_path);
  if (face == nullptr || !face->ValidJobId(id_or_path)) return dir.status();
  if (Status asked = face->CanAskCluster(id_or_path); !asked.ok()) {
    return NotFound(dir.status().message() + "; " + asked.message());
  }
  return history::JobPaths(history::JobsRoot() + "/" + id_or_path);
}

int CommandError(const std::string& message) {
  std::cerr << "tony: error: " << message << "\n";
  return 2;
}

int ShowStatus(const EngineFaces& faces, const std::string& id_or_path, bool json) {
  if (id_or_path.empty()) return ListJobs(faces, json);
  auto paths = JobPathsFor(faces, id_or_path);
  if (!paths.ok()) return CommandError(paths.status().message());
  auto status = CurrentJobStatus(faces, *paths);
  if (!status.ok())
    return CommandError("no status for job " + id_or_path + ": " + status.status().message());
  if (json) {
    // docs/status-json.md: status.json's own form, whatever engine the job ran on.
    auto text = history::JobStatusJson(*status);
    if (!text.ok()) return CommandError(text.status().message());
    std::cout << *text << "\n";
    return IsFinished(*status) && !Succeeded(*status) ? 1 : 0;
  }
  std::cout << "job " << status->job_id() << " ("
            << (status->framework().empty() ? "" : status->framework() + ", ") << status->engine()
            << " engine): " << rpc::JobPhase_Name(status->phase());
  if (IsFinished(*status)) std::cout << " " << rpc::FinalStatus_Name(status->final_status());
  std::cout << "\n" << RenderTaskTable(*status);
  if (IsFinished(*status)) std::cout << RenderSummary(*status);
  // A running job's message says why its table may be short (a YARN job whose AM could not be
  // read: engine/yarn/client/yarn_view.h).
  if (!IsFinished(*status) && !status->message().empty()) {
    std::cout << Printable(status->message()) << "\n";
  }
  return IsFinished(*status) && !Succeeded(*status) ? 1 : 0;
}

int KillJob(const EngineFaces& faces, const std::string& id_or_path) {
  if (const EngineClientFace* face = faces.ClusterOf(id_or_path)) {
    return face->KillOnCluster(id_or_path);
  }
  auto dir = history::ResolveJobDir(id_or_path);
  if (!dir.ok()) return CommandError(dir.status().message());
  history::JobPaths paths(*dir);
  auto before = history::ReadJobStatus(paths);
  if (before.ok() && IsFinished(*before)) {
    std::cout << "job " << before->job_id()
              << " already ended: " << rpc::FinalStatus_Name(before->final_status()) << "\n";
    return 0;
  }
  auto am = history::ReadAmInfo(paths);
  if (!am.ok()) return CommandError("job " + id_or_path + " has no coordinator info");
  if (IsCoordinatorOf(am->pid, paths.root)) {
    // SIGTERM asks the coordinator to stop every task and write the final status (no RPC: the
    // job secret lives only in the job's own processes). Its stop grace is a few seconds; after
    // 30 s whatever is left of it is killed.
    if (::kill(am->pid, SIGTERM) != 0 && errno != ESRCH) {
      return CommandError(
          "job " + id_or_path + ": " +
          ErrnoStatus("signalling its coordinator (pid " + std::to_string(am->pid) + ")", errno)
              .message());
    }
    for (int i = 0; i < 600 && IsCoordinatorOf(am->pid, paths.root); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (IsCoordinatorOf(am->pid, paths.root)) {
      std::cerr << "tony: warning: the coordinator did not stop within 30 s; killing it\n";
      KillSession(am->pid);
    }
  }
  auto after = history::ReadJobStatus(paths);
  if (!after.ok() || !IsFinished(*after)) {
    after = RecordJobEnd(paths, after.ok() ? *after : rpc::JobStatus(), rpc::KILLED,
                         "killed by user (tony kill; the coordinator was not running)",
                         UnendedTasks::kStopped, "killed by user (tony kill)");
  }
  std::cout << "job " << BaseName(paths.root) << " " << rpc::FinalStatus_Name(after->final_status())
            << "\n";
  return 0;
}

}  // namespace tony::client
