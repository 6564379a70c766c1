// Python stacks of a task's processes, for a stalled task (README "Stalls").
//
// How: the executor puts a sitecustomize.py of its own first on the user processes' PYTHONPATH
// (PythonHookEnv). In every Python process it registers faulthandler for one real-time signal
// (StacksSignal), writing all threads' stacks to <dir>/<pid> (a forked child registers again, for
// its own file), and then runs the sitecustomize the process would have run without it.
// faulthandler answers in its C signal handler, without the GIL, so a process blocked in a
// collective or a deadlock still answers. Only processes whose
// /proc/<pid>/status says they catch that signal get it: bash, or a Python that ignored
// PYTHONPATH (-E, -I), would die of it.
//
// Not py-spy: it needs ptrace rights over the process (Yama's ptrace_scope 1, the common
// default, refuses them to a non-ancestor), and a wheel in every job's environment.
//
// Thread-safety: plain functions.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "common/process.h"
#include "common/status.h"

namespace tony {

// The signal the hook registers: SIGRTMAX - 3, which no framework we know of uses.
int StacksSignal();

// The hook's directory under the task's log dir, and the files it writes the stacks to.
std::string PythonHookDir(const std::string& log_dir);
std::string StacksDumpDir(const std::string& log_dir);

// Writes the hook (sitecustomize.py) and makes the dump directory.
Status WritePythonHook(const std::string& log_dir);

// Adds to `env` what the hook needs: PYTHONPATH (the hook first, then what it was),
// TONY_STACKS_DIR and TONY_STACKS_SIGNAL.
void PythonHookEnv(const std::string& log_dir, EnvMap& env);

// Whether the hex mask of /proc/<pid>/status's SigCgt line has signal `sig` (1-based) set.
bool MaskHasSignal(std::string_view hex_mask, int sig);

// The processes whose process group is one of `groups`, from /proc.
std::vector<pid_t> ProcessesInGroups(const std::vector<pid_t>& groups);

// Whether `pid` catches `sig` (its SigCgt); false when it is gone.
bool CatchesSignal(pid_t pid, int sig);

// Whether `pid` is stopped (SIGSTOP, SIGTSTP or a tracer): state T or t in /proc/<pid>/stat.
bool IsStopped(pid_t pid);

// "python train.py --lr 0.1", from /proc/<pid>/cmdline; empty when it is gone.
std::string CommandLine(pid_t pid);

// Where the main thread of a faulthandler dump is: "wait_for_peers at train.py:12" (the last
// thread listed is the oldest, the main thread; its first frame is the innermost); empty when
// the dump has no frame.
std::string InnermostMainFrame(std::string_view dump);

}  // namespace tony
