#include "engine/local/client/local_submit.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>
#include <thread>

#include "client/follow.h"
#include "client/job_record.h"
#include "client/render.h"
#include "client/resources.h"
#include "client/staging.h"
#include "client/warnings.h"
#include "common/clock.h"
#include "common/files.h"
#include "common/net.h"
#include "common/process.h"
#include "common/strings.h"
#include "config/key_names.h"
#include "engine/local/local_engine.h"
#include "history/job_dir.h"
#include "rpc/client.h"
#include "rpc/spec_file.h"

namespace tony::client {
namespace {

// The coordinator's process, and the read end of the pipe on which it says where it listens.
struct StartedCoordinator {
  pid_t pid = 0;
  int ready_fd = -1;
};

Result<StartedCoordinator> StartCoordinator(const SubmitOptions& o, const history::JobPaths& paths,
                                            const std::string& secret) {
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) return ErrnoStatus("pipe2", errno);
  // Only the write end crosses exec, as TONY_READY_FD (the coordinator writes one line, its
  // address, once it listens, and closes it).
  ::fcntl(ready[1], F_SETFD, 0);
  SpawnOptions so;
  so.argv = {o.tony_binary, "am", "--job-dir", paths.root};
  if (o.debug) so.argv.push_back("--keep-staging");
  so.env = CurrentEnvironment();
  so.env[kReadyFdEnv] = std::to_string(ready[1]);
  // The secret goes on a pipe, never into the job dir: the job's tasks run as this user and can
  // read every file it can (README, "the job secret").
  so.stdin_data = secret + "\n";
  so.env[kSecretFdEnv] = "0";
  so.stdout_path = paths.AmLog();
  so.stderr_path = paths.AmLog();
  // Its own session: Ctrl-C in this terminal reaches only the client, which then stops the job
  // on purpose; and the job can outlive the client, as on YARN.
  so.group = ProcessGroupMode::kNewSession;
  auto pid = Spawn(so);
  ::close(ready[1]);
  if (!pid.ok()) {
    ::close(ready[0]);
    return pid.status();
  }
  return StartedCoordinator{*pid, ready[0]};
}

// Waits for the coordinator to say where it listens: one line on the ready pipe (no polling of
// am.json, which stays the record for later `tony status` and `tony kill`). End of file first
// means the coordinator exited during start-up.
Result<history::AmInfo> WaitForCoordinator(const history::JobPaths& paths,
                                           const StartedCoordinator& am) {
  constexpr int kStartupBoundMs = 30'000;
  int64_t deadline = SystemClock().MonotonicMs() + kStartupBoundMs;
  std::string line;
  while (line.find('\n') == std::string::npos) {
    int64_t left = deadline - SystemClock().MonotonicMs();
    pollfd p{am.ready_fd, POLLIN, 0};
    int n = left > 0 ? ::poll(&p, 1, static_cast<int>(left)) : 0;
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) {
      return DeadlineExceeded("the coordinator did not start within 30 s; see " + paths.AmLog());
    }
    char buf[256];
    ssize_t got = ::read(am.ready_fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      std::optional<int> st = AwaitChildExit(am.pid, 5'000);
      return Unavailable("the coordinator exited during start-up (" +
                         (st ? DescribeWaitStatus(*st) : std::string("still running")) +
                         "); its log " + paths.AmLog() + " ends with:\n" +
                         Join(TailLines(paths.AmLog(), 20), "\n"));
    }
    line.append(buf, static_cast<size_t>(got));
  }
  line.resize(line.find('\n'));
  auto address = ParseHostPort(line, "the coordinator's announced address");
  if (!address.ok()) return Internal(address.status().message());
  history::AmInfo info;
  info.host = address->host;
  info.port = address->port;
  info.pid = static_cast<int>(am.pid);
  return info;
}

// The local engine's hooks for FollowJob: the coordinator is a child process of this client. One
// that is alive but has answered nothing for `unresponsive_ms` (the executors' own loss bound,
// README "a lost coordinator") is killed and the job failed as unresponsive.
class LocalFollower final : public JobFollower {
 public:
  LocalFollower(const history::JobPaths& paths, const history::AmInfo& am, pid_t am_pid,
                const std::string& secret, int64_t unresponsive_ms)
      : paths_(paths),
        am_pid_(am_pid),
        client_(am.Address(), secret),
        unresponsive_ms_(unresponsive_ms),
        last_answer_(SystemClock().MonotonicMs()) {}

