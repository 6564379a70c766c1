#include "cli/help.h"

#include <map>
#include <string_view>

#include "config/key_names.h"

namespace tony::cli {
namespace {

// The help of a flag that sets `key`, which it names at its end: "... (tony.kerberos.keytab)". Key
// names are config/'s (config/key_names.h).
std::string SetsKey(const std::string& help, std::string_view key) {
  return help + " (" + std::string(key) + ")";
}

}  // namespace

const std::vector<FlagSpec>& SubmitFlags() {
  static const std::vector<FlagSpec> kFlags = {
      {"executes", true, false, "entry point: a script (run by --python_binary_path) or a command"},
      {"task_params", true, false, "arguments appended to the command"},
      {"python_binary_path", true, false, "python interpreter; relative paths are inside the venv"},
      {"python_venv", true, false, "zipped virtualenv, unpacked to venv/ in every task"},
      {"src_dir", true, false, "directory (or zip) unpacked into every task's working dir"},
      {"conf_file", true, false,
       "job configuration: a path, file://path or hdfs:///path (default: ./tony.xml when it "
       "exists)"},
      {"conf", true, true,
       "override a key: --conf " + keys::ForRole(keys::kRoleInstances, "worker") + "=4"},
      {"shell_env", true, true,
       SetsKey("K=V for the user process", keys::kExecutionEnvs) + "; K alone: K=\"\""},
      {"container_env", true, true, SetsKey("K=V for the container", keys::kContainersEnvs)},
      {"engine", true, false, "local or yarn (default: yarn when HADOOP_CONF_DIR is set)"},
      {"hdfs_classpath", true, false,
       "(yarn engine) comma-separated HDFS paths localized into every container"},
      {"principal", true, false,
       SetsKey("(yarn engine, Kerberos) log in as this principal from --keytab instead of the "
               "ticket cache",
               keys::kKerberosPrincipal)},
      {"keytab", true, false,
       SetsKey("(yarn engine, Kerberos) the keytab of --principal", keys::kKerberosKeytab)},
      {"proxy_user", true, false,
       SetsKey("(yarn engine, Kerberos) run the job as this user on behalf of the login; the "
               "cluster's hadoop.proxyuser.* must allow it",
               keys::kKerberosProxyUser)},
      {"sidecar_tensorboard_log_dir", true, false,
       SetsKey("run TensorBoard on this directory in a sidecar task `tensorboard`; its URL shows "
               "in the status",
               keys::kApplicationTensorboardLogDir)},
      {"debug", false, false,
       "keep the staged job (the job dir's staging/; on YARN its HDFS staging dir too) and say "
       "where it is"},
      {"help", false, false, "this help"},
  };
  return kFlags;
}

const std::vector<FlagSpec>& StatusFlags() {
  static const std::vector<FlagSpec> kFlags = {
      {"json", false, false, "print the status as JSON (docs/status-json.md) instead of a table"},
      {"help", false, false, "this help"}};
  return kFlags;
}

const std::vector<FlagSpec>& PortalFlags() {
  static const std::vector<FlagSpec> kFlags = {
      {"port", true, false, "the port to serve on (default 8080; 0: any free port)"},
      {"bind", true, false, "the address to serve on (default 127.0.0.1: this machine only)"},
      {"history", true, false,
       SetsKey("also show the jobs of this TonY-layout history directory, a job's",
               keys::kHistoryLocation)},
      {"help", false, false, "this help"},
  };
  return kFlags;
}

const std::vector<FlagSpec>& LogsFlags() {
  static const std::vector<FlagSpec> kFlags = {
      {"task", true, false, "role:index (default: the coordinator's log)"},
      {"attempt", true, false, "attempt number (default: the latest)"},
      {"stream", true, false, "stdout, stderr, executor or all (default all; needs --task)"},
      {"tail", true, false, "only the last N lines of each file"},
      {"follow", false, false, "keep printing what is written until the task (or job) ends", 'f'},
      {"help", false, false, "this help"},
  };
  return kFlags;
}

const std::vector<FlagSpec>& HelpOnlyFlags() {
  static const std::vector<FlagSpec> kFlags = {{"help", false, false, "this help"}};
  return kFlags;
}

std::string Usage() {
  return "usage: tony <command> [flags]   (tony help <command>, tony <command> --help)\n"
         "  submit    run a job:  tony submit --executes train.py --src_dir src --conf_file "
         "tony.xml\n"
         "  status    tony status [<job id>]      tasks and result of a job (all jobs without an "
         "id)\n"
         "  kill      tony kill <job id>          stop a job and everything it started\n"
         "  logs      tony logs <job id> [--task worker:1] [--stream stdout|stderr|executor|all]\n"
         "            [--tail N] [--follow]\n"
         "  portal    tony portal [--port N]      a web page of the jobs, their tasks, config and "
         "logs\n"
         "  am        (internal) the job's coordinator\n"
         "  executor  (internal) a task's executor\n"
         "  bundle    (internal) build the archive tony submit ships to YARN and print its path\n"
         "  version   print the version\n"
         "  help      tony help <command>: the flags of one command\n";
}

std::string CommandHelp(const std::string& command) {
  static const std::map<std::string, std::string> kHelp = {
      {"status",
       "usage: tony status [--json] [<job id>]\n"
       "With a job id (or a unique prefix of one, or a YARN application id): the job's task\n"
       "table and result; exits 1 if the job failed. Without: one line per job under\n"
       "$TONY_HOME/jobs (name, user, start, duration, state, message), oldest first.\n"},
      {"kill",
       "usage: tony kill <job id>\n"
       "Stops the job and everything it started (a YARN application id kills the application).\n"},
      {"logs",
       "usage: tony logs <job id> [flags]\n"
       "A task's stdout, stderr and executor.log (--task role:index), or the coordinator's log.\n"},
      {"am", "usage: tony am --job-dir <dir> [--engine yarn]\n(internal) the job's coordinator.\n"},
      {"executor",
       "usage: tony executor\n(internal) a task's executor; it reads its identity from the\n"
       "environment the engine gives it.\n"},
      {"bundle",
       "usage: tony bundle\n(internal) builds the archive `tony submit` ships to YARN (tony and\n"
       "its shared libraries) into $TONY_HOME/cache and prints its path.\n"},
      {"portal",
       "usage: tony portal [--port N] [--bind ADDR] [--history DIR]\n"
       "Serves the jobs under $TONY_HOME/jobs (and a TonY-layout history dir) as web pages:\n"
       "the jobs list, each job's tasks and events, its configuration and logs (TonY's routes\n"
       "/, /jobs/<id>, /config/<id>, /logs/<id>; /api/jobs as JSON). Prints the URL; Ctrl-C\n"
       "stops it.\n"},
      {"version", "usage: tony version\nPrints the version.\n"},
      {"help", "usage: tony help [<command>]\n"},
  };
  if (command == "submit") return "usage: tony submit [flags]\n" + FlagsHelp(SubmitFlags());
  if (command == "logs") return kHelp.at("logs") + FlagsHelp(LogsFlags());
  if (command == "status") return kHelp.at("status") + FlagsHelp(StatusFlags());
  if (command == "portal") return kHelp.at("portal") + FlagsHelp(PortalFlags());
  auto it = kHelp.find(command);
  return it == kHelp.end() ? "" : it->second;
}

}  // namespace tony::cli
