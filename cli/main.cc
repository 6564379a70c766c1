// tony: one binary, many roles. `tony submit` on the user's machine, `tony am` as the job's
// coordinator, `tony executor` in every task container, and the job tools status/kill/logs.
#include <iostream>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "client/bundle.h"
#include "client/job_control.h"
#include "client/submit.h"
#include "client/yarn_submit.h"
#include "common/files.h"
#include "common/log.h"
#include "common/strings.h"
#include "coordinator/am_main.h"
#include "executor/executor.h"
#include "history/job_dir.h"

namespace tony::cli {
namespace {

const std::vector<FlagSpec>& SubmitFlags() {
  static const std::vector<FlagSpec> kFlags = {
      {"executes", true, false, "entry point: a script (run by --python_binary_path) or a command"},
      {"task_params", true, false, "arguments appended to the command"},
      {"python_binary_path", true, false, "python interpreter; relative paths are inside the venv"},
      {"python_venv", true, false, "zipped virtualenv, unpacked to venv/ in every task"},
      {"src_dir", true, false, "directory (or zip) unpacked into every task's working dir"},
      {"conf_file", true, false, "job configuration (tony.xml)"},
      {"conf", true, true, "override a key: --conf tony.worker.instances=4"},
      {"shell_env", true, true, "K=V for the user process (tony.execution.envs)"},
      {"container_env", true, true, "K=V for the container (tony.containers.envs)"},
      {"engine", true, false, "local or yarn (default: yarn when HADOOP_CONF_DIR is set)"},
      {"hdfs_classpath", true, false, "(yarn engine) remote paths added to every container"},
      {"sidecar_tensorboard_log_dir", true, false, "(not yet supported)"},
      {"debug", false, false, "keep staged files"},
      {"help", false, false, "this help"},
  };
  return kFlags;
}

const char* kUsage =
    "usage: tony <command> [flags]\n"
    "  submit    run a job:  tony submit --executes train.py --src_dir src --conf_file tony.xml\n"
    "  status    tony status [<job id>]      tasks and result of a job (all jobs without an id)\n"
    "  kill      tony kill <job id>          stop a job and everything it started\n"
    "  logs      tony logs <job id> [--task worker:1] [--stream stdout|stderr|executor|all]\n"
    "  am        (internal) the job's coordinator\n"
    "  executor  (internal) a task's executor\n"
    "  bundle    (internal) build the archive tony submit ships to YARN and print its path\n"
    "  version   print the version\n";

int RunSubmit(const std::vector<std::string>& args) {
  auto flags = ParseFlags(args, SubmitFlags());
  if (!flags.ok()) {
    std::cerr << "tony: error: " << flags.status().message() << "\n";
    return client::kExitBadInput;
  }
  if (flags->Has("help")) {
    std::cout << "usage: tony submit [flags]\n" << FlagsHelp(SubmitFlags());
    return 0;
  }
  if (!flags->positional.empty()) {
    std::cerr << "tony: error: unexpected argument " << flags->positional[0] << "\n";
    return client::kExitBadInput;
  }
  for (const char* unsupported : {"sidecar_tensorboard_log_dir", "hdfs_classpath"}) {
    if (flags->Has(unsupported)) {
      std::cerr << "tony: error: --" << unsupported << " is not supported by this build yet\n";
      return client::kExitBadInput;
    }
  }
  client::SubmitOptions o;
  o.executes = flags->Get("executes");
  o.task_params = flags->Get("task_params");
  o.python_binary_path = flags->Get("python_binary_path");
  o.python_venv = flags->Get("python_venv");
  o.src_dir = flags->Get("src_dir");
  o.conf_file = flags->Get("conf_file");
  o.confs = flags->All("conf");
  o.shell_envs = flags->All("shell_env");
  o.container_envs = flags->All("container_env");
  o.engine = flags->Get("engine");
  auto self = SelfExecutable();
  if (!self.ok()) {
    std::cerr << "tony: error: " << self.status().message() << "\n";
    return 1;
  }
  o.tony_binary = *self;
  return client::Submit(o);
}

int RunCoordinator(const std::vector<std::string>& args) {
  SetLogComponent("am");
  auto flags = ParseFlags(args, {{"job-dir", true, false, "the job directory"},
                                 {"engine", true, false, "local (default) or yarn"}});
  EngineFactory factory = flags.ok() ? EngineFactoryFor(flags->Get("engine")) : nullptr;
  if (!flags.ok() || !flags->Has("job-dir") || factory == nullptr) {
    TONY_LOG(kError) << "usage: tony am --job-dir <dir> [--engine local|yarn]";
    return 2;
  }
  return RunAm(flags->Get("job-dir"), factory);
}

int RunLogs(const std::vector<std::string>& args) {
  auto flags = ParseFlags(args, {{"task", true, false, "role:index"},
                                 {"attempt", true, false, "attempt number (default: latest)"},
                                 {"stream", true, false, "stdout, stderr, executor or all"}});
  if (!flags.ok() || flags->positional.size() != 1) {
    std::cerr << "usage: tony logs <job id> [--task worker:1] [--attempt N] [--stream all]\n";
    return 2;
  }
  int attempt = static_cast<int>(ParseInt64(flags->Get("attempt", "-1")).value_or(-1));
  return client::ShowLogs(flags->positional[0], flags->Get("task"), attempt,
                          flags->Get("stream", "all"));
}

// The bundle for this executable, from $TONY_HOME/cache (client/bundle.h).
int RunBundle() {
  auto self = SelfExecutable();
  auto bundle = self.ok() ? client::BuildBundle(*self, history::TonyHome() + "/cache")
                          : Result<std::string>(self.status());
  if (!bundle.ok()) {
    std::cerr << "tony: error: " << bundle.status().message() << "\n";
    return 1;
  }
  std::cout << *bundle << "\n";
  return 0;
}

}  // namespace

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  std::string command = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "submit") return RunSubmit(rest);
  if (command == "am") return RunCoordinator(rest);
  if (command == "executor") return RunExecutor();
  if (command == "status") return client::ShowStatus(rest.empty() ? "" : rest[0]);
  if (command == "kill") {
    if (rest.size() != 1) {
      std::cerr << "usage: tony kill <job id>\n";
      return 2;
    }
    if (StartsWith(rest[0], "application_")) {
      return client::KillYarnApplication(rest[0], client::HadoopConfDirOf(rest[0]));
    }
    return client::KillJob(rest[0]);
  }
  if (command == "logs") return RunLogs(rest);
  if (command == "bundle") return RunBundle();
  if (command == "version" || command == "--version") {
    std::cout << "tony 0.1.0\n";
    return 0;
  }
  std::cerr << "tony: unknown command " << command << "\n" << kUsage;
  return 2;
}

}  // namespace tony::cli

int main(int argc, char** argv) { return tony::cli::Main(argc, argv); }
