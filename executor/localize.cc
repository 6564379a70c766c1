#include "executor/localize.h"

#include <sys/wait.h>

#include <filesystem>
#include <sstream>

#include "common/files.h"
#include "common/log.h"
#include "common/process.h"
#include "common/strings.h"

namespace tony {
namespace {

namespace fs = std::filesystem;

struct RunResult {
  int wait_status = 0;
  std::string output;  // stdout and stderr together
};

// Runs a short command to its end with its output in `log`, then gives that output back.
Result<RunResult> RunCapturing(std::vector<std::string> argv, const std::string& log) {
  // The command appends to `log`: an earlier run's output must not pass for this one's.
  if (Status cleared = RemoveAll(log); !cleared.ok()) {
    TONY_LOG(kWarning) << cleared.message() << "; the output read back may begin with an earlier "
                       << "run's";
  }
  SpawnOptions o;
  o.argv = std::move(argv);
  o.env = CurrentEnvironment();
  o.stdout_path = log;
  o.stderr_path = log;
  TONY_ASSIGN_OR_RETURN(pid_t pid, Spawn(o));
  RunResult r;
  while (::waitpid(pid, &r.wait_status, 0) < 0 && errno == EINTR) {
  }
  auto out = ReadFile(log);
  if (out.ok()) r.output = std::move(out).value();
  return r;
}

std::string Last(const std::string& output) { return Join(TailText(output, 5, 2048), "\n"); }

Status CheckEntries(const std::string& archive, const std::string& root, const std::string& dest,
                    const std::string& log) {
  TONY_ASSIGN_OR_RETURN(RunResult listing, RunCapturing({"zipinfo", "-1", archive}, log));
  if (ExitCodeFromWaitStatus(listing.wait_status) != 0) {
    return InvalidArgument("zipinfo " + archive + " failed (" +
                           DescribeWaitStatus(listing.wait_status) + "): " + Last(listing.output));
  }
  std::istringstream names(listing.output);
  for (std::string entry; std::getline(names, entry);) {
    if (!entry.empty()) TONY_RETURN_IF_ERROR(CheckEntryPath(archive, root, dest, entry));
  }
  return Status::Ok();
}

Status Unzip(const std::string& archive, const std::string& dest, const std::string& log_dir) {
  std::string root = fs::current_path().lexically_normal().string();
  std::string log = JoinPath(log_dir, "unzip.log");
  TONY_RETURN_IF_ERROR(CheckEntries(archive, root, dest, log));
  TONY_RETURN_IF_ERROR(MakeDirs(dest));
  TONY_ASSIGN_OR_RETURN(RunResult r, RunCapturing({"unzip", "-q", "-o", archive, "-d", dest}, log));
  if (ExitCodeFromWaitStatus(r.wait_status) != 0) {
    return Internal("unzip " + archive + " failed (" + DescribeWaitStatus(r.wait_status) +
                    "): " + Last(r.output));
  }
  return Status::Ok();
}

}  // namespace

Status CheckEntryPath(const std::string& archive, const std::string& root, const std::string& dest,
                      const std::string& entry) {
  std::error_code ec;
  fs::path real_root = fs::weakly_canonical(root, ec);
  fs::path path = fs::path(root);
  fs::path relative = (fs::path(dest) / entry).lexically_normal();
  for (const auto& part : relative) {
    if (part.empty() || part == ".") continue;
    path /= part;
    if (!fs::is_symlink(fs::symlink_status(path, ec))) continue;
    fs::path target = fs::weakly_canonical(path, ec);
    fs::path rel = target.lexically_relative(real_root);
    if (ec || rel.empty() || *rel.begin() == "..") {
      return FailedPrecondition(
          archive + ": entry '" + entry + "' would be written through the symlink '" +
          path.lexically_relative(root).string() + "' -> '" + fs::read_symlink(path, ec).string() +
          "', which leaves the task's working directory; refusing to unpack " + archive);
    }
  }
  return Status::Ok();
}

Status Localize(const std::string& log_dir) {
  if (PathExists("tony_src.zip")) TONY_RETURN_IF_ERROR(Unzip("tony_src.zip", ".", log_dir));
  if (PathExists("venv.zip")) TONY_RETURN_IF_ERROR(Unzip("venv.zip", "venv", log_dir));
  return Status::Ok();
}

}  // namespace tony
