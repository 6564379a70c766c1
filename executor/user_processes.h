// UserProcesses: the task's tony.<role>.nproc-per-task user processes (torchrun's local
// workers), each `bash -c <command>` in a process group of its own; local rank 0 writes
// stdout/stderr, rank i stdout.i/stderr.i. They are reaped on the loop's SIGCHLD; Stop() sends
// SIGTERM to every group and, after the grace period, SIGKILL (a LoopTimer, no sleep). As torchrun
// does, the failure of one stops the others. What touches the processes themselves (spawn,
// signal, reap) goes through a ProcessLauncher: OsProcessLauncher in the executor, a fake in the
// in-process tests (tests/unit/executor_task_run_test.cc).
//
// Thread-safety: the loop's thread only. Owned by the executor's TaskRun.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/process.h"
#include "common/status.h"
#include "config/job_spec.h"
#include "executor/event_loop.h"
#include "executor/task_identity.h"
#include "runtime/runtime.h"

namespace tony {

// How the task's processes ended, for the report (rpc ReportResultRequest).
struct ProcessesOutcome {
  int exit_code = 0;           // the first failed process's (128 + signal when killed), else 0
  int signal = 0;              // the signal that ended that process; 0 when it exited
  bool stopped = false;        // the executor stopped it on a request (the coordinator, a signal)
  int failed_local_rank = -1;  // the first local process that failed, if any
  std::string why;             // why the executor stopped them; empty when they ended by themselves
};

// The file a task's user code may touch to say it makes progress without output
// ($TONY_PROGRESS_FILE, README "Stalls"); set only for a role with a stall timeout.
std::string ProgressFile(const TaskIdentity& id);
// The task's live cluster spec ($TONY_CLUSTER_SPEC_FILE, README "Restarts"): JSON
// {"generation": n, "cluster": {"ps": ["h:1"], "worker": [...]}}, written before the user process
// starts and rewritten (atomically) when a peer restarted in task scope has a new address.
std::string ClusterSpecFile(const TaskIdentity& id);

// The spawn options of each local process (env, log files, group), in local-rank order. A role
// with a stall timeout gets the Python stacks hook (executor/python_stacks.h), TONY_PROGRESS_FILE
// and PYTHONUNBUFFERED=1 unless the job sets it.
Result<std::vector<SpawnOptions>> UserProcessOptions(const JobSpec& spec, const RoleSpec& role,
                                                     const TaskIdentity& id,
                                                     const runtime::Cluster& cluster,
                                                     const runtime::Published& published = {});

// The operating system's side of the task's processes.
class ProcessLauncher {
 public:
  virtual ~ProcessLauncher() = default;
  // Starts a process (common/process.h Spawn); its pid leads its own group.
  virtual Result<pid_t> Spawn(const SpawnOptions& options) = 0;
  virtual void SignalGroup(pid_t group, int sig) = 0;
  // The wait status of `pid` once it has ended (it is reaped then), else nullopt; never blocks.
  virtual std::optional<int> TryReap(pid_t pid) = 0;
  // Kills whatever the task left behind among the executor's descendants (KillDescendants).
  virtual void KillDescendants() = 0;
  // The resident memory of the executor's descendants (DescendantsRssBytes), for the metrics.
  virtual int64_t DescendantsRssBytes() = 0;
};

// The real one: fork+exec, kill(2) and waitpid(2) on this process's children.
class OsProcessLauncher final : public ProcessLauncher {
 public:
  Result<pid_t> Spawn(const SpawnOptions& options) override;
  void SignalGroup(pid_t group, int sig) override;
  std::optional<int> TryReap(pid_t pid) override;
  void KillDescendants() override;
  int64_t DescendantsRssBytes() override;
};

class UserProcesses {
 public:
  // `on_all_ended` runs (on the loop) once every process has been reaped. `launcher` must outlive
  // this.
  UserProcesses(TimeSource& time, ProcessLauncher& launcher, int64_t grace_ms,
                std::function<void()> on_all_ended);

  // Starts every process; on an error, those already started are killed.
  Status Start(const std::vector<SpawnOptions>& options);
  // Reaps what has exited (call on SIGCHLD).
  void Reap();
  // SIGTERM to every group, SIGKILL to what is left after the grace period. `by_request`: the
  // coordinator's stop or a signal to the executor (reported as `stopped`), as opposed to the
  // executor's own reasons (the execution timeout, a failed local process). Later calls only log.
  void Stop(const std::string& why, bool by_request);

  bool started() const { return !procs_.empty(); }
  // The process groups of the processes not yet reaped (each process leads its own).
  std::vector<pid_t> LiveGroups() const;
  bool stopping() const { return stop_sent_; }
  bool all_ended() const;
  ProcessesOutcome Outcome() const;
  // The stderr file of local process `rank`.
  const std::string& StderrPath(int rank) const {
    return procs_[static_cast<size_t>(rank)].stderr_path;
  }

 private:
  struct Process {
    pid_t pid = 0;
    std::string stderr_path;
    bool ended = false;
    int wait_status = 0;
    bool stopped_while_running = false;  // Stop(by_request) came before it ended
  };
  void SignalAll(int sig);

  ProcessLauncher& launcher_;
  int64_t grace_ms_;
  std::function<void()> on_all_ended_;
  std::vector<Process> procs_;
  LoopTimer kill_timer_;
  bool stop_sent_ = false;
  bool stop_by_request_ = false;
  int failed_rank_ = -1;
  std::string why_;
};

}  // namespace tony
