#include "client/submit.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <thread>

#include "client/engine_face.h"
#include "client/follow.h"
#include "client/job_record.h"
#include "client/render.h"
#include "client/resources.h"
#include "client/staging.h"
#include "client/warnings.h"
#include "common/clock.h"
#include "common/files.h"
#include "common/log.h"
#include "common/net.h"
#include "common/process.h"
#include "common/strings.h"
#include "config/job_spec.h"
#include "config/key_names.h"
#include "config/role_names.h"
#include "engine/engine_name.h"
#include "history/job_dir.h"
#include "rpc/client.h"
#include "rpc/spec_file.h"
#include "runtime/framework.h"
#include "runtime/runtime.h"
#include "runtime/tensorboard.h"

namespace tony::client {
namespace {

std::string SiteFilePath() {
  const char* dir = std::getenv("TONY_CONF_DIR");
  return std::string(dir != nullptr && *dir != '\0' ? dir : "/export/apps/tony/conf") +
         "/tony-site.xml";
}

// The command every task runs, as TonY's submitter composes it from --executes,
// --python_binary_path and --task_params.
std::string ComposeCommand(const SubmitOptions& o, const std::string& python) {
  std::string cmd = python.empty() ? o.executes : python + " " + o.executes;
  if (!o.task_params.empty()) cmd += " " + o.task_params;
  return cmd;
}

// --executes names a script: make sure it will be there, so a typo fails here and not in every
// container. Only checked when the entry point is clearly a file (a python script, or any file
// run by --python_binary_path).
Status CheckEntryPoint(const SubmitOptions& o) {
  auto words = ShellSplit(o.executes);
  if (words.empty()) return Status::Ok();
  const std::string& script = words[0];
  bool is_script = !o.python_binary_path.empty() || EndsWith(script, ".py");
  if (!is_script || script[0] == '/') {
    if (is_script && !PathExists(script)) {
      return InvalidArgument("--executes " + script + ": no such file");
    }
    return Status::Ok();
  }
  if (!o.src_dir.empty() && IsDirectory(o.src_dir)) {
    if (!PathExists(JoinPath(o.src_dir, script))) {
      return InvalidArgument("--executes " + script + ": no such file in --src_dir " + o.src_dir);
    }
  } else if (o.src_dir.empty() && !PathExists(script)) {
    return InvalidArgument("--executes " + script +
                           ": no such file (and no --src_dir to find it in)");
  }
  return Status::Ok();
}

// True when bash would find `name` as a command: a builtin or keyword, or an executable on PATH.
bool IsCommand(const std::string& name) {
  static const char* kShellWords[] = {"cd",   "echo", "exec", "exit",  "export", "source", ".",
                                      "test", "[",    "true", "false", "eval",   "set",    "time",
                                      "env",  "if",   "for",  "while", "case",   "{",      "("};
  for (const char* w : kShellWords) {
    if (name == w) return true;
  }
  const char* path = std::getenv("PATH");
  for (const auto& dir : SplitTrimmed(path != nullptr ? path : "", ':')) {
    std::string candidate = JoinPath(dir, name);
    if (::access(candidate.c_str(), X_OK) == 0 && !IsDirectory(candidate)) return true;
  }
  return false;
}

// `--executes t.py` without --python_binary_path runs `bash -c "t.py ..."`, and bash looks a bare
// name up on PATH only: a script of the job named that way exits 127 in every task. Refuse it
// here, with the two ways that work.
Status CheckRunnable(const SubmitOptions& o) {
  if (!o.python_binary_path.empty()) return Status::Ok();
  auto words = ShellSplit(o.executes);
  if (words.empty()) return Status::Ok();
  const std::string& first = words[0];
  if (first.find('/') != std::string::npos || first.find('=') != std::string::npos ||
      IsCommand(first)) {
    return Status::Ok();
  }
  std::string file = IsDirectory(o.src_dir) ? JoinPath(o.src_dir, first)
                                            : (o.src_dir.empty() ? first : std::string());
  if (file.empty() || !PathExists(file) || IsDirectory(file)) return Status::Ok();
  return InvalidArgument("--executes " + o.executes + ": " + first +
                         " is a file of the job, not a command (bash looks a bare name up on "
                         "PATH only, so every task would exit 127); run it with Python: "
                         "--python_binary_path python3, or run it directly: --executes ./" +
                         first + " (tony makes it executable, as TonY does)");
}

// The entries of a zip archive (`unzip -Z1`), or an error when it is not a readable zip.
Result<std::vector<std::string>> ZipEntries(const std::string& archive) {
  std::string cmd = "unzip -Z1 " + ShellQuote(archive) + " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return ErrnoStatus("cannot run unzip", errno);
  std::vector<std::string> entries;
  char line[4096];
  while (std::fgets(line, sizeof(line), p) != nullptr) {
    std::string entry(Trim(line));
    if (!entry.empty()) entries.push_back(entry);
  }
  int rc = ::pclose(p);
  if (rc != 0) return InvalidArgument("not a zip archive");
  return entries;
}

// TonY resolves a relative --python_binary_path inside the unpacked venv (venv/<path>); make sure
// the archive really has it, so a wrong path fails here and not in every task.
Status CheckVenv(const SubmitOptions& o) {
  if (o.python_venv.empty()) return Status::Ok();
  auto entries = ZipEntries(o.python_venv);
  if (!entries.ok())
    return InvalidArgument("--python_venv " + o.python_venv + ": not a zip archive");
  const std::string& python = o.python_binary_path;
  if (python.empty() || python[0] == '/') return Status::Ok();
  for (const auto& e : *entries) {
    if (e == python) return Status::Ok();
  }
  return InvalidArgument("--python_binary_path " + python + ": no such file in --python_venv " +
                         o.python_venv +
                         " (a relative interpreter path is looked up inside the "
                         "unpacked venv, as venv/" +
                         python + ")");
}

// TonY reads a --conf_file with a scheme through its file system: file:// is a local path.
std::string LocalPath(const std::string& path) {
  return StartsWith(path, "file://") ? path.substr(std::string_view("file://").size()) : path;
}

// The local inputs exist and are what they claim to be. A job file an engine reads itself
// (EngineFaces::JobFileReader) is checked when it is read.
Status CheckInputs(const SubmitOptions& o, const EngineFaces& faces) {
  if (!o.src_dir.empty() && !PathExists(o.src_dir)) {
    return InvalidArgument("--src_dir " + o.src_dir + ": no such file or directory");
  }
  if (!o.python_venv.empty() && !PathExists(o.python_venv)) {
    return InvalidArgument("--python_venv " + o.python_venv + ": no such file");
  }
  if (!o.conf_file.empty() && faces.JobFileReader(o.conf_file) == nullptr &&
      !PathExists(LocalPath(o.conf_file))) {
    return InvalidArgument("--conf_file " + o.conf_file + ": no such file");
  }
  if (!o.src_dir.empty() && !IsDirectory(o.src_dir)) {
    TONY_RETURN_IF_ERROR(CheckZipArchive("--src_dir", o.src_dir));
  }
  if (!o.python_venv.empty()) TONY_RETURN_IF_ERROR(CheckZipArchive("--python_venv", o.python_venv));
  TONY_RETURN_IF_ERROR(CheckVenv(o));
  TONY_RETURN_IF_ERROR(CheckEntryPoint(o));
  return CheckRunnable(o);
}

// TonY's submitter treats `--shell_env K` as K with an empty value; a name is required.
Result<std::string> EnvFlag(const std::string& flag, const std::string& kv) {
  size_t eq = kv.find('=');
  if (eq == 0 || Trim(kv).empty()) {
    return InvalidArgument("--" + flag + " " + kv +
                           ": the variable name is empty; expected NAME=VALUE (or NAME alone "
                           "for an empty value)");
  }
  return eq == std::string::npos ? kv + "=" : kv;
}

// --engine, else yarn when the cluster's config is named (HADOOP_CONF_DIR, YARN_CONF_DIR, or
// TonY's tony.application.yarn-conf-path), else local.
std::string ChooseEngine(const SubmitOptions& o, const Configuration& conf) {
  if (!o.engine.empty()) return o.engine;
  for (const char* var : {"HADOOP_CONF_DIR", "YARN_CONF_DIR"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && *v != '\0') return engine::kYarnEngineName;
  }
  if (!Trim(conf.GetOr(keys::kApplicationYarnConfPath, "")).empty()) {
    return engine::kYarnEngineName;
  }
  return engine::kLocalEngineName;
}

}  // namespace

std::string JobFile(const SubmitOptions& o) {
  if (!o.conf_file.empty()) return o.conf_file;
  return PathExists(kDefaultJobFile) && !IsDirectory(kDefaultJobFile) ? kDefaultJobFile : "";
}

Result<Configuration> BuildConfiguration(const SubmitOptions& o, const EngineFaces& faces) {
  Configuration conf = Configuration::WithDefaults();
  std::string job_file = JobFile(o);
  const EngineClientFace* reader = faces.JobFileReader(job_file);
  if (reader != nullptr) {
    Configuration login;  // --principal/--keytab, for a Kerberized cluster's SPNEGO
    if (!o.principal.empty()) login.Set(keys::kKerberosPrincipal, o.principal, "--principal");
    if (!o.keytab.empty()) login.Set(keys::kKerberosKeytab, o.keytab, "--keytab");
    TONY_ASSIGN_OR_RETURN(std::string xml, reader->ReadJobFile(job_file, login));
    TONY_RETURN_IF_ERROR(conf.AddXml(xml, job_file));
  } else if (!job_file.empty()) {
    TONY_RETURN_IF_ERROR(conf.AddFile(LocalPath(job_file)));
  }
  std::string site = SiteFilePath();
  if (PathExists(site)) TONY_RETURN_IF_ERROR(conf.AddFile(site));
  // AddOverride's errors already name "--conf <what was given>".
  for (const auto& kv : o.confs) TONY_RETURN_IF_ERROR(conf.AddOverride(kv));
  for (const auto& kv : o.shell_envs) {
    TONY_ASSIGN_OR_RETURN(std::string env, EnvFlag("shell_env", kv));
    conf.Set(keys::kExecutionEnvs, env, "--shell_env");
  }
  for (const auto& kv : o.container_envs) {
    TONY_ASSIGN_OR_RETURN(std::string env, EnvFlag("container_env", kv));
    conf.Set(keys::kContainersEnvs, env, "--container_env");
  }
  std::string python = o.python_binary_path;
  if (!python.empty() && python[0] != '/' && !o.python_venv.empty()) python = "venv/" + python;
  if (!python.empty()) conf.Set(keys::kPythonExecPath, python, "--python_binary_path");
  if (!o.executes.empty()) {
    conf.Set(keys::kContainersCommand, ComposeCommand(o, python), "--executes");
  }
  if (!o.sidecar_tensorboard_log_dir.empty()) {
    conf.Set(keys::kApplicationTensorboardLogDir, o.sidecar_tensorboard_log_dir,
             "--sidecar_tensorboard_log_dir");
  }
  // TonY's helper scripts run with tony.python-exec-path, which a job file may set instead.
  const std::string helper_python = python.empty() ? conf.GetOr(keys::kPythonExecPath, "") : python;
  TONY_RETURN_IF_ERROR(runtime::AddFrameworkRoles(conf, helper_python));
  TONY_RETURN_IF_ERROR(runtime::AddTensorBoardSidecar(conf, helper_python));
  if (!o.src_dir.empty()) conf.Set(keys::kSrcDir, o.src_dir, "--src_dir");
  if (!o.python_venv.empty()) conf.Set(keys::kPythonVenv, o.python_venv, "--python_venv");
  // spark-submit's flags for a keytab login; as --conf, they win over the files.
  if (!o.principal.empty()) conf.Set(keys::kKerberosPrincipal, o.principal, "--principal");
  if (!o.keytab.empty()) conf.Set(keys::kKerberosKeytab, o.keytab, "--keytab");
  if (!o.proxy_user.empty()) {
    conf.Set(keys::kKerberosProxyUser, o.proxy_user, "--proxy_user");
  }
  // TonY appends them to tony.containers.resources, a path without a scheme on the default FS.
  for (const auto& path : o.hdfs_classpath) {
    conf.Set(keys::kContainersResources,
             path.find("://") == std::string::npos ? "hdfs://" + path : path, "--hdfs_classpath");
  }
  return conf;
}

int Submit(const SubmitOptions& o, const EngineFaces& faces) {
  SetLogComponent("submit");
  auto fail_input = [](const Status& s) {
    std::cerr << "tony: error: " << s.message() << "\n";
    return kExitBadInput;
  };
  Status s = CheckInputs(o, faces);
  if (!s.ok()) return fail_input(s);
  s = history::PrepareTonyHome();
  if (!s.ok()) return fail_input(s);
  if (o.conf_file.empty() && !JobFile(o).empty()) {
    std::cerr << "tony: using ./" << kDefaultJobFile << " as the job file (no --conf_file)\n";
  }
  auto conf = BuildConfiguration(o, faces);
  if (!conf.ok()) return fail_input(conf.status());
  for (const auto& w : conf->warnings()) std::cerr << "tony: warning: " << w << "\n";
  for (const auto& w : UnknownKeyWarnings(*conf)) std::cerr << "tony: warning: " << w << "\n";
  for (const auto& w : UnsupportedKeyWarnings(*conf)) std::cerr << "tony: warning: " << w << "\n";
  auto spec = BuildJobSpec(*conf);
  if (!spec.ok()) return fail_input(spec.status());
  for (const auto& w : RoleNameWarnings(*spec)) std::cerr << "tony: warning: " << w << "\n";
  for (const auto& w : UntrackedRoleWarnings(*conf, *spec)) {
    std::cerr << "tony: warning: " << w << "\n";
  }
  s = runtime::ValidateForFramework(*spec);
  if (!s.ok()) return fail_input(s);
  std::string engine_name = ChooseEngine(o, *conf);
  std::optional<engine::EngineKind> kind = engine::ParseEngineName(engine_name);
  const EngineClientFace* face = kind ? faces.Find(*kind) : nullptr;
  if (face == nullptr) {
    return fail_input(InvalidArgument("--engine " + engine_name + ": expected local or yarn"));
  }
  s = CheckResources(*conf, *spec, face->FetchesRemoteResources());
  if (!s.ok()) return fail_input(s);
  return face->Submit(o, *conf, *spec);
}

}  // namespace tony::client
