#include "common/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <type_traits>

#include "common/strings.h"

extern char** environ;

namespace tony {
namespace {

// Fields of /proc/<pid>/stat after the command name: state ppid pgrp session ...
struct ProcStat {
  char state = '?';
  pid_t ppid = 0;
  pid_t pgrp = 0;
  pid_t session = 0;
};

bool ReadProcStat(pid_t pid, ProcStat* out) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  size_t close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(line.substr(close + 1));
  rest >> out->state >> out->ppid >> out->pgrp >> out->session;
  return static_cast<bool>(rest);
}

template <typename Pred>
std::vector<pid_t> ScanProcesses(Pred pred) {
  std::vector<pid_t> out;
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return out;
  while (dirent* e = ::readdir(dir)) {
    auto pid = ParseInt64(e->d_name);
    if (!pid) continue;
    ProcStat st;
    if (!ReadProcStat(static_cast<pid_t>(*pid), &st)) continue;
    if (st.state == 'Z') continue;  // a zombie is dead; its parent has yet to reap it
    bool match = false;
    if constexpr (std::is_invocable_v<Pred, pid_t, const ProcStat&>) {
      match = pred(static_cast<pid_t>(*pid), st);
    } else {
      match = pred(st);
    }
    if (match) out.push_back(static_cast<pid_t>(*pid));
  }
  ::closedir(dir);
  return out;
}

std::string FindInPath(const std::string& name, const EnvMap& env) {
  if (name.find('/') != std::string::npos) return name;
  auto it = env.find("PATH");
  std::string path = it != env.end() ? it->second : "/usr/local/bin:/usr/bin:/bin";
  for (const auto& dir : SplitTrimmed(path, ':')) {
    std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return name;
}

// Between fork and exec only async-signal-safe calls; report failures through the pipe.
[[noreturn]] void ChildFail(int fd, const char* what) {
  int err = errno;
  // The child exits 127 whatever happens; the parent says "cannot start" without the errno if
  // these writes fail.
  ssize_t ignored = ::write(fd, &err, sizeof(err));
  ignored = ::write(fd, what, std::strlen(what));
  (void)ignored;
  ::_exit(127);
}

// The read end of a pipe holding the child's stdin_data, or -1 when it has none.
Result<int> StdinPipe(const SpawnOptions& options) {
  int stdin_pipe[2] = {-1, -1};
  if (options.stdin_data.empty()) return -1;
  if (options.stdin_data.size() > 65536) return InvalidArgument("stdin_data over 64 KiB");
  if (::pipe2(stdin_pipe, O_CLOEXEC) != 0) return ErrnoStatus("pipe2", errno);
  // Written before the fork: it fits the pipe's buffer, so this never blocks.
  ssize_t n = ::write(stdin_pipe[1], options.stdin_data.data(), options.stdin_data.size());
  int err = errno;
  ::close(stdin_pipe[1]);
  if (n != static_cast<ssize_t>(options.stdin_data.size())) {
    ::close(stdin_pipe[0]);
    return ErrnoStatus("writing the child's stdin", err);
  }
  return stdin_pipe[0];
}

// The child's stdin, stdout and stderr as `options` say (stdin from `stdin_fd` when it is not -1).
// Runs in the forked child: async-signal-safe calls only.
void RedirectChildIo(const SpawnOptions& options, int stdin_fd, int wfd) {
  bool same_output = !options.stdout_path.empty() && options.stdout_path == options.stderr_path;
  if (stdin_fd >= 0) {
    if (::dup2(stdin_fd, 0) < 0) ChildFail(wfd, "dup stdin");
  } else if (!options.stdin_path.empty()) {
    int fd = ::open(options.stdin_path.c_str(), O_RDONLY);
    if (fd < 0 || ::dup2(fd, 0) < 0) ChildFail(wfd, "open stdin");
    ::close(fd);
  }
  if (!options.stdout_path.empty()) {
    int fd = ::open(options.stdout_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0 || ::dup2(fd, 1) < 0) ChildFail(wfd, "open stdout file");
    if (same_output && ::dup2(fd, 2) < 0) ChildFail(wfd, "dup stderr");
    ::close(fd);
  }
  if (!options.stderr_path.empty() && !same_output) {
    int fd = ::open(options.stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0 || ::dup2(fd, 2) < 0) ChildFail(wfd, "open stderr file");
    ::close(fd);
  }
}

// The forked child: its session or group, its parent-death signal, default signal dispositions,
// its I/O, then exec. A failure is written to `wfd` (ChildFail) for the parent to report.
[[noreturn]] void RunChild(const SpawnOptions& options, const std::string& program, char** argv,
                           char** envp, int stdin_fd, int wfd, pid_t parent_pid) {
  if (options.group == ProcessGroupMode::kNewSession) {
    if (::setsid() < 0) ChildFail(wfd, "setsid");
  } else if (options.group == ProcessGroupMode::kNewGroup) {
    if (::setpgid(0, 0) < 0) ChildFail(wfd, "setpgid");
  }
  if (options.parent_death_signal != 0) {
    if (::prctl(PR_SET_PDEATHSIG, options.parent_death_signal) != 0) ChildFail(wfd, "prctl");
    if (::getppid() != parent_pid) ::raise(options.parent_death_signal);
  }
  // Signals ignored or blocked by the parent would be inherited; give the child defaults.
  sigset_t all;
  sigemptyset(&all);
  ::sigprocmask(SIG_SETMASK, &all, nullptr);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD}) ::signal(sig, SIG_DFL);
  RedirectChildIo(options, stdin_fd, wfd);
  if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) ChildFail(wfd, "chdir");
  ::execve(program.c_str(), argv, envp);
  ChildFail(wfd, "exec");
}

