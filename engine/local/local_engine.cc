#include "engine/local/local_engine.h"

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fstream>

#include "common/clock.h"
#include "common/files.h"
#include "common/log.h"
#include "common/strings.h"
#include "config/key_names.h"

namespace tony::engine {
namespace {

// At shutdown an executor that has just reported its result is exiting by itself: this long, at
// most, the executors together may finish (their last log lines) before their sessions are
// killed.
constexpr int kExitWaitMs = 200;

int64_t DetectMemoryMb() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  int64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit) {
    if (key == "MemTotal:") return kb / 1024;
  }
  return 0;
}

int DetectVcores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

// `nvidia-smi -L` prints one "GPU <n>: <name> (UUID: ...)" line per device; `exec_path` is
// tony.gpu-exec-path (a name looked up on PATH, or a path).
std::vector<int> DetectGpus(const std::string& exec_path) {
  std::vector<int> ids;
  FILE* p = ::popen((ShellQuote(exec_path) + " -L 2>/dev/null").c_str(), "r");
  if (p == nullptr) return ids;
  char line[512];
  while (std::fgets(line, sizeof(line), p) != nullptr) {
    std::string_view l(line);
    if (!StartsWith(l, "GPU ")) continue;
    size_t colon = l.find(':');
    if (auto id = ParseInt64(l.substr(4, colon - 4))) ids.push_back(static_cast<int>(*id));
  }
  ::pclose(p);
  return ids;
}

std::string Plural(int64_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

}  // namespace

MachineCapacity DetectCapacity(const JobSpec& spec) {
  MachineCapacity c;
  c.memory_mb = spec.local_memory_mb > 0 ? spec.local_memory_mb : DetectMemoryMb();
  c.vcores = spec.local_vcores > 0 ? spec.local_vcores : DetectVcores();
  bool wants_gpus = false;
  for (const auto& r : spec.roles) wants_gpus = wants_gpus || r.gpus > 0;
  if (wants_gpus) c.gpu_ids = DetectGpus(spec.gpu_exec_path);
  return c;
}

FitWords LocalFitWords(const JobSpec& spec) {
  FitWords w;
  w.place = "this machine";
  w.node = "machine";
  w.one_node = true;
  w.gpu_unit.clear();
  w.no_gpus_why = spec.gpu_exec_path + " -L lists none";
  w.together = "the tasks of a stage all run at once";
  w.way_out = std::string(keys::kLocalMemory) + " sets the memory this machine offers the job, " +
              keys::kGpuExecPath + " the tool that lists its GPUs";
  return w;
}

Status CheckFitsLocally(const JobSpec& spec, const Configuration& conf,
                        const MachineCapacity& capacity) {
  FitInput in;
  in.nodes.push_back(
      {{capacity.memory_mb, capacity.vcores, static_cast<int64_t>(capacity.gpu_ids.size())}, {}});
  // More vcores than cores runs, with OversubscriptionWarning's line.
  in.count_vcores = false;
  GangOptions o;
  o.am_container = false;        // the coordinator is a plain process beside the tasks
  o.fcfs_one_at_a_time = false;  // every task of a stage starts at once here
  o.labels = false;              // one machine: a node label places nothing
  in.gangs = JobGangs(spec, conf, o);
  in.words = LocalFitWords(spec);
  return CheckJobFits(in);
}

std::optional<std::string> OversubscriptionWarning(const JobSpec& spec,
                                                   const MachineCapacity& capacity) {
  int64_t vcores = 0;
  for (const auto& r : spec.roles) vcores += static_cast<int64_t>(r.vcores) * r.instances;
  if (vcores <= capacity.vcores) return std::nullopt;
  return "the job asks for " + Plural(vcores, "vcore") + " in all (" + keys::kRoleVcores + " x " +
         keys::kRoleInstances + ") but this machine has " + Plural(capacity.vcores, "core") +
         ": the tasks share the CPUs (set " + keys::kLocalVcores + "=" + std::to_string(vcores) +
         " to say that is intended)";
}

LocalEngine::LocalEngine(asio::io_context& io, std::vector<int> gpu_ids)
    : io_(io), free_gpus_(std::move(gpu_ids)), sigchld_(io, SIGCHLD) {}

LocalEngine::~LocalEngine() { KillAll(); }

Status LocalEngine::Start(EngineListener* listener, const CoordinatorAddress& coordinator) {
  listener_ = listener;
  host_ = coordinator.host;
  // What an executor killed outright leaves behind (its user processes' daemons) is reparented
  // here rather than to init, and killed in Shutdown().
  Status s = BecomeChildSubreaper();
  if (!s.ok()) TONY_LOG(kWarning) << s.ToString();
  WaitForChildSignal();
  return Status::Ok();
}

void LocalEngine::WaitForChildSignal() {
  sigchld_.async_wait([this](const std::error_code& ec, int) {
    if (ec) return;
    ReapChildren();
    WaitForChildSignal();
  });
}

void LocalEngine::RequestContainers(const ContainerRequest& request) {
  for (int i = 0; i < request.count; ++i) {
    Container c;
    c.id = "container_local_" + std::to_string(next_container_++);
    c.role = request.role;
    for (int g = 0; g < request.gpus && !free_gpus_.empty(); ++g) {
      c.gpus.push_back(free_gpus_.front());
      free_gpus_.erase(free_gpus_.begin());
    }
    std::string id = c.id;
    std::string role = c.role;
    containers_.emplace(id, std::move(c));
    // Delivered on the loop after the current event is handled, as a real engine would.
    asio::post(io_, [this, id, role] {
      if (listener_ != nullptr && containers_.count(id) > 0) {
        listener_->OnContainerAllocated(id, role, host_);
      }
    });
  }
}

