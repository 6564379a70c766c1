#include "executor/user_processes.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "common/files.h"
#include "common/log.h"
#include "executor/python_stacks.h"

namespace tony {

std::string ProgressFile(const TaskIdentity& id) { return JoinPath(id.log_dir, "progress"); }

std::string ClusterSpecFile(const TaskIdentity& id) {
  return JoinPath(id.log_dir, "cluster-spec.json");
}

Result<std::vector<SpawnOptions>> UserProcessOptions(const JobSpec& spec, const RoleSpec& role,
                                                     const TaskIdentity& id,
                                                     const runtime::Cluster& cluster,
                                                     const runtime::Published& published) {
  int nproc = std::max(1, role.nproc_per_task);
  std::vector<SpawnOptions> options;
  for (int i = 0; i < nproc; ++i) {
    TONY_ASSIGN_OR_RETURN(EnvMap env, BuildUserEnv(spec, id, cluster, i, published));
    std::string suffix = i == 0 ? "" : "." + std::to_string(i);
    SpawnOptions o;
    o.argv = {"bash", "-c", role.command};
    env["TONY_CLUSTER_SPEC_FILE"] = ClusterSpecFile(id);
    if (role.stall_timeout_ms > 0) {
      PythonHookEnv(id.log_dir, env);
      env["TONY_PROGRESS_FILE"] = ProgressFile(id);
      // Output is progress only once it reaches the log file: Python block-buffers a stdout that
      // is a file, so a loop that prints every step would look silent for kilobytes of output.
      // The job's own setting wins.
      env.try_emplace("PYTHONUNBUFFERED", "1");
    }
    o.env = std::move(env);
    o.stdout_path = JoinPath(id.log_dir, "stdout" + suffix);
    o.stderr_path = JoinPath(id.log_dir, "stderr" + suffix);
    o.group = ProcessGroupMode::kNewGroup;
    o.parent_death_signal = SIGKILL;
    options.push_back(std::move(o));
  }
  return options;
}

Result<pid_t> OsProcessLauncher::Spawn(const SpawnOptions& options) { return tony::Spawn(options); }

void OsProcessLauncher::SignalGroup(pid_t group, int sig) { tony::SignalGroup(group, sig); }

std::optional<int> OsProcessLauncher::TryReap(pid_t pid) {
  int st = 0;
  if (::waitpid(pid, &st, WNOHANG) != pid) return std::nullopt;
  return st;
}

void OsProcessLauncher::KillDescendants() { tony::KillDescendants(); }

int64_t OsProcessLauncher::DescendantsRssBytes() { return tony::DescendantsRssBytes(::getpid()); }

UserProcesses::UserProcesses(TimeSource& time, ProcessLauncher& launcher, int64_t grace_ms,
                             std::function<void()> on_all_ended)
    : launcher_(launcher),
      grace_ms_(grace_ms),
      on_all_ended_(std::move(on_all_ended)),
      kill_timer_(time, [this] {
        TONY_LOG(kWarning) << "the user processes outlived the " << grace_ms_
                           << " ms grace period; sending SIGKILL";
        SignalAll(SIGKILL);
      }) {}

Status UserProcesses::Start(const std::vector<SpawnOptions>& options) {
  for (const auto& o : options) {
    auto pid = launcher_.Spawn(o);
    if (!pid.ok()) {
      SignalAll(SIGKILL);
      return pid.status();
    }
    Process p;
    p.pid = *pid;
    p.stderr_path = o.stderr_path;
    procs_.push_back(std::move(p));
  }
  // A process that ended before this point left its SIGCHLD pending on the loop's signalfd.
  Reap();
  return Status::Ok();
}

void UserProcesses::Reap() {
  if (procs_.empty()) return;
  bool was_all_ended = all_ended();
  for (size_t i = 0; i < procs_.size(); ++i) {
    Process& p = procs_[i];
    if (p.ended) continue;
    std::optional<int> st = launcher_.TryReap(p.pid);
    if (!st) continue;
    p.ended = true;
    p.wait_status = *st;
    launcher_.SignalGroup(p.pid, SIGKILL);  // anything the process left in its group
    if (ExitCodeFromWaitStatus(*st) != 0 && failed_rank_ < 0) failed_rank_ = static_cast<int>(i);
  }
  if (was_all_ended) return;
  if (all_ended()) {
    kill_timer_.Disarm();
    on_all_ended_();
  } else if (failed_rank_ >= 0 && !stop_sent_) {
    Stop("local process " + std::to_string(failed_rank_) + " failed; stopping the others", false);
  }
}

void UserProcesses::Stop(const std::string& why, bool by_request) {
  if (stop_sent_) {
    TONY_LOG(kInfo) << why << " (already stopping: " << why_ << ")";
    return;
  }
  stop_sent_ = true;
  stop_by_request_ = by_request;
  why_ = why;
  for (Process& p : procs_) p.stopped_while_running = by_request && !p.ended;
  TONY_LOG(kWarning) << why << "; sending SIGTERM to the user processes";
  SignalAll(SIGTERM);
  kill_timer_.Arm(grace_ms_, /*period_ms=*/60'000);
}

void UserProcesses::SignalAll(int sig) {
  for (const Process& p : procs_) {
    if (!p.ended) launcher_.SignalGroup(p.pid, sig);
  }
}

std::vector<pid_t> UserProcesses::LiveGroups() const {
  std::vector<pid_t> groups;
  for (const Process& p : procs_) {
    if (!p.ended) groups.push_back(p.pid);
  }
  return groups;
}

bool UserProcesses::all_ended() const {
  return std::all_of(procs_.begin(), procs_.end(), [](const Process& p) { return p.ended; });
}

ProcessesOutcome UserProcesses::Outcome() const {
  ProcessesOutcome out;
  out.why = why_;
  out.failed_local_rank = failed_rank_;
  if (failed_rank_ >= 0) {
    const Process& p = procs_[static_cast<size_t>(failed_rank_)];
    out.exit_code = ExitCodeFromWaitStatus(p.wait_status);
    out.signal = WIFSIGNALED(p.wait_status) ? WTERMSIG(p.wait_status) : 0;
    out.stopped = p.stopped_while_running;
  } else {
    out.stopped = std::any_of(procs_.begin(), procs_.end(),
                              [](const Process& p) { return p.stopped_while_running; });
  }
  return out;
}

}  // namespace tony
