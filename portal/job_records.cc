#include "portal/job_records.h"

#include <pwd.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/files.h"
#include "common/process.h"
#include "common/strings.h"
#include "config/configuration.h"
#include "config/key_names.h"
#include "history/job_dir.h"
#include "history/tony_history.h"
#include "portal/jhist.h"

namespace tony::portal {
namespace {

namespace fs = std::filesystem;

// The names of `dir`'s sub-directories (`dirs`) or other entries, sorted; none when it cannot be
// read.
std::vector<std::string> Entries(const std::string& dir, bool dirs) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_directory(type_ec) == dirs) out.push_back(it->path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> SubDirs(const std::string& dir) { return Entries(dir, true); }

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

// Name, framework and queue from tony-final.xml, and its keys for the config page.
void ReadConfig(const std::string& file, JobSummary& summary,
                std::vector<std::pair<std::string, std::string>>* config) {
  Configuration conf;
  if (!conf.AddFile(file).ok()) return;
  summary.name = conf.GetOr(keys::kApplicationName, summary.name);
  summary.framework = conf.GetOr(keys::kApplicationFramework, summary.framework);
  summary.queue = conf.GetOr(keys::kYarnQueue, summary.queue);
  if (config == nullptr) return;
  for (const auto& [key, value] : conf.entries()) config->emplace_back(key, value.value);
}

void ApplyStatus(const rpc::JobStatus& status, JobSummary& summary) {
  summary.running = status.phase() != rpc::FINISHED;
  summary.state = summary.running ? rpc::JobPhase_Name(status.phase())
                                  : rpc::FinalStatus_Name(status.final_status());
  summary.message = FirstLine(status.message());
  if (!status.framework().empty()) summary.framework = status.framework();
  summary.start_ms = status.start_wall_ms();
  summary.end_ms = status.end_wall_ms();
  summary.tasks = status.tasks_size();
}

// A local job whose record says it runs but whose coordinator is gone (kill -9, a crash) is shown
// as UNKNOWN, not RUNNING forever; the portal only reads, `tony status <id>` records the end.
void CheckCoordinator(const history::JobPaths& paths, JobSummary& summary) {
  auto am = history::ReadAmInfo(paths);
  if (!am.ok() || am->start_id.empty() || ProcessStartId(am->pid) == am->start_id) return;
  summary.running = false;
  summary.state = "UNKNOWN";
  summary.message = "its coordinator (pid " + std::to_string(am->pid) +
                    ") is gone without recording the job's end; `tony status " + summary.id +
                    "` records it";
}

JobSummary LocalSummary(const std::string& root, const std::string& id,
                        std::optional<rpc::JobStatus>* status_out,
                        std::vector<std::pair<std::string, std::string>>* config) {
  history::JobPaths paths(root + "/" + id);
  JobSummary summary;
  summary.id = id;
  summary.dir = paths.root;
  struct stat st {};
  if (::stat(paths.root.c_str(), &st) == 0) {
    summary.start_ms = static_cast<int64_t>(st.st_mtime) * 1000;  // until status.json says
    if (const passwd* pw = ::getpwuid(st.st_uid)) summary.user = pw->pw_name;
  }
  ReadConfig(paths.FinalConf(), summary, config);
  if (auto status = history::ReadJobStatus(paths); status.ok()) {
    ApplyStatus(*status, summary);
    if (summary.running && status->engine() == "local") CheckCoordinator(paths, summary);
    if (status_out != nullptr) *status_out = std::move(*status);
  }
  return summary;
}

// A TonY-layout app dir's summary from its .jhist's name (history/tony_history.h):
// <appId>-<started>-<user>.jhist.inprogress or <appId>-<started>-<completed>-<user>-<STATUS>.jhist.
std::optional<JobSummary> HistorySummary(const std::string& dir, const std::string& app_id) {
  for (const auto& file : Entries(dir, false)) {
    bool in_progress = EndsWith(file, ".jhist.inprogress");
    if (!in_progress && !EndsWith(file, ".jhist")) continue;
    std::string stem = file.substr(0, file.find(".jhist"));
    std::vector<std::string> parts = SplitTrimmed(stem, '-');
    if (parts.size() != (in_progress ? 3u : 5u) || parts[0] != app_id) continue;
    JobSummary summary;
    summary.id = app_id;
    summary.dir = dir;
    summary.jhist = dir + "/" + file;
    summary.start_ms = ParseInt64(parts[1]).value_or(0);
    summary.running = in_progress;
    summary.state = in_progress ? "RUNNING" : parts[4];
    summary.user = in_progress ? parts[2] : parts[3];
    if (!in_progress) summary.end_ms = ParseInt64(parts[2]).value_or(0);
    ReadConfig(dir + "/tony-final.xml", summary, nullptr);
    return summary;
  }
  return std::nullopt;
}

// The app dirs of a TonY-layout location: intermediate/<appId>, finished/yyyy/MM/dd/<appId>.
std::vector<std::pair<std::string, std::string>> HistoryAppDirs(const std::string& location) {
  std::vector<std::pair<std::string, std::string>> out;  // app id, its dir
  std::string intermediate = location + "/intermediate";
  for (const auto& app : SubDirs(intermediate)) out.emplace_back(app, intermediate + "/" + app);
  std::string finished = location + "/finished";
  for (const auto& y : SubDirs(finished)) {
    for (const auto& m : SubDirs(finished + "/" + y)) {
      for (const auto& d : SubDirs(finished + "/" + y + "/" + m)) {
        std::string day = finished + "/" + y + "/" + m + "/" + d;
        for (const auto& app : SubDirs(day)) out.emplace_back(app, day + "/" + app);
      }
    }
  }
  return out;
}

std::vector<std::string> LocalIds(const PortalSources& sources) {
  std::vector<std::string> ids;
  for (const auto& id : SubDirs(sources.jobs_root)) {
    if (PathExists(sources.jobs_root + "/" + id + "/tony-final.xml") ||
        PathExists(sources.jobs_root + "/" + id + "/status.json")) {
      ids.push_back(id);
    }
  }
  return ids;
}

std::vector<JobEvent> ReadEvents(const std::string& path) {
  std::vector<JobEvent> events;
  auto text = ReadFile(path);
  if (!text.ok()) return events;
  for (const auto& line : SplitTrimmed(*text, '\n')) {
    auto json = nlohmann::json::parse(line, nullptr, false);
    if (!json.is_object()) continue;
    JobEvent event;
    for (const auto& [key, value] : json.items()) {
      if (key == "time_ms" && value.is_number_integer()) {
        event.time_ms = value.get<int64_t>();
      } else {
        event.fields.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
      }
    }
    events.push_back(std::move(event));
  }
  return events;
}

}  // namespace

std::vector<JobSummary> ListJobs(const PortalSources& sources) {
  std::vector<JobSummary> jobs;
  std::vector<std::string> local_app_ids;
  for (const auto& id : LocalIds(sources)) {
    jobs.push_back(LocalSummary(sources.jobs_root, id, nullptr, nullptr));
    local_app_ids.push_back(history::HistoryAppId(id));
  }
  if (!sources.history.empty()) {
    for (const auto& [app_id, dir] : HistoryAppDirs(sources.history)) {
      if (std::find(local_app_ids.begin(), local_app_ids.end(), app_id) != local_app_ids.end()) {
        continue;
      }
      if (auto summary = HistorySummary(dir, app_id)) jobs.push_back(std::move(*summary));
    }
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const JobSummary& a, const JobSummary& b) {
    return a.start_ms > b.start_ms;
  });
  return jobs;
}

