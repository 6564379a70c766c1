// The events of a TonY .jhist file (history/tony_history.h: an Avro object container of TonY's
// com.linkedin.tony.events.Event), read with Avro C against the file's own writer schema, as
// timeline rows (portal/job_records.h JobEvent): an application's events with "job" set to the
// event's type (APPLICATION_INITED, APPLICATION_FINISHED), a task's with "task" (taskType:index)
// and "state" (STARTED, or TASK_FINISHED's status); the event's other fields follow by name.
// Thread-safety: a plain function; each call has its own reader.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "portal/job_records.h"

namespace tony::portal {

// The events readable in `path`. A .jhist.inprogress whose last block is still being written
// ends at the last whole event. An error names the file when it is not an Avro container at all.
Result<std::vector<JobEvent>> ReadJhistEvents(const std::string& path);

}  // namespace tony::portal
