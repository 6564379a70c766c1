// The portal's pages and its JSON, rendered from the job records (portal/job_records.h) as plain
// HTML that works without JavaScript. TonY's portal routes: `/` the jobs list, `/jobs/<id>` a
// job, `/config/<id>` its configuration, `/logs/<id>` its logs; `/api/jobs` the list as JSON
// (docs/status-json.md, "The portal").
// Thread-safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "portal/job_records.h"

namespace tony::portal {

// The jobs list, filtered by `query` (Matches); a running job's row updates on reload.
std::string JobsPage(const std::vector<JobSummary>& jobs, const std::string& query, int64_t now_ms);
// {"jobs": [...]}: the list's columns (docs/status-json.md, "The portal").
std::string JobsJson(const std::vector<JobSummary>& jobs, int64_t now_ms);
// A job: its summary, tasks (state, attempts, host, exit, log links) and event timeline. A running
// job's page reloads itself every `refresh_s` seconds.
std::string JobPage(const JobRecord& job, int64_t now_ms, int refresh_s);
std::string ConfigPage(const JobRecord& job);
// The job's log files as links, or (with `task`) one file's last `content` bytes.
std::string LogsPage(const JobRecord& job);
std::string LogPage(const JobRecord& job, const std::string& task, int attempt,
                    const std::string& stream, const std::string& content);
std::string NotFoundPage(const std::string& what);

}  // namespace tony::portal