  std::string Name() const override { return "job " + paths_.root; }
  rpc::CoordinatorClient* Coordinator() override { return &client_; }
  void OnStatus(const rpc::JobStatus& /*status*/) override {
    last_answer_ = SystemClock().MonotonicMs();
  }
  // Never past the unresponsive bound.
  int StatusTimeoutMs(int wait_ms) const override {
    int64_t left = last_answer_ + unresponsive_ms_ - SystemClock().MonotonicMs();
    return static_cast<int>(std::clamp<int64_t>(left, 1000 + wait_ms, 6000));
  }

  std::optional<rpc::JobStatus> OnNoAnswer(const rpc::JobStatus& last) override {
    int st = 0;
    bool am_gone = ::waitpid(am_pid_, &st, WNOHANG) == am_pid_ || !ProcessAlive(am_pid_);
    unresponsive_ = !am_gone && SystemClock().MonotonicMs() - last_answer_ >= unresponsive_ms_;
    if (am_gone || unresponsive_) return Dead(last);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return std::nullopt;
  }

  rpc::JobStatus Force(const rpc::JobStatus& last) override { return Dead(last); }

 private:
  // The coordinator is gone, unreachable or forced down: trust only what it wrote, leave nothing
  // behind, and end the record consistently (client/job_record.h).
  rpc::JobStatus Dead(const rpc::JobStatus& last) {
    auto written = history::ReadJobStatus(paths_);
    if (written.ok() && IsFinished(*written)) return *written;
    KillSession(am_pid_);
    written = history::ReadJobStatus(paths_);  // it may have ended meanwhile
    if (written.ok() && IsFinished(*written)) return *written;
    rpc::JobStatus dead = written.ok() ? *written : last;
    if (Interrupts() > 1) {
      return RecordJobEnd(paths_, dead, rpc::KILLED, InterruptForcedReason(),
                          UnendedTasks::kStopped,
                          "forced stop: tony did not wait for the task to end");
    }
    std::string what = unresponsive_ ? "the coordinator was unresponsive for " +
                                           std::to_string(unresponsive_ms_ / 1000) + " s (" +
                                           keys::kTaskHeartbeatIntervalMs + " x " +
                                           keys::kTaskMaxMissedHeartbeats + ") and was killed"
                                     : "the coordinator died unexpectedly";
    return RecordJobEnd(
        paths_, dead, rpc::FAILED,
        what + "; its log " + paths_.AmLog() + " ends with:\n" +
            Join(TailLines(paths_.AmLog(), 10), "\n"),
        UnendedTasks::kLost,
        unresponsive_ ? "lost: the coordinator was unresponsive" : "lost: the coordinator died");
  }