// The parent's side of the exec handshake: the pipe `rfd` closes unread when the child's exec
// succeeded; otherwise it carries the errno and what failed, and the child is reaped.
Status AwaitExec(int rfd, pid_t pid, const std::string& argv0) {
  int child_errno = 0;
  char what[64] = {0};
  ssize_t n;
  do {
    n = ::read(rfd, &child_errno, sizeof(child_errno));
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof(child_errno))) {
    // What failed is a detail of the message: a short or failed read leaves it empty.
    ssize_t m = ::read(rfd, what, sizeof(what) - 1);
    (void)m;
    ::close(rfd);
    int status = 0;
    ::waitpid(pid, &status, 0);
    std::string msg = "cannot start '" + argv0 + "' (" + what + ")";
    Status s = ErrnoStatus(msg, child_errno);
    return Status(child_errno == ENOENT ? StatusCode::kNotFound : StatusCode::kFailedPrecondition,
                  s.message());
  }
  ::close(rfd);
  return Status::Ok();
}

}  // namespace

Result<pid_t> Spawn(const SpawnOptions& options) {
  if (options.argv.empty()) return InvalidArgument("empty command");
  std::string program = FindInPath(options.argv[0], options.env);
  std::vector<char*> argv;
  for (const auto& a : options.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  env_strings.reserve(options.env.size());
  for (const auto& [k, v] : options.env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  envp.reserve(env_strings.size() + 1);
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  TONY_ASSIGN_OR_RETURN(const int stdin_fd, StdinPipe(options));
  auto close_stdin_pipe = [&] {
    if (stdin_fd >= 0) ::close(stdin_fd);
  };
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) {
    int err = errno;
    close_stdin_pipe();
    return ErrnoStatus("pipe2", err);
  }
  pid_t parent_pid = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    int err = errno;
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    close_stdin_pipe();
    return ErrnoStatus("fork", err);
  }
  if (pid == 0) {
    ::close(pipefd[0]);
    RunChild(options, program, argv.data(), envp.data(), stdin_fd, pipefd[1], parent_pid);
  }
  ::close(pipefd[1]);
  close_stdin_pipe();
  TONY_RETURN_IF_ERROR(AwaitExec(pipefd[0], pid, options.argv[0]));
  return pid;
}

EnvMap CurrentEnvironment() {
  EnvMap env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view kv(*e);
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  return env;
}

int ExitCodeFromWaitStatus(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return -1;
}

std::string DescribeWaitStatus(int wait_status) {
  if (WIFEXITED(wait_status)) return "exit code " + std::to_string(WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    int sig = WTERMSIG(wait_status);
    return "killed by signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
  }
  return "unknown wait status " + std::to_string(wait_status);
}