Result<JobRecord> ReadJob(const PortalSources& sources, const std::string& id) {
  JobRecord job;
  std::vector<std::string> local = LocalIds(sources);
  if (std::find(local.begin(), local.end(), id) != local.end()) {
    job.summary = LocalSummary(sources.jobs_root, id, &job.status, &job.config);
    history::JobPaths paths(job.summary.dir);
    job.config_file = paths.FinalConf();
    job.events = ReadEvents(paths.Events());
    if (PathExists(paths.AmLog())) job.am_log = paths.AmLog();
    return job;
  }
  if (!sources.history.empty()) {
    for (const auto& [app_id, dir] : HistoryAppDirs(sources.history)) {
      if (app_id != id) continue;
      auto summary = HistorySummary(dir, app_id);
      if (!summary) continue;
      job.summary = std::move(*summary);
      job.config_file = dir + "/tony-final.xml";
      ReadConfig(job.config_file, job.summary, &job.config);
      if (auto events = ReadJhistEvents(job.summary.jhist); events.ok()) {
        job.events = std::move(*events);
      }
      return job;
    }
  }
  return NotFound("no job " + id);
}

bool Matches(const JobSummary& summary, const std::string& query) {
  std::string haystack = ToLower(summary.id + " " + summary.name + " " + summary.user + " " +
                                 summary.framework + " " + summary.queue + " " + summary.state);
  for (const auto& word : SplitTrimmed(ToLower(query), ' ')) {
    if (!word.empty() && haystack.find(word) == std::string::npos) return false;
  }
  return true;
}

Result<std::string> LogFile(const JobRecord& job, const std::string& task, int attempt,
                            const std::string& stream) {
  if (task == "am") {
    if (job.am_log.empty()) return NotFound("job " + job.summary.id + " has no coordinator log");
    return job.am_log;
  }
  bool known_stream =
      std::find(std::begin(kLogStreams), std::end(kLogStreams), stream) != std::end(kLogStreams);
  if (!job.status || !known_stream) return NotFound("no log " + task + " " + stream);
  for (const auto& t : job.status->tasks()) {
    if (t.role() + ":" + std::to_string(t.index()) != task) continue;
    std::string dir = t.attempt() == attempt ? t.log_dir() : "";
    for (const auto& past : t.past_attempts()) {
      if (past.attempt() == attempt) dir = past.log_dir();
    }
    if (dir.empty()) break;
    return dir + "/" + stream;
  }
  return NotFound("job " + job.summary.id + " has no log " + stream + " of task " + task +
                  " attempt " + std::to_string(attempt));
}

}  // namespace tony::portal
