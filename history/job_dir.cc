#include "history/job_dir.h"

#include <fcntl.h>
#include <google/protobuf/util/json_util.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/files.h"
#include "common/strings.h"

namespace tony::history {

std::string TonyHome() {
  const char* home = std::getenv("TONY_HOME");
  if (home != nullptr && *home != '\0') {
    // Absolute, so that a relative TONY_HOME means the same directory to the coordinator and
    // the executors, which run elsewhere.
    auto absolute = AbsolutePath(home);
    return absolute.ok() ? *absolute : std::string(home);
  }
  const char* user_home = std::getenv("HOME");
  return std::string(user_home != nullptr && *user_home != '\0' ? user_home : kNoHomeDir) +
         "/.tony";
}

namespace {

// The job ids (directory names) under `root`, sorted; none when it cannot be read. Callers have
// checked it (CheckJobRecordsReadable).
std::vector<std::string> JobIdsUnder(const std::string& root) {
  std::vector<std::string> ids;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    if (entry.is_directory()) ids.push_back(entry.path().filename().string());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

Status RequireHome() {
  const char* home = std::getenv("TONY_HOME");
  const char* user_home = std::getenv("HOME");
  if ((home == nullptr || *home == '\0') && (user_home == nullptr || *user_home == '\0')) {
    return FailedPrecondition(
        "neither TONY_HOME nor HOME is set: set TONY_HOME to a directory of your own for tony's "
        "job records (tony does not fall back to /tmp, where another user could create it "
        "first)");
  }
  return Status::Ok();
}

}  // namespace

Status CheckJobRecordsReadable() {
  TONY_RETURN_IF_ERROR(RequireHome());
  if (!PathExists(TonyHome())) return Status::Ok();
  TONY_RETURN_IF_ERROR(CheckPrivateDir(TonyHome(), /*follow_link=*/true).WithContext("TONY_HOME"));
  if (!PathExists(JobsRoot())) return Status::Ok();
  return CheckPrivateDir(JobsRoot());
}

Status PrepareTonyHome() {
  TONY_RETURN_IF_ERROR(RequireHome());
  // TONY_HOME itself may be a symlink to a directory of the user's; what tony makes in it not.
  TONY_RETURN_IF_ERROR(MakePrivateDir(TonyHome(), /*follow_link=*/true).WithContext("TONY_HOME"));
  TONY_RETURN_IF_ERROR(MakePrivateDir(JobsRoot()));
  return MakePrivateDir(TonyHome() + "/cache");
}

std::string JobsRoot() { return TonyHome() + "/jobs"; }

std::string NewJobId() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
  return std::string("tony-") + stamp + "-" + RandomHex(3);
}

std::string JobPaths::TaskAttemptDir(const std::string& role, int index, int attempt) const {
  return root + "/tasks/" + role + "-" + std::to_string(index) + "/attempt-" +
         std::to_string(attempt);
}

Status WriteAmInfo(const JobPaths& paths, const AmInfo& info) {
  nlohmann::json j = {
      {"host", info.host}, {"port", info.port}, {"pid", info.pid}, {"start_id", info.start_id}};
  return WriteFileAtomic(paths.AmInfo(), j.dump() + "\n");
}

Result<AmInfo> ReadAmInfo(const JobPaths& paths) {
  TONY_ASSIGN_OR_RETURN(std::string text, ReadFile(paths.AmInfo()));
  return ParseAmInfo(text, paths.AmInfo());
}

Result<AmInfo> ParseAmInfo(const std::string& text, const std::string& source) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Internal("malformed " + source);
  AmInfo info;
  if (auto host = j.find("host"); host != j.end()) {
    if (!host->is_string()) return Internal("malformed " + source + ": host is not a string");
    info.host = host->get<std::string>();
  }
  if (auto start = j.find("start_id"); start != j.end()) {
    if (!start->is_string()) return Internal("malformed " + source + ": start_id is not a string");
    info.start_id = start->get<std::string>();
  }
  for (auto [key, out] : {std::pair{"port", &info.port}, std::pair{"pid", &info.pid}}) {
    auto v = j.find(key);
    if (v == j.end()) continue;
    // Checked before the conversion: a float or a huge number would not fit an int.
    if (!v->is_number_integer() || v->get<int64_t>() < 0 || v->get<int64_t>() > INT32_MAX) {
      return Internal("malformed " + source + ": " + key + " is not a non-negative integer");
    }
    *out = static_cast<int>(v->get<int64_t>());
  }
  return info;
}

Result<std::string> JobStatusJson(const rpc::JobStatus& status) {
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  auto s = google::protobuf::util::MessageToJsonString(status, &json, options);
  if (!s.ok()) return Internal("encoding job status: " + s.ToString());
  return json;
}

