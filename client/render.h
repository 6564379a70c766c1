// How a job's status looks on a terminal: the per-task table and the closing summary.
#pragma once

#include <string>

#include "rpc/tony.pb.h"

namespace tony::client {

// ROLE INDEX STATE HOST:PORT EXIT LOG, tasks in role then index order.
std::string RenderTaskTable(const rpc::JobStatus& status);
// "job <id> SUCCEEDED" / "job <id> FAILED: <message>" plus the failed tasks' diagnostics.
std::string RenderSummary(const rpc::JobStatus& status);
bool IsFinished(const rpc::JobStatus& status);
bool Succeeded(const rpc::JobStatus& status);

}  // namespace tony::client
