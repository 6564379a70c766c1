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
// Stops the job (its coordinator stops every task); forcibly if the coordinator does not answer.
int KillJob(const std::string& id_or_path);
// The live status from the job's coordinator if it runs, else what it last wrote (status.json).
Result<rpc::JobStatus> CurrentJobStatus(const history::JobPaths& paths);

}  // namespace tony::client
