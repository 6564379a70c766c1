// Executor: the container side of a task (TonY's TaskExecutor), `tony executor`.
//
// In order: read the task's identity and the coordinator's address from the environment the
// engine gave it, and the job secret from a pipe (local engine) or the container's credentials
// (YARN; README, "The job secret"); load the job's configuration; unpack the staged src and venv
// archives into the working directory (executor/localize.h); reserve the task's port by binding it;
// register host:port; wait (long-poll) for the cluster spec; build the framework's environment;
// release the port and start the user command (`bash -c`) in a process group of its own with
// stdout/stderr in files; heartbeat while it runs; forward SIGTERM/SIGINT/SIGHUP to it (SIGKILL
// after a grace period); report the exit code, the signal that ended it and whether the executor
// stopped it, with the last lines of stderr (capped in lines and bytes); kill every descendant
// left (the executor is a child subreaper, so daemons that left the session are found too); exit
// with the user process's exit code. A stop before the user process starts exits 1 without
// starting it.
//
// If the coordinator answers no heartbeat for max-missed-heartbeats intervals, the executor
// kills its user process and exits (TonY #637/#638): a lost coordinator leaves nothing running.
//
// Threading: one event loop (executor/event_loop.h) runs everything from registration on
// (executor/task_run.h); gRPC's completion-queue thread (executor/control_plane.h) and the
// framework's readiness wait only post their results to it.
#pragma once

#include "common/status.h"

namespace tony {

// Runs the executor; returns the process exit code.
int RunExecutor();

}  // namespace tony
