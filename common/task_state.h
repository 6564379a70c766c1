// Task states: the one model every view shows (README "Task states", docs/architecture.md §5.1).
//
//   live:     NEW -> ALLOCATED -> REGISTERED -> RUNNING          (only forward)
//             RUNNING <-> STALLED  no output and no progress for tony.<role>.stall-timeout-ms,
//                                  while its process lives; back to RUNNING when it makes some
//   terminal: SUCCEEDED    the user process exited 0
//             FAILED       it ended by itself: "exit 3", "signal 9 (SIGKILL)", or failed to launch
//             STOPPED      tony stopped it after its user process could run, for a reason
//             NOT_STARTED  the job ended, or tony stopped it, before its user process ran
//             LOST         no exit is known (heartbeat lost, the container vanished unreported)
//
// A terminal state never changes. TonY's history has three names; TonyHistoryStatus maps ours.
// It lives in common/ so that the coordinator's core and the client's views share it without the
// client depending on the coordinator; it keeps the core's namespace, whose state machine owns it.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tony::core {

enum class TaskState {
  kNew,         // no container yet
  kAllocated,   // container allocated; executor being launched (TonY: READY)
  kRegistered,  // executor registered host:port; waiting for the cluster spec
  kRunning,     // cluster spec released to it; its executor starts the user process
  kStalled,     // running, but no output and no progress for its role's stall timeout
  kSucceeded,
  kFailed,
  kStopped,
  kNotStarted,
  kLost,
};

const char* TaskStateName(TaskState s);
// The state named `name` (as TaskStateName writes it); nullopt for any other text.
std::optional<TaskState> ParseTaskState(std::string_view name);
bool IsTerminal(TaskState s);
// FAILED or LOST: the outcomes that count against the job.
bool IsFailure(TaskState s);
// RUNNING or STALLED: its user process runs.
bool IsRunning(TaskState s);
// Live states in the order a task passes them (STALLED ranks with RUNNING); every terminal state
// ranks above them all.
int StateRank(TaskState s);

// TonY's history names (its jhist files and portal): SUCCEEDED; FAILED for FAILED and LOST;
// KILLED for STOPPED and NOT_STARTED. A live task is "RUNNING" (STALLED too) (ALLOCATED and
// REGISTERED are TonY's READY, "NEW" stays NEW).
const char* TonyHistoryStatus(TaskState s);

// "SIGKILL" for 9; "SIG<n>" when the name is unknown.
std::string SignalName(int signal);
// How a user process ended, in the words every view uses: "exit 3", "signal 9 (SIGKILL)"; empty
// when nothing is known (the process never ran, or no report came).
std::string DescribeExit(std::optional<int> exit_code, int signal);

// Why a task's container ended, in the terms the job's logic needs, whatever the engine: each
// engine maps its own codes to it (YARN's container exit statuses: engine/yarn/container_exit.h).
enum class ContainerExitReason {
  kExited,                // its process ended (the exit code says how), or nothing more is known
  kStoppedByCoordinator,  // stopped on the coordinator's request, or released before its launch
  kPreempted,             // the cluster took it back for other work
  kNodeLost,              // its node was lost (the cluster aborted it)
  kDisksFailed,           // its node's disks failed
  kMemoryExceeded,        // killed for exceeding its memory limit
};
// Preempted, node lost, disks failed: the cluster took the container back, not the task's fault.
inline bool TakenBackByCluster(ContainerExitReason reason) {
  return reason == ContainerExitReason::kPreempted || reason == ContainerExitReason::kNodeLost ||
         reason == ContainerExitReason::kDisksFailed;
}

}  // namespace tony::core
