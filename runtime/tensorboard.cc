#include "runtime/tensorboard.h"

#include <utility>

#include "common/strings.h"

namespace tony::runtime {
namespace {

constexpr char kSource[] = "tensorboard sidecar";

bool SetByJob(const Configuration& conf, const std::string& key) {
  const ConfigValue* v = conf.Find(key);
  return v != nullptr && !v->FromDefaults() && !Trim(v->value).empty();
}

// TensorBoard on $TB_LOG_DIR at $TB_PORT, on all interfaces (peers and the user's browser reach
// it by the task's host name). Without a TensorBoard to run, the task fails with a line that
// names the key to set rather than bash's "command not found".
std::string DefaultCommand(const std::string& python) {
  const std::string args = " --logdir \"$TB_LOG_DIR\" --port \"$TB_PORT\" --bind_all";
  std::string found;
  std::string run;
  std::string missing;
  if (python.empty()) {
    found = "command -v tensorboard >/dev/null 2>&1";
    run = "tensorboard";
    missing = "no tensorboard on the task's PATH";
  } else {
    found = ShellQuote(python) + " -c 'import tensorboard' >/dev/null 2>&1";
    run = ShellQuote(python) + " -m tensorboard.main";
    missing = python + " cannot import tensorboard";
  }
  std::string message = "tony: the sidecar TensorBoard cannot start: " + missing + "; set " +
                        keys::ForRole(keys::kRoleCommand, kTensorBoardRole) +
                        " to a command that runs TensorBoard on $TB_LOG_DIR at $TB_PORT";
  return "if ! " + found + "; then printf '%s\\n' " + ShellQuote(message) +
         " >&2; exit 127; fi; exec " + run + args;
}

}  // namespace

Status AddTensorBoardSidecar(Configuration& conf, const std::string& python) {
  if (Trim(conf.GetOr(keys::kApplicationTensorboardLogDir, "")).empty()) return Status::Ok();
  const std::string role = kTensorBoardRole;
  conf.Set(keys::ForRole(keys::kRoleInstances, role), "1", kSource);  // TonY forces one
  const std::pair<const char*, std::string> defaults[] = {
      {keys::kRoleVcores, "1"},
      {keys::kRoleMemory, "2g"},
      {keys::kRoleGpus, "0"},
      {keys::kRoleCommand, DefaultCommand(python)}};
  for (const auto& [key_template, value] : defaults) {
    const std::string key = keys::ForRole(key_template, role);
    if (!SetByJob(conf, key)) conf.Set(key, value, kSource);
  }
  // A sidecar whatever the job's list says: the job must not wait for TensorBoard to end.
  const std::string key = keys::kApplicationSidecarJobtypes;
  std::string sidecars = conf.GetOr(key, "tensorboard");
  for (const auto& name : SplitTrimmed(sidecars, ',')) {
    if (name == role) return Status::Ok();
  }
  conf.Set(key, Trim(sidecars).empty() ? role : sidecars + "," + role, kSource);
  return Status::Ok();
}

bool HasTensorBoardSidecar(const JobSpec& spec) {
  return !spec.tensorboard_log_dir.empty() && spec.FindRole(kTensorBoardRole) != nullptr;
}

bool GetsTensorBoardPort(const JobSpec& spec, const std::string& role, int index) {
  if (HasTensorBoardSidecar(spec)) return role == kTensorBoardRole && index == 0;
  // TonY's single-node job runs its command in the AM with a TB_PORT; tony runs it as am:0.
  if (spec.SingleNode()) return role == spec.roles[0].name && index == 0;
  return !spec.chief_role.empty() && role == spec.chief_role && index == spec.chief_index;
}

bool TensorBoardOnTaskPort(const JobSpec& spec, const std::string& role) {
  return HasTensorBoardSidecar(spec) && role == kTensorBoardRole;
}

EnvMap TensorBoardEnv(const JobSpec& spec, const std::string& role, int port, bool held) {
  EnvMap env;
  env["TB_PORT"] = std::to_string(port);
  if (held) env["TB_SERVER_REUSE_PORT"] = "true";
  if (TensorBoardOnTaskPort(spec, role)) env["TB_LOG_DIR"] = spec.tensorboard_log_dir;
  return env;
}

}  // namespace tony::runtime
