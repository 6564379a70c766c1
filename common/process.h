// Child processes: spawning with full control of groups, sessions and output files, and finding
// every process that belongs to a session so that nothing a job started is left behind.
//
// Spawn() uses fork+exec and only async-signal-safe calls between them, so it is safe to call from
// a multi-threaded daemon. Call it from a thread that lives as long as the child should: Linux's
// parent-death signal fires when the *thread* that forked exits.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace tony {

using EnvMap = std::map<std::string, std::string>;

enum class ProcessGroupMode {
  kInherit,     // stay in the caller's process group
  kNewGroup,    // setpgid(0, 0): a group of its own, same session
  kNewSession,  // setsid(): a session and a group of its own
};

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH when it has no '/'
  EnvMap env;                     // the child's whole environment
  std::string cwd;                // empty: the caller's
  std::string stdout_path;        // empty: inherit; otherwise opened for append
  std::string stderr_path;        // empty: inherit; same path as stdout shares one file
  std::string stdin_path = "/dev/null";
  // When set, the child's stdin is a pipe holding exactly these bytes (then EOF), instead of
  // stdin_path: how tony hands a secret to a child without an environment variable, argument or
  // file (at most 64 KiB, a pipe's buffer).
  std::string stdin_data;
  ProcessGroupMode group = ProcessGroupMode::kInherit;
  int parent_death_signal = 0;  // e.g. SIGTERM; 0: none
};

Result<pid_t> Spawn(const SpawnOptions& options);

// The environment of this process as a map.
EnvMap CurrentEnvironment();

// Decodes a wait status: the exit code, or 128 + signal number as shells report it.
int ExitCodeFromWaitStatus(int wait_status);
std::string DescribeWaitStatus(int wait_status);

bool ProcessAlive(pid_t pid);
// Waits up to `timeout_ms` for the exit of child `pid` (on a pidfd: no polling) and reaps it.
// Returns its wait status once it has exited, nullopt when it is still running.
std::optional<int> AwaitChildExit(pid_t pid, int timeout_ms);
// Sends `sig` to every process in group `pgid`; a group that is already gone is not an error.
void SignalGroup(pid_t pgid, int sig);
// The resident memory (RSS, /proc/<pid>/statm) of every live descendant of `root`, summed, in
// bytes; `root` itself is left out. Processes that end while they are read count as 0.
int64_t DescendantsRssBytes(pid_t root);

// Every live process whose session id is `sid` (read from /proc/<pid>/stat).
std::vector<pid_t> ProcessesInSession(pid_t sid);
// SIGKILLs every process of session `sid` (repeats until none is left, at most ~1 s).
void KillSession(pid_t sid);
// PR_SET_DUMPABLE=0: other processes of the same user can no longer read this one's
// /proc/<pid>/environ, mem, fd/ or attach to it (tony's processes hold the job secret). Reset by
// execve, so the user's processes are unaffected.
Status MakeNonDumpable();
// Reads the secret a parent handed over on `fd` (SpawnOptions::stdin_data) to EOF, trimmed, then
// puts /dev/null in its place. Refuses an empty secret or one over 4 KiB.
Result<std::string> ReadSecretFromFd(int fd);
// The variable that tells a tony process which fd holds its job secret ("0": stdin).
inline constexpr char kSecretFdEnv[] = "TONY_SECRET_FD";
// The variable that tells a local coordinator which fd to write its address to ("host:port\n")
// once it listens; the submitting client waits on the pipe's other end.
inline constexpr char kReadyFdEnv[] = "TONY_READY_FD";

// PR_SET_CHILD_SUBREAPER: descendants orphaned below this process (a daemon that left its session
// with setsid, a double fork) are reparented to it rather than to init, so KillDescendants()
// can find them.
Status BecomeChildSubreaper();
// SIGKILLs every child of this process and reaps it, round after round until none is left (a
// subreaper's orphaned grandchildren become its children as their parents die). Blocks only on
// the reaping of processes it has just killed.
void KillDescendants();

// The command line of a live process, NUL separators replaced by spaces; empty if gone.
std::string ProcessCommandLine(pid_t pid);
// Names one process for good: this boot's id and the process's start time (clock ticks after
// boot, /proc/<pid>/stat field 22), so a recorded pid that was reused is told apart. Empty when
// `pid` is not running (or is a zombie).
std::string ProcessStartId(pid_t pid);

}  // namespace tony
