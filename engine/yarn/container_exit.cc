#include "engine/yarn/container_exit.h"

namespace tony::engine {

core::ContainerExitReason YarnExitReason(int exit_status) {
  switch (exit_status) {
    case kYarnAborted:
      return core::ContainerExitReason::kNodeLost;
    case kYarnDisksFailed:
      return core::ContainerExitReason::kDisksFailed;
    case kYarnPreempted:
      return core::ContainerExitReason::kPreempted;
    case kYarnVirtualMemory:
    case kYarnPhysicalMemory:
      return core::ContainerExitReason::kMemoryExceeded;
    case kYarnKilledByAppMaster:
      return core::ContainerExitReason::kStoppedByCoordinator;
    default:
      return core::ContainerExitReason::kExited;
  }
}

std::string YarnExitWords(int exit_status) {
  switch (exit_status) {
    case kYarnPreempted:
      return "preempted by YARN (container exit status -102)";
    case kYarnAborted:
      return "YARN aborted its container: its node was lost (container exit status -100)";
    case kYarnDisksFailed:
      return "its node's disks failed (container exit status -101)";
    case kYarnPhysicalMemory:
      return "YARN killed its container for exceeding its physical memory limit (container exit "
             "status -104)";
    case kYarnVirtualMemory:
      return "YARN killed its container for exceeding its virtual memory limit (container exit "
             "status -103)";
    default:
      return "";
  }
}

}  // namespace tony::engine