  const history::JobPaths& paths_;
  pid_t am_pid_;
  rpc::CoordinatorClient client_;
  int64_t unresponsive_ms_;
  int64_t last_answer_;
  bool unresponsive_ = false;
};

// Warns of the settings the local engine cannot honour, then refuses a job that does not fit
// this machine, before anything is written.
Status CheckLocalJob(const Configuration& conf, const JobSpec& spec) {
  if (spec.docker_enabled) {
    std::cerr << "tony: warning: " << keys::kDockerEnabled
              << " is true, but the local engine runs every task as a plain process here, not in "
                 "its image (YARN's Docker runtime runs images; use --engine yarn)\n";
  }
  if (!Trim(conf.GetOr(keys::kAmResources, "")).empty()) {
    std::cerr << "tony: warning: " << keys::kAmResources
              << " is not staged on the local engine: its coordinator runs no user code (YARN "
                 "localizes it into the AM's container)\n";
  }
  engine::MachineCapacity capacity = engine::DetectCapacity(spec);
  TONY_RETURN_IF_ERROR(engine::CheckFitsLocally(spec, conf, capacity));
  if (auto w = engine::OversubscriptionWarning(spec, capacity)) {
    std::cerr << "tony: warning: " << *w << "\n";
  }
  return Status::Ok();
}

// The new job dir: the configuration as run, the job spec, and the staged job files and
// resources.
Status WriteJobDir(const SubmitOptions& o, const Configuration& conf, const JobSpec& spec,
                   const history::JobPaths& paths) {
  TONY_RETURN_IF_ERROR(MakeNewPrivateDir(paths.root));
  TONY_RETURN_IF_ERROR(WriteFileAtomic(paths.FinalConf(), conf.ToXml()));
  TONY_RETURN_IF_ERROR(rpc::WriteJobSpecFile(paths.SpecFile(), spec));
  TONY_RETURN_IF_ERROR(StageJobFiles(o, paths));
  return StageLocalResources(spec, paths);
}

// Starts the coordinator of the written job dir, follows the job to its end and reaps the
// coordinator; the job's exit code.
int RunLocalJob(const SubmitOptions& o, const JobSpec& spec, const history::JobPaths& paths,
                const std::string& secret) {
  auto started = StartCoordinator(o, paths, secret);
  if (!started.ok()) {
    std::cerr << "tony: error: " << started.status().message() << "\n";
    return kExitJobFailed;
  }
  const pid_t am_pid = started->pid;
  auto am = WaitForCoordinator(paths, *started);
  ::close(started->ready_fd);
  if (!am.ok()) {
    KillSession(am_pid);
    std::cerr << "tony: error: " << am.status().message() << "\n";
    if (!o.debug) WarnIfFailed(RemoveAll(paths.Staging()), "the job's staging copy is left");
    return kExitJobFailed;
  }
  rpc::JobStatus final_status;
  {
    LocalFollower follower(paths, *am, am_pid, secret,
                           spec.heartbeat_interval_ms * std::max(1, spec.max_missed_heartbeats));
    final_status = FollowJob(follower);
  }  // its channel closes here: the coordinator's shutdown waits for no client of ours
  // Reap the coordinator (it exits once it has told us the end), so no zombie is left. Waited
  // for on its exit, not polled: every local job's wall time includes this wait.
  int st = 0;
  if (!AwaitChildExit(am_pid, 3'000) && ::waitpid(am_pid, &st, WNOHANG) == 0) {
    KillSession(am_pid);
    ::waitpid(am_pid, &st, 0);
  }
  // The coordinator removes it as it exits; not when it was killed first.
  if (!o.debug) WarnIfFailed(RemoveAll(paths.Staging()), "the job's staging copy is left");
  std::cout << RenderSummary(final_status) << std::flush;
  if (o.debug) std::cout << "tony: --debug: the staged job is in " << paths.Staging() << "\n";
  return Succeeded(final_status) ? kExitSucceeded : kExitJobFailed;
}

}  // namespace

int SubmitLocally(const SubmitOptions& o, const Configuration& conf, const JobSpec& spec) {
  Status s = CheckLocalJob(conf, spec);
  if (!s.ok()) {
    std::cerr << "tony: error: " << s.message() << "\n";
    return kExitBadInput;
  }
  std::string job_id = history::NewJobId();
  history::JobPaths paths(history::JobsRoot() + "/" + job_id);
  std::string secret = RandomHex(32);
  s = WriteJobDir(o, conf, spec, paths);
  if (!s.ok()) {
    std::cerr << "tony: error: staging job " << job_id << ": " << s.message() << "\n";
    WarnIfFailed(RemoveAll(paths.root), "the job dir of " + job_id + " is left");
    return kExitBadInput;
  }
  std::cout << "tony: job " << job_id << " on the local engine (" << spec.framework << ", "
            << spec.TotalInstances() << " tasks)\n"
            << "tony: job dir " << paths.root << "\n";
  if (o.debug) std::cout << "tony: --debug: the staged job is kept in " << paths.Staging() << "\n";
  std::cout << std::flush;
  InstallInterruptHandlers();
  return RunLocalJob(o, spec, paths, secret);
}

namespace {

class LocalClientFace final : public EngineClientFace {
 public:
  engine::EngineKind Kind() const override { return engine::EngineKind::kLocal; }
  bool FetchesRemoteResources() const override { return false; }
  int Submit(const SubmitOptions& options, const Configuration& conf,
             const JobSpec& spec) const override {
    return SubmitLocally(options, conf, spec);
  }
};

}  // namespace

std::unique_ptr<EngineClientFace> MakeLocalClientFace() {
  return std::make_unique<LocalClientFace>();
}

}  // namespace tony::client
