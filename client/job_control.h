// `tony status`, `tony kill` and `tony logs`: acting on a job by id, while it runs or after.
#pragma once

#include <string>

namespace tony::client {

// With an id: the job's task table and result. Without: one line per job under ~/.tony/jobs.
int ShowStatus(const std::string& id_or_path);
// Stops the job (its coordinator stops every task); forcibly if the coordinator does not answer.
int KillJob(const std::string& id_or_path);
// Prints a task's stdout and stderr ("role:index"), or the coordinator's log when task is empty.
// `attempt` < 0 means the latest.
int ShowLogs(const std::string& id_or_path, const std::string& task, int attempt,
             const std::string& stream);

}  // namespace tony::client
