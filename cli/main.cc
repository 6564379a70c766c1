// tony: one binary, many roles. `tony submit` on the user's machine, `tony am` as the job's
// coordinator, `tony executor` in every task container, and the job tools status/kill/logs.
#include <iostream>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "cli/help.h"
#include "client/bundle.h"
#include "client/job_control.h"
#include "client/logs.h"
#include "client/submit.h"
#include "common/files.h"
#include "common/log.h"
#include "common/process.h"
#include "common/strings.h"
#include "coordinator/am_main.h"
#include "engine/factory.h"
#include "executor/executor.h"
#include "history/job_dir.h"
#include "portal/server.h"

namespace tony::cli {
namespace {

int RunSubmit(const std::vector<std::string>& args) {
  auto flags = ParseFlags(args, SubmitFlags());
  if (!flags.ok()) {
    std::cerr << "tony: error: " << flags.status().message() << "\n";
    return client::kExitBadInput;
  }
  if (flags->Has("help")) {
    std::cout << CommandHelp("submit");
    return 0;
  }
  if (!flags->positional.empty()) {
    std::cerr << "tony: error: unexpected argument " << flags->positional[0] << "\n";
    return client::kExitBadInput;
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
  for (auto& path : SplitTrimmed(flags->Get("hdfs_classpath"), ',')) {
    if (!path.empty()) o.hdfs_classpath.push_back(path);
  }
  o.engine = flags->Get("engine");
  o.sidecar_tensorboard_log_dir = flags->Get("sidecar_tensorboard_log_dir");
  o.principal = flags->Get("principal");
  o.keytab = flags->Get("keytab");
  o.proxy_user = flags->Get("proxy_user");
  o.debug = flags->Has("debug");
  auto self = SelfExecutable();
  if (!self.ok()) {
    std::cerr << "tony: error: " << self.status().message() << "\n";
    return 1;
  }
  o.tony_binary = *self;
  return client::Submit(o, engine::ClientFaces());
}

int RunCoordinator(const std::vector<std::string>& args) {
  SetLogComponent("am");
  auto flags = ParseFlags(args, {{"job-dir", true, false, "the job directory"},
                                 {"engine", true, false, "local (default) or yarn"},
                                 {"keep-staging", false, false, "tony submit --debug"}});
  AmEngineFactory factory = flags.ok() ? EngineFactoryFor(flags->Get("engine")) : nullptr;
  if (!flags.ok() || !flags->Has("job-dir") || factory == nullptr) {
    TONY_LOG(kError) << "usage: tony am --job-dir <dir> [--engine local|yarn] [--keep-staging]";
    return 2;
  }
  return RunAm(flags->Get("job-dir"), factory, flags->Has("keep-staging"));
}

int RunLogs(const std::vector<std::string>& args) {
  auto flags = ParseFlags(args, LogsFlags());
  if (!flags.ok()) {
    std::cerr << "tony: error: " << flags.status().message() << "\n" << CommandHelp("logs");
    return 2;
  }
  if (flags->Has("help")) {
    std::cout << CommandHelp("logs");
    return 0;
  }
  if (flags->positional.size() != 1) {
    std::cerr << "tony: error: tony logs takes one job id\n" << CommandHelp("logs");
    return 2;
  }
  client::LogsOptions o;
  o.task = flags->Get("task");
  o.stream = flags->Get("stream", "all");
  o.follow = flags->Has("follow");
  if (flags->Has("stream") && o.task.empty()) {
    std::cerr << "tony: error: --stream picks one of a task's files; add --task role:index "
                 "(without --task, tony logs shows the coordinator's log)\n";
    return 2;
  }
  int64_t attempt = -1;
  for (auto [name, out] : {std::pair{"attempt", &attempt}, std::pair{"tail", &o.tail_lines}}) {
    if (!flags->Has(name)) continue;
    auto n = ParseInt64(flags->Get(name));
    if (!n || *n < 0) {
      std::cerr << "tony: error: --" << name << " " << flags->Get(name)
                << ": expected a number >= 0\n";
      return 2;
    }
    *out = *n;
  }
  o.attempt = static_cast<int>(attempt);
  return client::ShowLogs(engine::ClientFaces(), flags->positional[0], o);
}

// `tony status [<id>]` and `tony kill <id>`: one job id at most (exactly one for kill).
Result<std::string> OneJobId(const std::string& command, const ParsedFlags& parsed, bool required) {
  const ParsedFlags* flags = &parsed;
  if (flags->positional.size() > 1) {
    return InvalidArgument("tony " + command + " takes " +
                           (required ? "one job id" : "at most one job id") + "; got " +
                           Join(flags->positional, " "));
  }
  if (flags->positional.empty()) {
    if (required) return InvalidArgument("tony " + command + " needs a job id");
    return std::string();
  }
  if (flags->positional[0].empty()) return InvalidArgument("'' is not a job id");
  return flags->positional[0];
}

int RunStatusOrKill(const std::string& command, const std::vector<std::string>& args) {
  bool kill = command == "kill";
  auto flags = ParseFlags(args, kill ? HelpOnlyFlags() : StatusFlags());
  Result<std::string> id =
      flags.ok() ? OneJobId(command, *flags, kill) : Result<std::string>(flags.status());
  if (!id.ok()) {
    std::cerr << "tony: error: " << id.status().message() << "\n" << CommandHelp(command);
    return 2;
  }
  if (!kill) return client::ShowStatus(engine::ClientFaces(), *id, flags->Has("json"));
  return client::KillJob(engine::ClientFaces(), *id);
}

// `tony portal`: the jobs of this $TONY_HOME as web pages until Ctrl-C (portal/server.h).
int RunPortal(const std::vector<std::string>& args) {
  auto flags = ParseFlags(args, PortalFlags());
  if (!flags.ok() || !flags->positional.empty()) {
    std::cerr << "tony: error: "
              << (flags.ok() ? "unexpected argument " + flags->positional[0]
                             : flags.status().message())
              << "\n"
              << CommandHelp("portal");
    return 2;
  }
  portal::PortalOptions o;
  o.bind = flags->Get("bind", o.bind);
  auto port = ParseInt64(flags->Get("port", std::to_string(o.port)));
  if (!port || *port < 0 || *port > 65535) {
    std::cerr << "tony: error: --port " << flags->Get("port")
              << ": expected a port number from 0 to 65535\n";
    return 2;
  }
  o.port = static_cast<int>(*port);
  o.sources.history = flags->Get("history");
  if (Status readable = history::CheckJobRecordsReadable(); !readable.ok()) {
    std::cerr << "tony: error: " << readable.message() << "\n";
    return 1;
  }
  o.sources.jobs_root = history::JobsRoot();
  Status served = portal::RunPortal(o, [](const std::string& url) {
    std::cout << "tony portal: serving the jobs of " << history::JobsRoot() << " on " << url
              << std::endl;
  });
  if (!served.ok()) {
    std::cerr << "tony: error: " << served.message() << "\n";
    return served.code() == StatusCode::kInvalidArgument ? 2 : 1;
  }
  return 0;
}

// The bundle for this executable, from $TONY_HOME/cache (client/bundle.h).
int RunBundle() {
  Status home = history::PrepareTonyHome();
  if (!home.ok()) {
    std::cerr << "tony: error: " << home.message() << "\n";
    return 1;
  }
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
  // Every tony process may hold a job secret (README, "The job secret"): none may
  // be read through /proc by the job's own code, which runs as the same user. Ignored: prctl(2)
  // fails only for an invalid option or value, and PR_SET_DUMPABLE with 0 is neither.
  (void)MakeNonDumpable();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << Usage();
    return 2;
  }
  if (args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    if (args.size() == 1) {
      std::cout << Usage();
      return 0;
    }
    std::string help = CommandHelp(args[1]);
    if (help.empty()) {
      std::cerr << "tony: unknown command " << args[1] << "\n" << Usage();
      return 2;
    }
    std::cout << help;
    return 0;
  }
  std::string command = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  // Subcommands with flags of their own parse --help/-h themselves (a value may be "-h").
  if (command != "submit" && command != "logs" && WantsHelp(rest) &&
      !CommandHelp(command).empty()) {
    std::cout << CommandHelp(command);
    return 0;
  }
  if (command == "submit") return RunSubmit(rest);
  if (command == "am") return RunCoordinator(rest);
  if (command == "executor") return RunExecutor();
  if (command == "status" || command == "kill") return RunStatusOrKill(command, rest);
  if (command == "logs") return RunLogs(rest);
  if (command == "bundle") return RunBundle();
  if (command == "portal") return RunPortal(rest);
  if (command == "version" || command == "--version") {
    std::cout << "tony 0.1.0\n";
    return 0;
  }
  std::cerr << "tony: unknown command " << command << "\n" << Usage();
  return 2;
}

}  // namespace tony::cli

int main(int argc, char** argv) { return tony::cli::Main(argc, argv); }