Status WriteJobStatus(const JobPaths& paths, const rpc::JobStatus& status) {
  TONY_ASSIGN_OR_RETURN(std::string json, JobStatusJson(status));
  return WriteFileAtomic(paths.Status(), json);
}

Result<rpc::JobStatus> ReadJobStatus(const JobPaths& paths) {
  TONY_ASSIGN_OR_RETURN(std::string text, ReadFile(paths.Status()));
  return ParseJobStatus(text, paths.Status());
}

Result<rpc::JobStatus> ParseJobStatus(const std::string& text, const std::string& source) {
  rpc::JobStatus status;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  auto s = google::protobuf::util::JsonStringToMessage(text, &status, options);
  if (!s.ok()) return Internal("malformed " + source + ": " + s.ToString());
  // Files of older versions wrote "exit_code": 0 with "has_exit_code": false for "no exit code".
  if (text.find("\"has_exit_code\"") != std::string::npos) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    const nlohmann::json* tasks = j.is_object() && j.contains("tasks") ? &j["tasks"] : nullptr;
    for (int i = 0; tasks != nullptr && tasks->is_array() && i < status.tasks_size() &&
                    static_cast<size_t>(i) < tasks->size();
         ++i) {
      const nlohmann::json& t = (*tasks)[static_cast<size_t>(i)];
      auto has = t.is_object() ? t.find("has_exit_code") : t.end();
      if (has != t.end() && has->is_boolean() && !has->get<bool>()) {
        status.mutable_tasks(i)->clear_exit_code();
      }
    }
  }
  return status;
}

Status AppendEvent(const JobPaths& paths, const std::string& json_line) {
  int fd = ::open(paths.Events().c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("cannot open " + paths.Events(), errno);
  if (int err = WriteAllAndClose(fd, json_line + "\n"); err != 0) {
    return ErrnoStatus("cannot append to " + paths.Events(), err);
  }
  return Status::Ok();
}

std::string TaskEventLine(int64_t time_ms, const TaskEvent& event) {
  nlohmann::json e = {{"time_ms", time_ms},
                      {"task", event.task},
                      {"attempt", event.attempt},
                      {"state", core::TaskStateName(event.state)}};
  if (!event.address.empty()) e["address"] = event.address;
  if (event.exit_code) e["exit_code"] = *event.exit_code;
  if (event.signal > 0) e["signal"] = event.signal;
  if (!event.reason.empty()) e["reason"] = event.reason;
  if (core::IsTerminal(event.state)) {
    if (std::string exit = core::DescribeExit(event.exit_code, event.signal); !exit.empty()) {
      e["exit"] = exit;
    }
    e["history_status"] = core::TonyHistoryStatus(event.state);
  }
  return e.dump();
}

std::string JobEndLine(int64_t time_ms, rpc::FinalStatus status, const std::string& message) {
  nlohmann::json e = {
      {"time_ms", time_ms}, {"job", rpc::FinalStatus_Name(status)}, {"message", message}};
  return e.dump();
}

Result<std::string> ResolveJobDir(const std::string& id_or_path) {
  if (id_or_path.empty() || id_or_path == "." || id_or_path == "..") {
    return InvalidArgument("'" + id_or_path + "' is not a job id (tony status lists the jobs)");
  }
  if (id_or_path.find('/') != std::string::npos) {
    // A path must be a job directory, not any directory ("/", a jobs root).
    if (IsDirectory(id_or_path) &&
        (PathExists(id_or_path + "/tony-final.xml") || PathExists(id_or_path + "/status.json"))) {
      return AbsolutePath(id_or_path);
    }
    return NotFound("no job directory " + id_or_path);
  }
  TONY_RETURN_IF_ERROR(CheckJobRecordsReadable());
  std::string exact = JobsRoot() + "/" + id_or_path;
  if (IsDirectory(exact)) return exact;
  std::vector<std::string> matches;
  for (const auto& id : JobIdsUnder(JobsRoot())) {
    if (StartsWith(id, id_or_path)) matches.push_back(id);
  }
  if (matches.size() == 1) return JobsRoot() + "/" + matches[0];
  if (matches.empty()) return NotFound("no job " + id_or_path + " under " + JobsRoot());
  return InvalidArgument("job id " + id_or_path + " is ambiguous: " + Join(matches, ", "));
}

Result<std::vector<std::string>> ListJobIds() {
  TONY_RETURN_IF_ERROR(CheckJobRecordsReadable());
  return JobIdsUnder(JobsRoot());
}

}  // namespace tony::history
