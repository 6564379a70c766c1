#include "executor/executor.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/files.h"
#include "common/log.h"
#include "common/net.h"
#include "common/process.h"
#include "common/strings.h"
#include "config/job_spec.h"
#include "executor/hadoop_env.h"
#include "executor/localize.h"
#include "rpc/client.h"
#include "rpc/job_secret.h"
#include "runtime/framework.h"
#include "runtime/runtime.h"

namespace tony {
namespace {

std::atomic<int> g_stop_signal{0};

void OnStopSignal(int sig) { g_stop_signal = sig; }

constexpr int kRpcTimeoutMs = 10'000;
constexpr int kSpecWaitMs = 10'000;
constexpr int64_t kKillGraceMs = 5'000;
// The stderr tail in a failure message: tony.task.error-message-max-depth lines and at most this
// many bytes (a progress bar is one multi-megabyte line of \r-separated redraws).
constexpr size_t kTailMaxBytes = 8 * 1024;
constexpr int kReportAttempts = 3;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

struct TaskIdentity {
  std::string job_id;
  std::string am_address;
  std::string secret;
  std::string role;
  int index = 0;
  int attempt = 0;
  std::string conf_path;
  std::string log_dir;
  std::string host;

  rpc::TaskRef Ref() const {
    rpc::TaskRef ref;
    ref.set_role(role);
    ref.set_index(index);
    ref.set_attempt(attempt);
    return ref;
  }
  std::string Name() const { return role + ":" + std::to_string(index); }
};

Result<TaskIdentity> ReadIdentity() {
  TaskIdentity id;
  id.job_id = Env("TONY_JOB_ID");
  id.am_address = Env("TONY_AM_ADDRESS");
  id.role = Env("TONY_TASK_ROLE");
  id.conf_path = Env("TONY_CONF_PATH");
  id.log_dir = Env("TONY_LOG_DIR");
  auto index = ParseInt64(Env("TONY_TASK_INDEX"));
  auto attempt = ParseInt64(Env("TONY_TASK_ATTEMPT"));
  if (id.am_address.empty() || id.role.empty() || !index || !attempt || id.conf_path.empty()) {
    return InvalidArgument(
        "tony executor runs inside a container started by the tony coordinator; TONY_AM_ADDRESS, "
        "TONY_TASK_ROLE, TONY_TASK_INDEX, TONY_TASK_ATTEMPT and TONY_CONF_PATH must be set");
  }
  id.index = static_cast<int>(*index);
  id.attempt = static_cast<int>(*attempt);
  if (id.log_dir.empty()) id.log_dir = ".";
  auto secret = rpc::ReadJobSecret();
  if (!secret.ok()) return secret.status();
  id.secret = std::move(secret).value();
  id.host = AdvertisedHost();
  return id;
}

// TonY makes the entry point executable: `--executes ./run.sh` works with a run.sh of mode 644
// (zip archives and some checkouts drop the x bit). Only a relative path to a regular file of the
// job's working directory is touched.
void MakeEntryPointExecutable(const std::string& command) {
  auto words = ShellSplit(command);
  if (words.empty() || words[0].empty() || words[0][0] == '/') return;
  if (words[0].find('/') == std::string::npos) return;  // a bare name is a command on PATH
  struct stat st {};
  if (::stat(words[0].c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  mode_t x =
      S_IXUSR | ((st.st_mode & S_IRGRP) ? S_IXGRP : 0) | ((st.st_mode & S_IROTH) ? S_IXOTH : 0);
  if ((st.st_mode & x) == x) return;
  if (::chmod(words[0].c_str(), st.st_mode | x) != 0) {
    TONY_LOG(kWarning) << "could not make " << words[0] << " executable: " << std::strerror(errno);
  }
}

Status Register(rpc::CoordinatorClient& client, const TaskIdentity& id, int port,
                int64_t registry_timeout_ms) {
  rpc::RegisterTaskRequest req;
  *req.mutable_task() = id.Ref();
  req.set_host(id.host);
  req.set_port(port);
  int64_t deadline = SystemClock().MonotonicMs() + registry_timeout_ms;
  while (true) {
    Status s = client.RegisterTask(req, kRpcTimeoutMs);
    if (s.ok()) return s;
    // Only an unreachable coordinator is worth retrying; a refusal is final.
    bool retry = s.code() == StatusCode::kUnavailable || s.code() == StatusCode::kDeadlineExceeded;
    if (!retry || g_stop_signal != 0 ||
        (registry_timeout_ms > 0 && SystemClock().MonotonicMs() > deadline)) {
      return s.WithContext("registering " + id.Name() + " with the coordinator at " +
                           id.am_address);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

Result<runtime::Cluster> WaitForClusterSpec(rpc::CoordinatorClient& client,
                                            const TaskIdentity& id) {
  rpc::GetClusterSpecRequest req;
  *req.mutable_task() = id.Ref();
  req.set_wait_ms(kSpecWaitMs);
  int failures = 0;
  while (g_stop_signal == 0) {
    auto resp = client.GetClusterSpec(req, kSpecWaitMs + kRpcTimeoutMs);
    if (!resp.ok()) {
      if (++failures > 5) return resp.status().WithContext("waiting for the cluster spec");
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      continue;
    }
    failures = 0;
    if (!resp->ready()) continue;
    runtime::Cluster cluster;
    for (const auto& [role, addresses] : resp->cluster()) {
      cluster[role] = {addresses.addresses().begin(), addresses.addresses().end()};
    }
    return cluster;
  }
  return Cancelled("stopped by signal " + std::to_string(g_stop_signal.load()) +
                   " while waiting for the cluster spec");
}

// Heartbeats on its own thread; tells the main loop when the coordinator is lost or wants a stop.
class Heartbeater {
 public:
  Heartbeater(rpc::CoordinatorClient& client, const TaskIdentity& id, int64_t interval_ms,
              int max_missed)
      : client_(client), id_(id), interval_ms_(interval_ms), max_missed_(max_missed) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~Heartbeater() {
    done_ = true;
    thread_.join();
  }
  bool lost() const { return lost_; }
  bool stop_requested() const { return stop_requested_; }

 private:
  // One heartbeat per interval on a fixed schedule, each call's deadline one interval, so the
  // coordinator is declared lost max-missed intervals after its last answer, to within one
  // interval (README, "a lost coordinator"), whatever a call's wait.
  void Loop() {
    rpc::HeartbeatRequest req;
    *req.mutable_task() = id_.Ref();
    const int64_t loss_ms = interval_ms_ * std::max(1, max_missed_);
    int64_t last_answer = SystemClock().MonotonicMs();
    int64_t next = last_answer;
    while (!done_) {
      int deadline = static_cast<int>(std::max<int64_t>(interval_ms_, 100));
      auto resp = client_.Heartbeat(req, deadline);
      int64_t now = SystemClock().MonotonicMs();
      if (resp.ok()) {
        last_answer = now;
        if (resp->stop()) stop_requested_ = true;
      } else if (now - last_answer >= loss_ms) {
        lost_ = true;
      }
      next = std::max(next + interval_ms_, now);
      while (!done_ && SystemClock().MonotonicMs() < next) {
        std::this_thread::sleep_for(std::chrono::milliseconds(
            std::min<int64_t>(20, next - SystemClock().MonotonicMs() + 1)));
      }
    }
  }

  rpc::CoordinatorClient& client_;
  const TaskIdentity& id_;
  int64_t interval_ms_;
  int max_missed_;
  std::atomic<bool> done_{false};
  std::atomic<bool> lost_{false};
  std::atomic<bool> stop_requested_{false};
  std::thread thread_;
};

Result<EnvMap> BuildUserEnv(const JobSpec& spec, const TaskIdentity& id,
                            const runtime::Cluster& cluster, int local_rank) {
  EnvMap env = CurrentEnvironment();
  // Where the secret came from (it is gone from there by now): not the user's business.
  env.erase(kSecretFdEnv);
  env.erase("MALLOC_ARENA_MAX");  // TonY #346: it slows TensorFlow down
  runtime::TaskEnvInput in;
  in.spec = &spec;
  in.job_id = id.job_id;
  in.role = id.role;
  in.index = id.index;
  in.attempt = id.attempt;
  in.cluster = cluster;
  in.local_rank = local_rank;
  in.am_host = Env("AM_HOST");
  in.am_port = static_cast<int>(ParseInt64(Env("AM_PORT")).value_or(0));
  TONY_ASSIGN_OR_RETURN(EnvMap task_env, runtime::BuildTaskEnv(in));
  for (auto& [k, v] : task_env) env[k] = std::move(v);
  AddHdfsAccess(env);  // tokens for WebHDFS clients, TonY's Hadoop CLASSPATH
  for (const auto& kv : spec.execution_envs) {
    size_t eq = kv.find('=');
    if (eq == 0) continue;  // no name (refused at submit)
    // "K" alone is K with an empty value, as TonY's key=value parsing has it.
    env[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
  }
  return env;
}

// One of the task's user processes: tony.<role>.nproc-per-task of them, each in a process group
// of its own (torchrun's local workers). Local rank 0 writes stdout/stderr, rank i stdout.i/...
struct LocalProcess {
  pid_t pid = 0;
  std::string stderr_path;
  bool done = false;
  int exit_code = 0;  // 128 + N when signal N ended it
  int signal = 0;
};

struct ChildResult {
  int exit_code = 0;
  int signal = 0;              // the signal that ended the failed local process, if one did
  bool stopped = false;        // this executor stopped them (a stop request, a signal to it, loss)
  int failed_local_rank = -1;  // the first local process that failed, if any
  std::string why;             // empty when the processes ended by themselves
};

// Waits for every local process, stopping them all on a signal, a stop request, a lost
// coordinator, the execution timeout, or (as torchrun does) the failure of any one of them.
ChildResult Supervise(std::vector<LocalProcess>& procs, const Heartbeater& hb,
                      int64_t execution_timeout_ms) {
  int64_t start = SystemClock().MonotonicMs();
  int64_t kill_at = -1;
  ChildResult result;
  auto signal_all = [&](int sig) {
    for (const auto& p : procs) SignalGroup(p.pid, sig);
  };
  while (true) {
    bool all_done = true;
    for (size_t i = 0; i < procs.size(); ++i) {
      LocalProcess& p = procs[i];
      int st = 0;
      if (!p.done && ::waitpid(p.pid, &st, WNOHANG) == p.pid) {
        p.done = true;
        p.exit_code = ExitCodeFromWaitStatus(st);
        p.signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
        SignalGroup(p.pid, SIGKILL);  // anything the process left in its group
        if (p.exit_code != 0 && result.failed_local_rank < 0) {
          result.failed_local_rank = static_cast<int>(i);
          result.exit_code = p.exit_code;
          result.signal = p.signal;
        }
      }
      all_done = all_done && p.done;
    }
    if (all_done) return result;
    int64_t now = SystemClock().MonotonicMs();
    if (kill_at < 0) {
      if (g_stop_signal != 0) {
        result.why = "stopped by signal " + std::to_string(g_stop_signal.load());
      } else if (hb.stop_requested()) {
        result.why = "stopped by the coordinator";
      } else if (hb.lost()) {
        result.why = "lost contact with the coordinator";
      } else if (execution_timeout_ms > 0 && now - start > execution_timeout_ms) {
        result.why = "execution timed out after " + std::to_string(execution_timeout_ms) +
                     " ms (tony.task.executor.execution-timeout-ms)";
      } else if (result.failed_local_rank >= 0) {
        result.why = "local process " + std::to_string(result.failed_local_rank) +
                     " failed; stopping the others";
      }
      // Stopped by this executor only when no process had failed by itself first.
      result.stopped = !result.why.empty() && result.failed_local_rank < 0 &&
                       (g_stop_signal != 0 || hb.stop_requested() || hb.lost());
      if (!result.why.empty()) {
        TONY_LOG(kWarning) << result.why << "; sending SIGTERM to the user processes";
        signal_all(SIGTERM);
        kill_at = now + kKillGraceMs;
      }
    } else if (now >= kill_at) {
      signal_all(SIGKILL);
      kill_at = now + 60'000;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// Starts the task's nproc-per-task user processes; on an error, those already started are killed.
Result<std::vector<LocalProcess>> StartUserProcesses(const JobSpec& spec, const RoleSpec& role,
                                                     const TaskIdentity& id,
                                                     const runtime::Cluster& cluster) {
  int nproc = std::max(1, role.nproc_per_task);
  std::vector<SpawnOptions> options;
  for (int i = 0; i < nproc; ++i) {
    TONY_ASSIGN_OR_RETURN(EnvMap env, BuildUserEnv(spec, id, cluster, i));
    std::string suffix = i == 0 ? "" : "." + std::to_string(i);
    SpawnOptions o;
    o.argv = {"bash", "-c", role.command};
    o.env = std::move(env);
    o.stdout_path = JoinPath(id.log_dir, "stdout" + suffix);
    o.stderr_path = JoinPath(id.log_dir, "stderr" + suffix);
    o.group = ProcessGroupMode::kNewGroup;
    o.parent_death_signal = SIGKILL;
    options.push_back(std::move(o));
  }
  std::vector<LocalProcess> procs;
  for (const auto& o : options) {
    auto pid = Spawn(o);
    if (!pid.ok()) {
      for (const auto& p : procs) SignalGroup(p.pid, SIGKILL);
      return pid.status();
    }
    procs.push_back(LocalProcess{*pid, o.stderr_path});
  }
  return procs;
}

// Which binary runs and where its gRPC came from (the bundle's lib/ on YARN): only this process
// can tell, since it is not dumpable (others cannot read its /proc/<pid>/exe or maps).
std::string DescribeSelf() {
  auto self = SelfExecutable();
  std::string grpc;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    size_t slash = line.find('/');
    if (slash != std::string::npos && line.find("/libgrpc++", slash) != std::string::npos) {
      grpc = line.substr(slash);
      break;
    }
  }
  return "executor exe=" + (self.ok() ? *self : "?") + " grpc=" + (grpc.empty() ? "?" : grpc);
}

// Tries a few times while the coordinator is unreachable; a refusal is final. False (and an error
// in the log) when the coordinator never got the result.
bool ReportResult(rpc::CoordinatorClient& client, const rpc::ReportResultRequest& req) {
  Status s;
  for (int attempt = 1; attempt <= kReportAttempts; ++attempt) {
    s = client.ReportResult(req, kRpcTimeoutMs);
    if (s.ok()) return true;
    bool retry = s.code() == StatusCode::kUnavailable || s.code() == StatusCode::kDeadlineExceeded;
    if (!retry) break;
    TONY_LOG(kWarning) << "reporting the result (attempt " << attempt << "): " << s.ToString();
    std::this_thread::sleep_for(std::chrono::milliseconds(500 * attempt));
  }
  TONY_LOG(kError) << "could not report the result: " << s.ToString();
  return false;
}

int Fail(const std::string& message) {
  TONY_LOG(kError) << message;
  return 1;
}

}  // namespace

int RunExecutor() {
  SetLogComponent("executor");
  ::signal(SIGTERM, OnStopSignal);
  ::signal(SIGINT, OnStopSignal);
  ::signal(SIGPIPE, SIG_IGN);
  // Whatever the user's processes leave behind, even outside their process group and session,
  // becomes this process's child, to be killed when the task ends (KillDescendants below).
  Status subreaper = BecomeChildSubreaper();
  if (!subreaper.ok()) TONY_LOG(kWarning) << subreaper.ToString();
  auto id_or = ReadIdentity();
  if (!id_or.ok()) return Fail(id_or.status().message());
  const TaskIdentity id = std::move(id_or).value();
  rpc::CoordinatorClient client(id.am_address, id.secret);

  auto report = [&](int exit_code, const std::string& diagnostics, int signal = 0,
                    bool stopped = false) {
    rpc::ReportResultRequest req;
    *req.mutable_task() = id.Ref();
    req.set_exit_code(signal > 0 ? 0 : exit_code);
    req.set_signal(signal);
    req.set_stopped(stopped);
    // Bytes from the user's stderr: a proto3 string must be UTF-8 or the coordinator drops the
    // whole report.
    req.set_diagnostics(ToValidUtf8(diagnostics));
    return ReportResult(client, req);
  };

  Configuration conf;
  Status s = conf.AddFile(id.conf_path);
  auto spec_or = s.ok() ? BuildJobSpec(conf) : Result<JobSpec>(s);
  if (!spec_or.ok()) {
    report(1, "invalid job configuration: " + spec_or.status().message());
    return Fail(spec_or.status().message());
  }
  const JobSpec spec = std::move(spec_or).value();
  const RoleSpec* role = spec.FindRole(id.role);
  if (role == nullptr) return Fail("the job has no role " + id.role);
  TONY_LOG(kInfo) << "task " << id.Name() << " attempt " << id.attempt << " of job " << id.job_id;
  TONY_LOG(kInfo) << DescribeSelf();

  s = Localize(id.log_dir);
  if (s.ok()) s = runtime::PrepareTask(spec, id.role);
  if (!s.ok()) {
    report(1, "localizing: " + s.message());
    return Fail(s.message());
  }
  MakeEntryPointExecutable(role->command);
  auto port = ReservedPort::Reserve();
  if (!port.ok()) return Fail(port.status().message());
  int64_t registry_timeout_ms =
      ParseInt64(conf.GetOr("tony.task.executor.registry-timeout-sec", "0")).value_or(0) * 1000;
  s = Register(client, id, port->port(), registry_timeout_ms);
  if (!s.ok()) return Fail(s.message());
  TONY_LOG(kInfo) << "registered " << id.host << ":" << port->port();

  Heartbeater hb(client, id, spec.heartbeat_interval_ms, spec.max_missed_heartbeats);
  auto cluster = WaitForClusterSpec(client, id);
  if (!cluster.ok()) return Fail(cluster.status().message());
  TONY_LOG(kInfo) << "starting " << std::max(1, role->nproc_per_task)
                  << " process(es): " << role->command;
  // A stop that came while the task registered or waited: its user process never starts.
  if (g_stop_signal != 0 || hb.stop_requested()) {
    return Fail("stopped before the user process started");
  }
  port->Release();  // as late as possible: the user process binds it next (TonY #366)
  s = runtime::WaitUntilReady(spec, id.role, *cluster);
  if (!s.ok()) {
    report(1, s.message());
    return Fail(s.message());
  }
  auto procs = StartUserProcesses(spec, *role, id, *cluster);
  if (!procs.ok()) {
    report(127, procs.status().message());
    return Fail(procs.status().message());
  }
  ChildResult result = Supervise(*procs, hb, spec.execution_timeout_ms);
  KillDescendants();  // the task is over: nothing it started may outlive it
  TONY_LOG(kInfo) << "user process(es) ended: "
                  << (result.signal > 0 ? "signal " + std::to_string(result.signal)
                                        : "exit " + std::to_string(result.exit_code))
                  << (result.why.empty() ? "" : " (" + result.why + ")");
  std::string diagnostics = result.why;
  if (result.failed_local_rank >= 0) {
    const std::string& path = (*procs)[static_cast<size_t>(result.failed_local_rank)].stderr_path;
    auto tail = TailOfFile(path, static_cast<size_t>(spec.error_message_max_depth), kTailMaxBytes);
    if (!tail.empty()) {
      if (!diagnostics.empty()) diagnostics += "\n";
      diagnostics += "last lines of stderr (" + path + "):\n" + Join(tail, "\n");
    }
  }
  bool reported =
      !hb.lost() && report(result.exit_code, diagnostics, result.signal, result.stopped);
  int code = result.exit_code == 0
                 ? 0
                 : (result.exit_code > 0 && result.exit_code < 256 ? result.exit_code : 1);
  if (reported) {
    TONY_LOG(kInfo) << "result reported; exiting with " << code;
  } else {
    TONY_LOG(kInfo) << "exiting with " << code << " (the result was not reported"
                    << (hb.lost() ? ": the coordinator is lost)" : ")");
  }
  // Everything is reported and the user process is gone: exit now rather than wait for the
  // heartbeat thread's in-flight call and gRPC's teardown (seconds while the coordinator winds
  // down).
  std::_Exit(code);
}

}  // namespace tony