EnvMap LocalEngine::GpuEnv(const std::string& container_id) const {
  EnvMap env;
  auto it = containers_.find(container_id);
  if (it == containers_.end() || it->second.gpus.empty()) return env;
  std::vector<std::string> ids;
  for (int g : it->second.gpus) ids.push_back(std::to_string(g));
  env["CUDA_VISIBLE_DEVICES"] = Join(ids, ",");
  return env;
}

Status LocalEngine::Launch(const LaunchSpec& spec) {
  auto it = containers_.find(spec.container_id);
  if (it == containers_.end()) return NotFound("no container " + spec.container_id);
  std::string work_dir = spec.log_dir + "/work";
  TONY_RETURN_IF_ERROR(MakeDirs(work_dir));
  // Like YARN's localization: staged files appear in the container's working directory.
  for (const auto& file : spec.local_files) {
    std::string link = JoinPath(work_dir, BaseName(file));
    if (::symlink(file.c_str(), link.c_str()) != 0 && errno != EEXIST) {
      return ErrnoStatus("cannot link " + file + " into " + work_dir, errno);
    }
  }
  SpawnOptions options;
  options.argv = spec.argv;
  // Only for `ps` and tests: tony's processes are not dumpable, so their environment cannot tell
  // which task an executor runs; its command line can.
  options.argv.insert(options.argv.end(), {"--log-dir", spec.log_dir});
  options.env = spec.env;
  for (auto& [k, v] : GpuEnv(spec.container_id)) options.env[k] = v;
  options.cwd = work_dir;
  options.stdout_path = spec.log_dir + "/executor.log";
  options.stderr_path = options.stdout_path;
  options.group = ProcessGroupMode::kNewSession;
  options.parent_death_signal = SIGTERM;
  options.stdin_data = spec.secret + "\n";
  options.env[kSecretFdEnv] = "0";
  auto pid = Spawn(options);
  if (!pid.ok()) return pid.status().WithContext("launching " + spec.container_id);
  it->second.pid = *pid;
  TONY_LOG(kDebug) << "launched " << spec.container_id << " as pid " << *pid;
  return Status::Ok();
}

void LocalEngine::Stop(const std::string& container_id, int64_t grace_ms) {
  auto it = containers_.find(container_id);
  if (it == containers_.end()) return;
  Container& c = it->second;
  if (c.pid <= 0) {  // allocated, never launched
    std::string id = c.id;
    FreeContainer(id);
    asio::post(io_, [this, id] {
      ContainerEnd end;
      end.reason = core::ContainerExitReason::kStoppedByCoordinator;
      end.diagnostics = "stopped before launch";
      if (listener_ != nullptr) listener_->OnContainerCompleted(id, end);
    });
    return;
  }
  if (::kill(c.pid, SIGTERM) != 0) {
    // Our child, unreaped: only a pid that is not ours any more gets here.
    TONY_LOG(kWarning) << ErrnoStatus(
                              "stopping container " + c.id + " (pid " + std::to_string(c.pid) + ")",
                              errno)
                              .message();
  }
  c.kill_timer = std::make_unique<asio::steady_timer>(io_, std::chrono::milliseconds(grace_ms));
  pid_t pid = c.pid;
  c.kill_timer->async_wait([pid](const std::error_code& ec) {
    if (!ec) KillSession(pid);
  });
}

void LocalEngine::Release(const std::string& container_id) {
  auto it = containers_.find(container_id);
  if (it != containers_.end() && it->second.pid <= 0) FreeContainer(container_id);
}

void LocalEngine::FreeContainer(const std::string& container_id) {
  auto it = containers_.find(container_id);
  if (it == containers_.end()) return;
  for (int g : it->second.gpus) free_gpus_.push_back(g);
  containers_.erase(it);
}

void LocalEngine::ReapChildren() {
  while (true) {
    int wait_status = 0;
    pid_t pid = ::waitpid(-1, &wait_status, WNOHANG);
    if (pid <= 0) return;
    for (auto& [id, c] : containers_) {
      if (c.pid != pid) continue;
      // Whatever the executor left behind in its session goes with it.
      KillSession(pid);
      ContainerEnd end;
      end.exit_code = ExitCodeFromWaitStatus(wait_status);
      end.diagnostics = "executor " + DescribeWaitStatus(wait_status);
      std::string container_id = id;
      FreeContainer(container_id);
      if (listener_ != nullptr) listener_->OnContainerCompleted(container_id, end);
      break;
    }
  }
}

void LocalEngine::Shutdown(rpc::FinalStatus /*status*/, const std::string& /*message*/) {
  KillAll();
}

void LocalEngine::KillAll() {
  if (shut_down_) return;
  shut_down_ = true;
  // The coordinator has already asked every task to stop and waited out the grace period, so
  // whatever is left is killed outright, session by session.
  const int64_t give_up_ms = SystemClock().MonotonicMs() + kExitWaitMs;
  for (auto& [id, c] : containers_) {
    if (c.pid <= 0) continue;
    // Waiting on the exit itself, rather than killing at once, spares KillSession's 20 ms rescan
    // of a session whose executor was about to leave it; the job's end waits for this.
    int64_t left_ms = std::max<int64_t>(0, give_up_ms - SystemClock().MonotonicMs());
    bool exited = AwaitChildExit(c.pid, static_cast<int>(left_ms)).has_value();
    KillSession(c.pid);
    int st = 0;
    if (!exited) ::waitpid(c.pid, &st, 0);
  }
  containers_.clear();
  KillDescendants();
  sigchld_.cancel();
}

}  // namespace tony::engine
