// `tony status` and `tony kill`: acting on a job by id, while it runs or after (`tony logs`:
// client/logs.h).
#pragma once

#include <string>

#include "common/status.h"
#include "history/job_dir.h"
#include "rpc/tony.pb.h"

namespace tony::client {

// With an id: the job's task table and result. Without: one line per job under $TONY_HOME/jobs
// (job, name, user, started, duration, state, message), by start time.
int ShowStatus(const std::string& id_or_path);
// Stops the job: SIGTERM to its coordinator, which stops every task; forcibly after 30 s.
int KillJob(const std::string& id_or_path);
// What the job's coordinator last wrote (status.json; rewritten at every change).
Result<rpc::JobStatus> CurrentJobStatus(const history::JobPaths& paths);

}  // namespace tony::client
