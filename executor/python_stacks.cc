#include "executor/python_stacks.h"

#include <dirent.h>
#include <signal.h>

#include <cstdlib>
#include <set>

#include "common/files.h"
#include "common/strings.h"

namespace tony {
namespace {

// The hook. It must never break the user's program: every step is best-effort.
constexpr std::string_view kHook =
    R"PY(# Written by tony's executor (README "Stalls"); it lets tony ask this process for its
# Python stacks when the task stalls: faulthandler writes every thread's stack to
# $TONY_STACKS_DIR/<pid> on signal $TONY_STACKS_SIGNAL. Then the sitecustomize this
# process would have run without tony's runs.
import os as _tony_os
import sys as _tony_sys


def _tony_register():
    try:
        import faulthandler
        d = _tony_os.environ.get("TONY_STACKS_DIR")
        sig = int(_tony_os.environ.get("TONY_STACKS_SIGNAL", "0"))
        if not d or sig <= 0:
            return
        f = open(_tony_os.path.join(d, str(_tony_os.getpid())), "a")
        faulthandler.register(sig, file=f, all_threads=True, chain=False)
        _tony_sys.modules[__name__]._tony_stacks_file = f  # faulthandler needs it open
    except Exception:
        pass


def _tony_next_sitecustomize():
    try:
        import importlib.machinery
        import importlib.util
        here = _tony_os.path.dirname(_tony_os.path.abspath(__file__))
        rest = [p for p in _tony_sys.path if _tony_os.path.abspath(p or ".") != here]
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
        if spec is None or spec.loader is None:
            return
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except Exception:
        pass


_tony_register()
try:
    # A forked child (multiprocessing, DataLoader workers) keeps the handler but not its own file:
    # its stacks would land in its parent's.
    _tony_os.register_at_fork(after_in_child=_tony_register)
except Exception:
    pass
_tony_next_sitecustomize()
)PY";

}  // namespace

int StacksSignal() { return SIGRTMAX - 3; }

std::string PythonHookDir(const std::string& log_dir) { return JoinPath(log_dir, ".tony-python"); }

std::string StacksDumpDir(const std::string& log_dir) {
  return JoinPath(PythonHookDir(log_dir), "stacks");
}

Status WritePythonHook(const std::string& log_dir) {
  TONY_RETURN_IF_ERROR(MakeDirs(StacksDumpDir(log_dir)));
  return WriteFileAtomic(JoinPath(PythonHookDir(log_dir), "sitecustomize.py"), std::string(kHook));
}

void PythonHookEnv(const std::string& log_dir, EnvMap& env) {
  std::string& path = env["PYTHONPATH"];
  path = path.empty() ? PythonHookDir(log_dir) : PythonHookDir(log_dir) + ":" + path;
  env["TONY_STACKS_DIR"] = StacksDumpDir(log_dir);
  env["TONY_STACKS_SIGNAL"] = std::to_string(StacksSignal());
}

bool MaskHasSignal(std::string_view hex_mask, int sig) {
  hex_mask = Trim(hex_mask);
  if (sig < 1) return false;
  const size_t bit = static_cast<size_t>(sig - 1);
  const size_t digit_from_right = bit / 4;
  if (digit_from_right >= hex_mask.size()) return false;
  char c = hex_mask[hex_mask.size() - 1 - digit_from_right];
  int value = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : 0;
  return (value >> (bit % 4)) & 1;
}

std::vector<pid_t> ProcessesInGroups(const std::vector<pid_t>& groups) {
  std::set<pid_t> wanted(groups.begin(), groups.end());
  std::vector<pid_t> found;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return found;
  while (dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    auto stat = ReadFileBounded("/proc/" + std::string(entry->d_name) + "/stat", 4096);
    if (!stat.ok()) continue;
    // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses; the last ')' ends it.
    size_t close = stat->rfind(')');
    if (close == std::string::npos) continue;
    std::vector<std::string> fields = SplitTrimmed(std::string_view(*stat).substr(close + 1), ' ');
    if (fields.size() < 3) continue;
    if (wanted.count(static_cast<pid_t>(std::strtol(fields[2].c_str(), nullptr, 10))) > 0) {
      found.push_back(static_cast<pid_t>(pid));
    }
  }
  ::closedir(proc);
  return found;
}

bool CatchesSignal(pid_t pid, int sig) {
  auto status = ReadFileBounded("/proc/" + std::to_string(pid) + "/status", 16384);
  if (!status.ok()) return false;
  size_t at = status->find("\nSigCgt:");
  if (at == std::string::npos) return false;
  size_t start = at + 8;
  size_t end = status->find('\n', start);
  return MaskHasSignal(std::string_view(*status).substr(start, end - start), sig);
}

bool IsStopped(pid_t pid) {
  auto stat = ReadFileBounded("/proc/" + std::to_string(pid) + "/stat", 4096);
  if (!stat.ok()) return false;
  size_t close = stat->rfind(')');
  if (close == std::string::npos || close + 2 >= stat->size()) return false;
  char state = (*stat)[close + 2];
  return state == 'T' || state == 't';
}

std::string CommandLine(pid_t pid) {
  auto raw = ReadFileBounded("/proc/" + std::to_string(pid) + "/cmdline", 4096);
  if (!raw.ok()) return "";
  std::string line = *raw;
  while (!line.empty() && line.back() == '\0') line.pop_back();
  for (char& c : line) {
    if (c == '\0') c = ' ';
  }
  return line;
}

std::string InnermostMainFrame(std::string_view dump) {
  std::string frame;
  bool in_block = false;
  bool have_frame = false;
  for (std::string_view rest = dump; !rest.empty();) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (StartsWith(line, "Thread 0x") || StartsWith(line, "Current thread 0x")) {
      in_block = true;
      have_frame = false;
      continue;
    }
    std::string_view t = Trim(line);
    if (!in_block || have_frame || !StartsWith(t, "File \"")) continue;
    // File "/path/train.py", line 12 in wait_for_peers
    size_t quote = t.find('"', 6);
    size_t line_at = t.find(", line ", quote);
    size_t in_at = t.find(" in ", line_at);
    if (quote == std::string_view::npos || line_at == std::string_view::npos ||
        in_at == std::string_view::npos) {
      continue;
    }
    frame = std::string(t.substr(in_at + 4)) + " at " +
            BaseName(std::string(t.substr(6, quote - 6))) + ":" +
            std::string(t.substr(line_at + 7, in_at - line_at - 7));
    have_frame = true;
  }
  return frame;
}

}  // namespace tony
