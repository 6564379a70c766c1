// What `tony portal` shows, read from disk at each request: the jobs the local engine leaves under
// $TONY_HOME/jobs (history/job_dir.h: status.json, events.jsonl, tony-final.xml, the task logs)
// and, when given, the jobs of a TonY-layout history location (history/tony_history.h:
// intermediate/<appId>/ and finished/yyyy/MM/dd/<appId>/, each with tony-final.xml and a .jhist
// named <appId>-<started>[-<completed>]-<user>[-<STATUS>].jhist[.inprogress]).
//
// The portal only reads: a job whose coordinator died shows what its record last said (`tony
// status <id>` records the end). A job is found only by an id the listing has, never by a path.
//
// Thread-safety: plain functions over the file system; the server calls them from its threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "rpc/tony.pb.h"

namespace tony::portal {

struct PortalSources {
  std::string jobs_root;  // $TONY_HOME/jobs (history::JobsRoot())
  std::string history;    // a TonY-layout history location on this machine; empty: none
};

// One row of the jobs list.
struct JobSummary {
  std::string id;  // the job id, or the app id of a job found only in the TonY history
  std::string name = "-";
  std::string user = "-";
  std::string framework = "-";
  std::string queue = "-";
  std::string state = "UNKNOWN";  // RUNNING, STOPPING, or the final status
  std::string message;            // its first line
  int64_t start_ms = 0;           // Unix ms; 0: unknown
  int64_t end_ms = 0;             // 0: not ended (or unknown)
  int tasks = -1;                 // -1: unknown
  std::string dir;                // the job dir, or the TonY history dir of the app
  std::string jhist;              // TonY layout only: the events file
  bool running = false;           // not ended as far as its record says
};

// One line of events.jsonl: its time and its fields but time_ms, in the file's order.
struct JobEvent {
  int64_t time_ms = 0;
  std::vector<std::pair<std::string, std::string>> fields;
};

struct JobRecord {
  JobSummary summary;
  std::optional<rpc::JobStatus> status;                     // a local job's status.json
  std::vector<std::pair<std::string, std::string>> config;  // tony-final.xml, by key
  std::string config_file;
  std::vector<JobEvent> events;
  std::string am_log;  // the coordinator's log; empty when it has none
};

// Every job of `sources`, newest first. A job of the TonY history that is also a local job (its
// app id is the local id's HistoryAppId) is listed once, as the local job.
std::vector<JobSummary> ListJobs(const PortalSources& sources);
// The job whose list id is `id`; NotFound naming it otherwise.
Result<JobRecord> ReadJob(const PortalSources& sources, const std::string& id);

// True when `summary` matches the jobs list's filter: every word of `query` is in one of its
// id, name, user, framework, queue or state (case-insensitive). An empty query matches all.
bool Matches(const JobSummary& summary, const std::string& query);

// The log files a job page links to: the coordinator's ("am") or a task's ("worker:0") attempt's
// stdout, stderr or executor.log. NotFound for anything the record does not name.
Result<std::string> LogFile(const JobRecord& job, const std::string& task, int attempt,
                            const std::string& stream);
inline constexpr const char* kLogStreams[] = {"stdout", "stderr", "executor.log"};

}  // namespace tony::portal
