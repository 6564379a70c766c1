// A job's history in TonY's layout, so that TonY's portal, Dr. Elephant and anything reading
// TonY's event classes read tony's jobs too. Under tony.history.location:
//
//   intermediate/<appId>/                         while the job runs
//     tony-final.xml                              the configuration as run
//     <appId>-<startedMs>-<user>.jhist.inprogress   Avro events, flushed after each one
//   finished/yyyy/MM/dd/<appId>/                  after it ended (date in the end's time zone)
//     tony-final.xml
//     <appId>-<startedMs>-<completedMs>-<user>-<STATUS>.jhist
//
// The events file is an Avro object-container file written with Avro C (libavro) in TonY's
// schema (kEventSchema): record Event{type, event: union of ApplicationInited, ApplicationFinished,
// TaskStarted, TaskFinished, timestamp}. Each event is flushed as its own block, so a reader of the
// .inprogress file sees every event written so far.
//
// A location on the coordinator's machine (a plain path or file://) is written in place. On YARN
// a location on the cluster's HDFS is written through a HistoryFs (history/history_fs.h): the
// events file is written under a local scratch dir as above, and every step is mirrored to HDFS
// off the coordinator's loop (the directories, tony-final.xml, each event's bytes appended, the
// renames at the end), so TonY's readers see the same layout there, growing as the job runs.
// Any other location is an error that names it (the job runs on without its history).
//
// Thread-safety: none; the coordinator calls it on its loop.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/status.h"
#include "config/job_spec.h"
#include "history/history_fs.h"

namespace tony::history {

struct TonyHistoryOptions {
  std::string intermediate;      // tony.history.intermediate, else <location>/intermediate
  std::string finished;          // tony.history.finished, else <location>/finished
  std::string timezone = "UTC";  // tony.history.finished-dir-timezone
  std::string app_id;            // HistoryAppId(job id): no '-', which TonY's readers split on
  std::string user;
  std::string host;          // where the coordinator runs (ApplicationInited.host)
  std::string container_id;  // the coordinator's container; "" (null) on the local engine
  std::string final_conf;    // the tony-final.xml to copy next to the events
  // Set: intermediate and finished are paths of this file system, and the events file is written
  // under `scratch` (a local dir) and mirrored there.
  std::shared_ptr<HistoryFs> fs;
  std::string scratch;
  int64_t finish_timeout_ms = 60'000;  // how long Finish waits for `fs` to take the rest
  // Set by the engine when the location cannot be written (why, naming the key): Start fails with
  // it.
  std::string error;
};

// The job id as TonY's history names it. TonY's readers split the file name on '-' (appId,
// started, [completed,] user, [status]): YARN's application ids have none; a local job id
// (tony-20260101-120000-a1b2c3) has its '-' turned into '_' (tony_20260101_120000_a1b2c3).
std::string HistoryAppId(const std::string& job_id);

// What the job's spec asks for (JobSpec::history_*, from tony.history.*): nullopt when
// tony.history.location is unset, empty or TonY's placeholder. The ids, user, host and conf path
// are the caller's to fill in.
std::optional<TonyHistoryOptions> TonyHistoryOptionsFrom(const JobSpec& spec);

// The user a job's history is written as: $USER, else the effective uid's name, else its number.
std::string HistoryUser();

// yyyy/MM/dd of `wall_ms` in `timezone` (an IANA name such as UTC or America/Los_Angeles). An
// error naming the key for a zone this machine does not know.
Result<std::string> FinishedDatePath(int64_t wall_ms, const std::string& timezone);

struct HistoryMetric {
  std::string name;
  double value = 0;
};

class TonyHistoryWriter {
 public:
  // Makes intermediate/<appId>/ (0770, as TonY's), copies tony-final.xml there and opens the
  // .inprogress events file. Errors name the path and the reason.
  static Result<std::unique_ptr<TonyHistoryWriter>> Start(TonyHistoryOptions options,
                                                          int64_t started_ms);
  ~TonyHistoryWriter();
  TonyHistoryWriter(const TonyHistoryWriter&) = delete;
  TonyHistoryWriter& operator=(const TonyHistoryWriter&) = delete;

  // Each appends one event and flushes it to the file.
  Status ApplicationInited(int num_tasks, int64_t timestamp_ms);
  Status TaskStarted(const std::string& task_type, int task_index, const std::string& host,
                     const std::string& container_id, int64_t timestamp_ms);
  Status TaskFinished(const std::string& task_type, int task_index, const std::string& status,
                      const std::vector<HistoryMetric>& metrics,
                      const std::string& container_diagnostic, int64_t timestamp_ms);
  Status ApplicationFinished(int finished_tasks, int failed_tasks,
                             const std::vector<HistoryMetric>& metrics, int64_t timestamp_ms);

  // Closes the events file, renames it to its final name with `completed_ms` and `status`
  // (SUCCEEDED, FAILED, KILLED) and moves the job's directory to finished/yyyy/MM/dd/<appId>/.
  // Returns the final .jhist path. Called once; later events are errors.
  Result<std::string> Finish(int64_t completed_ms, const std::string& status);

  // Where the job's directory and events are, as a user would look for them (on `fs`, prefixed
  // with its Describe(), when set).
  std::string job_dir() const;
  std::string events_path() const;

 private:
  struct Avro;
  TonyHistoryWriter(TonyHistoryOptions options, int64_t started_ms);
  Status Open();
  Status StartMirror();
  // Queues the events file's bytes written since the last call (mirror only).
  Status MirrorNewBytes();
  Result<std::string> FinishMirror(int64_t completed_ms, const std::string& name);
  // Appends the Event whose union branch `branch` was filled by `fill`.
  template <typename Fill>
  Status Append(int branch, int64_t timestamp_ms, Fill&& fill);

  TonyHistoryOptions options_;
  int64_t started_ms_;
  std::string job_dir_;       // intermediate/<appId> (on fs when set)
  std::string events_path_;   // the .inprogress file (on fs when set)
  std::string local_events_;  // the file the events are written to: events_path_ or a scratch copy
  std::unique_ptr<Avro> avro_;
  std::unique_ptr<HistoryMirror> mirror_;
  int64_t mirrored_bytes_ = 0;
};

}  // namespace tony::history
