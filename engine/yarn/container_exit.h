// YARN's container exit statuses (docs/hadoop-ipc.md §4.2) in the engine-neutral terms the
// coordinator's core sees (core::ContainerExitReason, common/task_state.h), with the words users
// read for each: the YARN engine reports every completed container through them.
// Thread-safety: plain functions.
#pragma once

#include <string>

#include "common/task_state.h"

namespace tony::engine {

inline constexpr int kYarnAborted = -100;            // ABORTED: released, or its node was lost
inline constexpr int kYarnDisksFailed = -101;        // DISKS_FAILED
inline constexpr int kYarnPreempted = -102;          // PREEMPTED
inline constexpr int kYarnVirtualMemory = -103;      // KILLED_EXCEEDED_VMEM
inline constexpr int kYarnPhysicalMemory = -104;     // KILLED_EXCEEDED_PMEM
inline constexpr int kYarnKilledByAppMaster = -105;  // KILLED_BY_APPMASTER: tony's stop

// The reason for a container exit status: kExited for a process's own exit code and for every
// status that says nothing the job's logic acts on.
core::ContainerExitReason YarnExitReason(int exit_status);
// The words for a status whose reason is preempted, node lost, disks failed or memory exceeded
// ("preempted by YARN (container exit status -102)"); empty for any other.
std::string YarnExitWords(int exit_status);

}  // namespace tony::engine
