#include "common/task_state.h"

#include <csignal>

namespace tony::core {
namespace {

constexpr TaskState kAll[] = {TaskState::kNew,     TaskState::kAllocated, TaskState::kRegistered,
                              TaskState::kRunning, TaskState::kStalled,   TaskState::kSucceeded,
                              TaskState::kFailed,  TaskState::kStopped,   TaskState::kNotStarted,
                              TaskState::kLost};

}  // namespace

const char* TaskStateName(TaskState s) {
  switch (s) {
    case TaskState::kNew:
      return "NEW";
    case TaskState::kAllocated:
      return "ALLOCATED";
    case TaskState::kRegistered:
      return "REGISTERED";
    case TaskState::kRunning:
      return "RUNNING";
    case TaskState::kStalled:
      return "STALLED";
    case TaskState::kSucceeded:
      return "SUCCEEDED";
    case TaskState::kFailed:
      return "FAILED";
    case TaskState::kStopped:
      return "STOPPED";
    case TaskState::kNotStarted:
      return "NOT_STARTED";
    case TaskState::kLost:
      return "LOST";
  }
  return "UNKNOWN";
}

std::optional<TaskState> ParseTaskState(std::string_view name) {
  for (TaskState s : kAll) {
    if (name == TaskStateName(s)) return s;
  }
  return std::nullopt;
}

bool IsTerminal(TaskState s) { return StateRank(s) > StateRank(TaskState::kRunning); }

bool IsRunning(TaskState s) { return s == TaskState::kRunning || s == TaskState::kStalled; }

bool IsFailure(TaskState s) { return s == TaskState::kFailed || s == TaskState::kLost; }

int StateRank(TaskState s) {
  switch (s) {
    case TaskState::kNew:
      return 0;
    case TaskState::kAllocated:
      return 1;
    case TaskState::kRegistered:
      return 2;
    case TaskState::kRunning:
    case TaskState::kStalled:
      return 3;
    default:
      return 4;
  }
}

const char* TonyHistoryStatus(TaskState s) {
  switch (s) {
    case TaskState::kNew:
      return "NEW";
    case TaskState::kAllocated:
    case TaskState::kRegistered:
      return "READY";
    case TaskState::kRunning:
    case TaskState::kStalled:
      return "RUNNING";
    case TaskState::kSucceeded:
      return "SUCCEEDED";
    case TaskState::kFailed:
    case TaskState::kLost:
      return "FAILED";
    case TaskState::kStopped:
    case TaskState::kNotStarted:
      return "KILLED";
  }
  return "FAILED";
}

std::string SignalName(int signal) {
  switch (signal) {
    case SIGHUP:
      return "SIGHUP";
    case SIGINT:
      return "SIGINT";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGILL:
      return "SIGILL";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGKILL:
      return "SIGKILL";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGALRM:
      return "SIGALRM";
    case SIGTERM:
      return "SIGTERM";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGXFSZ:
      return "SIGXFSZ";
    case SIGSYS:
      return "SIGSYS";
    default:
      return "SIG" + std::to_string(signal);
  }
}

std::string DescribeExit(std::optional<int> exit_code, int signal) {
  if (signal > 0) return "signal " + std::to_string(signal) + " (" + SignalName(signal) + ")";
  if (exit_code) return "exit " + std::to_string(*exit_code);
  return "";
}

}  // namespace tony::core
