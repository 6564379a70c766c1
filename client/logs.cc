#include "client/logs.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include "client/engine_face.h"
#include "client/job_control.h"
#include "client/render.h"
#include "common/files.h"
#include "common/strings.h"
#include "hadoop/hdfs/webhdfs.h"
#include "history/job_dir.h"

namespace tony::client {
namespace {

// One file to show: a name for the header and how to read it from a byte offset on.
struct LogFile {
  std::string label;
  std::function<Result<std::string>(size_t offset)> read;
};

Result<std::string> ReadLocalFrom(const std::string& path, size_t offset) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::string();  // not written yet: nothing to show so far
  in.seekg(static_cast<std::streamoff>(offset));
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

Result<std::vector<std::string>> StreamFiles(const std::string& stream) {
  if (stream == "stdout") return std::vector<std::string>{"stdout"};
  if (stream == "stderr") return std::vector<std::string>{"stderr"};
  if (stream == "executor") return std::vector<std::string>{"executor.log"};
  if (stream == "all") return std::vector<std::string>{"stdout", "stderr", "executor.log"};
  return InvalidArgument("--stream " + stream + ": expected stdout, stderr, executor or all");
}

std::string LastLines(const std::string& text, int64_t n) {
  if (n < 0) return text;
  size_t end = text.size();
  if (end > 0 && text[end - 1] == '\n') --end;  // the final newline ends the last line
  size_t pos = end;
  for (int64_t lines = 0; lines < n; ++lines) {
    size_t nl = pos == 0 ? std::string::npos : text.rfind('\n', pos - 1);
    if (nl == std::string::npos) return text;
    pos = nl;
  }
  return text.substr(pos + 1);
}

// Whether what we follow may still write: the job runs, and the task's attempt has not ended.
bool StillWriting(const EngineFaces& faces, const history::JobPaths& paths, const std::string& role,
                  int64_t index, int attempt) {
  auto status = CurrentJobStatus(faces, paths);
  if (!status.ok() || IsFinished(*status)) return false;
  if (role.empty()) return true;
  for (const auto& t : status->tasks()) {
    if (t.role() == role && t.index() == index && t.attempt() == attempt) {
      return !TaskEnded(t.state());
    }
  }
  return true;  // not started yet
}

// Prints the files (the last `tail_lines` of each first), then, with follow, what they gain
// until `still_writing` says the writer is done. Returns 1 when a file could not be read.
int PrintLogs(const std::vector<LogFile>& files, const LogsOptions& o,
              const std::function<bool()>& still_writing) {
  int rc = 0;
  std::vector<size_t> shown(files.size(), 0);
  const bool headers = files.size() > 1;
  for (size_t i = 0; i < files.size(); ++i) {
    auto content = files[i].read(0);
    if (!content.ok()) {
      std::cerr << "tony: warning: " << content.status().message() << "\n";
      rc = 1;
      continue;
    }
    shown[i] = content->size();
    if (headers) std::cout << "==> " << files[i].label << " <==\n";
    std::cout << LastLines(*content, o.tail_lines);
    if (headers) std::cout << "\n";
  }
  std::cout << std::flush;
  size_t last = files.size();  // the file the last output came from, for tail -f style headers
  bool more = o.follow;
  while (more) {
    more = still_writing();  // decide before reading, so the last bytes are read after the end
    for (size_t i = 0; i < files.size(); ++i) {
      auto content = files[i].read(shown[i]);
      if (!content.ok() || content->empty()) continue;
      if (headers && last != i) std::cout << "\n==> " << files[i].label << " <==\n";
      last = i;
      shown[i] += content->size();
      std::cout << *content << std::flush;
    }
    if (more) std::this_thread::sleep_for(std::chrono::milliseconds(o.poll_ms));
  }
  return rc;
}

// The attempt to show: the requested one, which must exist, or the latest.
Result<int> PickLocalAttempt(const std::string& task_dir, const std::string& task, int requested) {
  int latest = -1;
  while (IsDirectory(task_dir + "/attempt-" + std::to_string(latest + 1))) ++latest;
  if (requested < 0) return latest < 0 ? 0 : latest;
  if (requested > latest) {
    return NotFound("task " + task + " has no attempt " + std::to_string(requested) +
                    (latest < 0 ? " (it has not started)"
                                : " (attempts: 0 to " + std::to_string(latest) + ")"));
  }
  return requested;
}

// The AM's log (am.log) of a cluster's job, from its container (YARN: on the NodeManager; there
// is no local one): the first of the candidate URLs that answers.
int ShowAmContainerLog(const EngineFaces& faces, const EngineClientFace& face,
                       const history::JobPaths& paths, const LogsOptions& o) {
  std::string app_id = BaseName(paths.root);
  auto urls = face.AmLogUrls(app_id);
  if (!urls.ok()) return CommandError("the AM's log of " + app_id + ": " + urls.status().message());
  std::string tried;
  auto loaded = face.LogWebAccess(app_id, std::any_of(urls->begin(), urls->end(), [](auto& u) {
                                    return StartsWith(u, "https://");
                                  }));
  if (!loaded.ok())
    return CommandError("the AM's log of " + app_id + ": " + loaded.status().message());
  auto get = std::make_shared<hadoop::hdfs::HttpGetOptions>(*std::move(loaded));
  for (const auto& base : *urls) {
    std::string url = base + "/am.log";
    auto first = hadoop::hdfs::HttpGet(url, *get);
    if (!first.ok()) {
      tried += "\n  " + url + ": " + first.status().message();
      continue;
    }
    std::vector<LogFile> files = {
        {"am.log", [url, get](size_t offset) -> Result<std::string> {
           TONY_ASSIGN_OR_RETURN(std::string all, hadoop::hdfs::HttpGet(url, *get));
           return offset < all.size() ? all.substr(offset) : std::string();
         }}};
    return PrintLogs(files, o, [&] { return StillWriting(faces, paths, "", 0, 0); });
  }
  std::cerr << "tony: error: no NodeManager has the AM's log of " << app_id << ":" << tried << "\n";
  return 1;
}

// One task's log files, and the attempt they are of.
struct TaskLogs {
  std::vector<LogFile> files;
  int attempt = -1;
};

// The logs of an attempt kept in the job dir's `task_dir` (the local engine's, or a YARN job's
// whose logs were copied there); the error names the job `id_or_path`.
Result<TaskLogs> LocalTaskLogs(const std::string& id_or_path, const std::string& task_dir,
                               const std::vector<std::string>& names, const LogsOptions& o) {
  auto picked = PickLocalAttempt(task_dir, o.task, o.attempt);
  if (!picked.ok()) return picked.status().WithContext("job " + id_or_path);
  TaskLogs logs;
  logs.attempt = *picked;
  for (const auto& name : names) {
    std::string path = task_dir + "/attempt-" + std::to_string(logs.attempt) + "/" + name;
    logs.files.push_back({o.task + " attempt " + std::to_string(logs.attempt) + " " + name,
                          [path](size_t offset) { return ReadLocalFrom(path, offset); }});
  }
  return logs;
}

// Logs that stayed where the engine ran the task (YARN: the NodeManager's container log dir),
// read over HTTP from the log URL in the job's status.
Result<TaskLogs> RemoteTaskLogs(const EngineFaces& faces, const history::JobPaths& paths,
                                const std::string& id_or_path, const std::string& role,
                                int64_t index, const std::vector<std::string>& names,
                                const LogsOptions& o) {
  auto status = CurrentJobStatus(faces, paths);
  if (!status.ok()) return NotFound("job " + id_or_path + " has no task " + o.task);
  const rpc::TaskStatus* found = nullptr;
  for (const auto& t : status->tasks()) {
    if (t.role() == role && t.index() == index && (o.attempt < 0 || t.attempt() == o.attempt))
      found = &t;
  }
  if (found == nullptr) {
    return NotFound("job " + status->job_id() + " has no task " + o.task +
                    (o.attempt < 0 ? "" : " attempt " + std::to_string(o.attempt)));
  }
  if (found->log_url().empty()) {
    return NotFound("task " + o.task + " of job " + status->job_id() + " has no logs yet");
  }
  TaskLogs logs;
  logs.attempt = found->attempt();
  // The NodeManager's web: the cluster's CAs (yarn.http.policy=HTTPS_ONLY), SPNEGO where
  // the cluster is Kerberized (the engine's client face knows; a URL of no cluster's job is
  // read plainly).
  const EngineClientFace* face = faces.ClusterOf(status->job_id());
  auto loaded = face != nullptr
                    ? face->LogWebAccess(status->job_id(), StartsWith(found->log_url(), "https://"))
                    : Result<hadoop::hdfs::HttpGetOptions>(hadoop::hdfs::HttpGetOptions());
  if (!loaded.ok()) return loaded.status().WithContext("task " + o.task);
  auto get = std::make_shared<hadoop::hdfs::HttpGetOptions>(*std::move(loaded));
  for (const auto& name : names) {
    std::string url = found->log_url() + "/" + name;
    logs.files.push_back({o.task + " attempt " + std::to_string(logs.attempt) + " " + name,
                          [url, get](size_t offset) -> Result<std::string> {
                            TONY_ASSIGN_OR_RETURN(std::string all,
                                                  hadoop::hdfs::HttpGet(url, *get));
                            return offset < all.size() ? all.substr(offset) : std::string();
                          }});
  }
  return logs;
}

}  // namespace

int ShowLogs(const EngineFaces& faces, const std::string& id_or_path, const LogsOptions& o) {
  auto found_paths = JobPathsFor(faces, id_or_path);
  if (!found_paths.ok()) return CommandError(found_paths.status().message());
  const history::JobPaths& paths = *found_paths;
  const EngineClientFace* cluster = faces.ClusterOf(BaseName(paths.root));
  if (o.task.empty() && cluster != nullptr && !PathExists(paths.AmLog())) {
    return ShowAmContainerLog(faces, *cluster, paths, o);
  }
  if (o.task.empty()) {
    std::string path = paths.AmLog();
    if (!PathExists(path))
      return CommandError("job " + id_or_path + " has no coordinator log " + path);
    std::vector<LogFile> files = {
        {"am.log", [path](size_t offset) { return ReadLocalFrom(path, offset); }}};
    return PrintLogs(files, o, [&] { return StillWriting(faces, paths, "", 0, 0); });
  }
  size_t colon = o.task.find(':');
  auto index = colon == std::string::npos ? std::nullopt : ParseInt64(o.task.substr(colon + 1));
  if (!index) return CommandError("--task " + o.task + ": expected role:index, e.g. worker:1");
  std::string role = o.task.substr(0, colon);
  auto names = StreamFiles(o.stream);
  if (!names.ok()) return CommandError(names.status().message());
  std::string task_dir = paths.root + "/tasks/" + role + "-" + std::to_string(*index);
  auto logs = IsDirectory(task_dir)
                  ? LocalTaskLogs(id_or_path, task_dir, *names, o)
                  : RemoteTaskLogs(faces, paths, id_or_path, role, *index, *names, o);
  if (!logs.ok()) return CommandError(logs.status().message());
  const int attempt = logs->attempt;
  return PrintLogs(logs->files, o,
                   [&] { return StillWriting(faces, paths, role, *index, attempt); });
}

}  // namespace tony::client
