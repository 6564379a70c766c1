// Ending a job's record without its coordinator: when the coordinator died (kill -9, a crash),
// was forced down (a second Ctrl-C), or the ResourceManager reports a YARN application ended that
// no client followed to its end. The record then is as consistent as one the coordinator writes:
// the job FINISHED with its final status and message, end_wall_ms set, every task in a terminal
// state (README "Task states"), status.json rewritten, and events.jsonl given one line per task
// ended here and the job line.
//
// Thread-safety: none needed (plain functions over the job dir).
#pragma once

#include <string>

#include "history/job_dir.h"
#include "rpc/tony.pb.h"

namespace tony::client {

// What becomes of the tasks that had not ended.
enum class UnendedTasks {
  kLost,    // nobody knows how they ended: LOST
  kStopped  // tony stopped them without waiting: STOPPED (NOT_STARTED before RUNNING)
};

// Ends `status` (a copy of the last record) and writes it; `why` is each ended task's reason.
// Returns the record as written; a write that fails (a full disk, a removed job dir) is a warning
// on stderr naming the file and the reason.
rpc::JobStatus RecordJobEnd(const history::JobPaths& paths, rpc::JobStatus status,
                            rpc::FinalStatus final_status, const std::string& message,
                            UnendedTasks unended, const std::string& why);

}  // namespace tony::client
