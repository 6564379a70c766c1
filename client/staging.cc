#include "client/staging.h"

#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <cerrno>
#include <cstdio>

#include "common/files.h"
#include "common/process.h"
#include "common/strings.h"

namespace tony::client {
namespace {

std::atomic<int> g_interrupts{0};
std::atomic<int> g_first_signal{0};

void OnInterrupt(int sig) {
  int none = 0;
  g_first_signal.compare_exchange_strong(none, sig);
  g_interrupts.fetch_add(1);
}

}  // namespace

Status RunQuiet(const std::vector<std::string>& argv, const std::string& cwd) {
  SpawnOptions o;
  o.argv = argv;
  o.env = CurrentEnvironment();
  o.cwd = cwd;
  o.stdout_path = "/dev/null";
  TONY_ASSIGN_OR_RETURN(pid_t pid, Spawn(o));
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (ExitCodeFromWaitStatus(st) != 0) {
    return Internal(Join(argv, " ") + " failed (" + DescribeWaitStatus(st) + ")");
  }
  return Status::Ok();
}

Status CheckZipArchive(const std::string& flag, const std::string& path) {
  // unzip prints a directory's reason as "cannot find zipfile directory"; say it plainly.
  if (IsDirectory(path)) return InvalidArgument(flag + " " + path + ": a directory, not a zip");
  std::string cmd = "unzip -tqq " + ShellQuote(path) + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return ErrnoStatus("cannot run unzip", errno);
  // unzip's first lines say why (not a zip, a bad CRC in entry x); the rest repeat it.
  constexpr size_t kReasonLines = 3;
  std::vector<std::string> reason;
  char line[1024];
  while (std::fgets(line, sizeof(line), p) != nullptr) {
    std::string text(Trim(line));
    if (!text.empty() && reason.size() < kReasonLines) reason.push_back(std::move(text));
  }
  int st = ::pclose(p);
  if (st == -1) return ErrnoStatus("cannot run unzip", errno);
  if (ExitCodeFromWaitStatus(st) == 0) return Status::Ok();
  std::string why = reason.empty() ? DescribeWaitStatus(st) : Join(reason, "; ");
  return InvalidArgument(flag + " " + path + ": not a valid zip archive (unzip -t: " + why + ")");
}

Status StageJobFiles(const SubmitOptions& o, const history::JobPaths& paths) {
  TONY_RETURN_IF_ERROR(MakeDirs(paths.Staging(), 0700));
  if (!o.src_dir.empty()) {
    TONY_ASSIGN_OR_RETURN(std::string src, AbsolutePath(o.src_dir));
    std::string dest = paths.Staging() + "/tony_src.zip";
    if (IsDirectory(src)) {
      TONY_RETURN_IF_ERROR(RunQuiet({"zip", "-q", "-r", "-y", dest, "."}, src)
                               .WithContext("archiving --src_dir " + o.src_dir));
    } else {
      TONY_RETURN_IF_ERROR(RunQuiet({"cp", src, dest}, "").WithContext("staging --src_dir"));
    }
  }
  if (!o.python_venv.empty()) {
    TONY_ASSIGN_OR_RETURN(std::string venv, AbsolutePath(o.python_venv));
    TONY_RETURN_IF_ERROR(RunQuiet({"cp", venv, paths.Staging() + "/venv.zip"}, "")
                             .WithContext("staging --python_venv"));
  }
  return Status::Ok();
}

void InstallInterruptHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

int Interrupts() { return g_interrupts.load(); }

std::string InterruptNotice(const std::string& what) {
  if (g_first_signal.load() == SIGTERM) {
    return "tony: SIGTERM received; stopping " + what + " (a second SIGTERM or SIGINT forces it)";
  }
  return "tony: interrupted; stopping " + what + " (Ctrl-C again to force)";
}

std::string InterruptForcedReason() {
  return g_first_signal.load() == SIGTERM
             ? "killed by SIGTERM to tony submit (forced by a second signal)"
             : "killed by user (Ctrl-C twice in tony submit: forced)";
}

std::string InterruptKillReason() {
  return g_first_signal.load() == SIGTERM ? "killed by SIGTERM to tony submit"
                                          : "killed by user (Ctrl-C in tony submit)";
}

}  // namespace tony::client