bool ProcessAlive(pid_t pid) {
  if (pid <= 0) return false;
  ProcStat st;
  if (!ReadProcStat(pid, &st)) return false;
  return st.state != 'Z';
}

std::optional<int> AwaitChildExit(pid_t pid, int timeout_ms) {
  // The raw syscall: Debian 12's glibc declares pidfd_open without C linkage for C++.
  int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd >= 0) {
    pollfd p{fd, POLLIN, 0};
    while (::poll(&p, 1, timeout_ms) < 0 && errno == EINTR) {
    }
    ::close(fd);
  }
  int st = 0;
  if (::waitpid(pid, &st, WNOHANG) == pid) return st;
  return std::nullopt;
}

void SignalGroup(pid_t pgid, int sig) {
  if (pgid > 1) ::kill(-pgid, sig);
}

int64_t DescendantsRssBytes(pid_t root) {
  // One pass over /proc for the parent links, then the tree below `root`.
  std::map<pid_t, std::vector<pid_t>> children;
  ScanProcesses([&children](pid_t pid, const ProcStat& st) {
    children[st.ppid].push_back(pid);
    return false;
  });
  static const int64_t page = ::sysconf(_SC_PAGESIZE);
  int64_t total = 0;
  std::vector<pid_t> todo = {root};
  while (!todo.empty()) {
    pid_t parent = todo.back();
    todo.pop_back();
    for (pid_t child : children[parent]) {
      todo.push_back(child);
      std::ifstream statm("/proc/" + std::to_string(child) + "/statm");
      int64_t size = 0;
      int64_t resident = 0;
      if (statm >> size >> resident) total += resident * page;
    }
  }
  return total;
}

std::vector<pid_t> ProcessesInSession(pid_t sid) {
  return ScanProcesses([sid](const ProcStat& st) { return st.session == sid; });
}

void KillSession(pid_t sid) {
  if (sid <= 1) return;
  for (int round = 0; round < 50; ++round) {
    auto pids = ProcessesInSession(sid);
    if (pids.empty()) return;
    for (pid_t p : pids) ::kill(p, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Status BecomeChildSubreaper() {
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
    return ErrnoStatus("prctl(PR_SET_CHILD_SUBREAPER)", errno);
  }
  return Status::Ok();
}

void KillDescendants() {
  const pid_t self = ::getpid();
  for (int round = 0; round < 1000; ++round) {
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    auto children = ScanProcesses([self](const ProcStat& st) { return st.ppid == self; });
    if (children.empty()) return;
    for (pid_t child : children) ::kill(child, SIGKILL);
    for (pid_t child : children) {
      while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }
}

Status MakeNonDumpable() {
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
    return ErrnoStatus("prctl(PR_SET_DUMPABLE)", errno);
  return Status::Ok();
}

Result<std::string> ReadSecretFromFd(int fd) {
  std::string data;
  char buf[512];
  while (data.size() <= 4096) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("reading the job secret from fd " + std::to_string(fd), errno);
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd >= 0) {
    ::dup2(null_fd, fd);
    ::close(null_fd);
  }
  std::string secret(Trim(data));
  if (secret.empty() || data.size() > 4096) {
    return InvalidArgument("fd " + std::to_string(fd) + " did not hold a job secret");
  }
  return secret;
}

std::string ProcessCommandLine(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (auto& c : s) {
    if (c == '\0') c = ' ';
  }
  return std::string(Trim(s));
}

std::string ProcessStartId(pid_t pid) {
  if (pid <= 0) return "";
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return "";
  size_t close = line.rfind(')');
  if (close == std::string::npos) return "";
  std::istringstream rest(line.substr(close + 1));
  std::string field;
  // Fields after the command: state is field 3, starttime field 22.
  constexpr int kStartTimeField = 22 - 3;
  std::string state;
  rest >> state;
  if (!rest || state == "Z") return "";
  for (int i = 1; i <= kStartTimeField && rest >> field; ++i) {
  }
  if (!rest) return "";
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::string boot_id;
  std::getline(boot, boot_id);
  return std::string(Trim(boot_id)) + ":" + field;
}

}  // namespace tony
