// The job page's charts, drawn here as inline SVG (no script, nothing loaded from elsewhere): each
// task's memory as its executor measured it (status.json's metrics, README "Task metrics":
// MAX_MEMORY_BYTES and AVG_MEMORY_BYTES of the current attempt) against its role's memory limit
// (tony.<role>.memory of the configuration as run). Every bar carries its task and value as
// data-task / data-value attributes, and a <title> a browser shows on hover.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "portal/job_records.h"

namespace tony::portal {

// The "Memory" section of a job page; empty when no task has reported a metric yet.
std::string MemoryChart(const JobRecord& job);

// The "Start-up" section: where the time went from the coordinator's start (status.json's
// start_wall_ms) until every task's first attempt was ALLOCATED (its container), REGISTERED (its
// executor) and RUNNING (its user process), from events.jsonl, as one bar of those three stages
// (data-stage, data-ms on each). Empty until every task's first attempt reached ALLOCATED.
std::string StartupChart(const JobRecord& job);

}  // namespace tony::portal
