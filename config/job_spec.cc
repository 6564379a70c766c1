#include "config/job_spec.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "common/strings.h"
#include "config/keys.h"
#include "config/resources.h"
#include "config/role_names.h"
#include "config/validator.h"

namespace tony {

using config_internal::Validator;

Result<int64_t> ParseMemoryMb(const std::string& s) {
  std::string v = ToLower(Trim(s));
  auto bad = [&] { return InvalidArgument("\"" + s + "\" is not " + kMemorySizeForms); };
  if (v.empty()) return bad();
  int64_t scale_kb = 1024;  // kilobytes per unit; a bare number is MB
  switch (v.back()) {
    case 'k':
      scale_kb = 1;
      break;
    case 'm':
      scale_kb = 1024;
      break;
    case 'g':
      scale_kb = 1024LL * 1024;
      break;
    case 't':
      scale_kb = 1024LL * 1024 * 1024;
      break;
    default:
      break;
  }
  // Only a known unit is dropped: "4x" is an error, not 4 MB.
  if (std::string_view("kmgt").find(v.back()) != std::string_view::npos) v.pop_back();
  // Digits only: TonY parses with Integer.parseInt, so signs and fractions are not sizes.
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) return bad();
  std::optional<int64_t> n = ParseInt64(v);
  if (!n || *n > std::numeric_limits<int64_t>::max() / scale_kb) return bad();
  int64_t kb = *n * scale_kb;
  return (kb + 1023) / 1024;
}

const char* RestartPolicyName(RestartPolicy p) {
  switch (p) {
    case RestartPolicy::kNever:
      return "never";
    case RestartPolicy::kOnFailure:
      return "on-failure";
    case RestartPolicy::kExitCode:
      return "exit-code";
  }
  return "never";
}

const char* RestartScopeName(RestartScope s) { return s == RestartScope::kTask ? "task" : "gang"; }

const char* OnStallName(OnStall s) {
  switch (s) {
    case OnStall::kWarn:
      return "warn";
    case OnStall::kFail:
      return "fail";
    case OnStall::kRestart:
      return "restart";
  }
  return "fail";
}

std::string JobSpec::KeyAndSource(const std::string& key) const {
  auto it = sources.find(key);
  return it == sources.end() ? key : key + ", from " + it->second;
}

const RoleSpec* JobSpec::FindRole(const std::string& role_name) const {
  for (const RoleSpec& r : roles) {
    if (r.name == role_name) return &r;
  }
  return nullptr;
}

bool JobSpec::Staged() const {
  for (const RoleSpec& r : roles) {
    if (r.stage > 0) return true;
  }
  return false;
}

const RoleSpec* JobSpec::PreprocessRole() const {
  for (const RoleSpec& r : roles) {
    if (r.preprocess) return &r;
  }
  return nullptr;
}

bool JobSpec::SingleNode() const { return roles.size() == 1 && roles[0].preprocess; }

std::string JobSpec::StageName(int stage) const {
  int last = 0;
  for (const RoleSpec& r : roles) last = std::max(last, r.stage);
  if (stage == 0 && PreprocessRole() != nullptr) return "preprocess";
  return stage >= last ? "training" : "prepare";
}

int JobSpec::TotalInstances() const {
  int total = 0;
  for (const RoleSpec& r : roles) total += r.preprocess ? 0 : r.instances;
  return total;
}

int JobSpec::TrackedInstances() const {
  int total = 0;
  for (const RoleSpec& r : roles) {
    if (!r.untracked && !r.sidecar && !r.preprocess) total += r.instances;
  }
  return total;
}

namespace {

bool Contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// Every name r with a tony.<r>.instances key, whatever its value.
std::vector<std::string> DeclaredRoles(const Configuration& conf) {
  std::vector<std::string> roles;
  for (const auto& [key, value] : conf.entries()) {
    if (!StartsWith(key, "tony.") || !EndsWith(key, ".instances")) continue;
    std::string name = key.substr(5, key.size() - 5 - 10);
    if (IsRoleName(name)) roles.push_back(name);
  }
  std::sort(roles.begin(), roles.end());
  return roles;
}

// tony.<role>.restart-*: the policy, its scope, budget, retryable exit codes and backoff.
void ReadRestarts(Validator& v, const std::string& p, RoleSpec& r) {
  const std::string policy = ToLower(v.Enum(p + "restart-policy"));
  r.restart_policy = policy == "on-failure"  ? RestartPolicy::kOnFailure
                     : policy == "exit-code" ? RestartPolicy::kExitCode
                                             : RestartPolicy::kNever;
  const std::string scope = ToLower(v.Enum(p + "restart-scope"));
  // A sidecar (TensorBoard) serves no collective: it restarts alone unless told otherwise.
  r.restart_scope = scope == "task"   ? RestartScope::kTask
                    : scope == "gang" ? RestartScope::kGang
                    : r.sidecar       ? RestartScope::kTask
                                      : RestartScope::kGang;
  r.max_restarts = v.Int(p + "max-restarts", 0);
  r.restart_backoff_ms = v.Long(p + "restart-backoff-ms", 0);
  r.restart_backoff_max_ms = v.Long(p + "restart-backoff-max-ms", 0);
  const std::string codes_key = p + "restart-exit-codes";
  for (const std::string& code : v.List(codes_key)) {
    std::optional<int64_t> n = ParseInt64(code);
    if (!n || *n < 1 || *n > 255) {
      v.AddError(v.Describe(codes_key) + ": \"" + code +
                 "\" is no exit code; expected numbers from 1 to 255, comma-separated");
      continue;
    }
    r.restart_exit_codes.push_back(static_cast<int>(*n));
  }
  if (!r.restart_exit_codes.empty() && r.restart_policy != RestartPolicy::kExitCode) {
    v.AddError(v.Describe(codes_key) + " only applies with " + p +
               "restart-policy = exit-code, but the policy is " +
               RestartPolicyName(r.restart_policy));
  }
}

RoleSpec BuildRole(Validator& v, const std::string& name, int instances) {
  const std::string p = "tony." + name + ".";
  RoleSpec r;
  r.name = name;
  r.instances = instances;
  r.memory_mb = v.Memory(p + "memory", 1);
  r.vcores = v.Int(p + "vcores", 1);
  r.gpus = v.Int(p + "gpus", 0);
  r.nproc_per_task = v.Int(p + "nproc-per-task", 1);
  r.command = std::string(Trim(v.String(p + "command")));
  if (r.command.empty()) r.command = std::string(Trim(v.String("tony.containers.command")));
  if (r.command.empty()) {
    v.AddError("role " + name + " has no command: set " + p +
               "command or tony.containers.command (tony submit --executes \"python train.py\" "
               "sets the latter)");
  }
  r.resources = v.List(p + "resources");
  for (std::string& res : v.List("tony.containers.resources")) r.resources.push_back(res);
  r.node_label = std::string(Trim(v.String(p + "node-label")));
  r.docker_image = std::string(Trim(v.String("tony.docker." + name + ".image")));
  if (r.docker_image.empty()) {
    r.docker_image = std::string(Trim(v.String("tony.docker.containers.image")));
  }
  r.untracked = Contains(v.List("tony.application.untracked.jobtypes"), name);
  r.sidecar = Contains(v.List("tony.application.sidecar.jobtypes"), name);
  r.stop_on_failure = Contains(v.List("tony.application.stop-on-failure-jobtypes"), name);
  ReadRestarts(v, p, r);
  r.stall_timeout_ms = v.Long(p + "stall-timeout-ms", 0);
  const std::string on_stall = ToLower(v.Enum(p + "on-stall"));
  r.on_stall = on_stall == "warn"      ? OnStall::kWarn
               : on_stall == "restart" ? OnStall::kRestart
                                       : OnStall::kFail;
  return r;
}

// Roles with instances > 0, sorted by name, with per-role caps (tony.<role>.max-instances).
std::vector<RoleSpec> BuildRoles(Validator& v, const std::vector<std::string>& declared) {
  std::vector<RoleSpec> roles;
  for (const std::string& name : declared) {
    const std::string key = "tony." + name + ".instances";
    int instances = v.Int(key, 0);
    if (instances <= 0) continue;
    int max = v.Int("tony." + name + ".max-instances", std::numeric_limits<int>::min());
    if (max >= 0 && instances > max) {
      v.AddError(v.Describe(key) + " exceeds " + v.Describe("tony." + name + ".max-instances"));
    }
    roles.push_back(BuildRole(v, name, instances));
  }
  return roles;
}

// TonY's tony.task.max-total-<resource> caps: the sum over roles of amount x instances.
void CheckTotal(Validator& v, const std::vector<RoleSpec>& roles, const std::string& resource,
                int64_t (*amount)(const RoleSpec&)) {
  const std::string cap_key = "tony.task.max-total-" + resource;
  int64_t cap = resource == "memory" ? v.MemoryCap(cap_key) : v.Long(cap_key, -1);
  if (cap < 0) return;
  int64_t total = 0;
  std::vector<std::string> parts;
  for (const RoleSpec& r : roles) {
    total += amount(r) * r.instances;
    parts.push_back(r.name + ": " + std::to_string(r.instances) + " x " +
                    std::to_string(amount(r)));
  }
  if (total > cap) {
    v.AddError("total " + resource + " " + std::to_string(total) + " (" + Join(parts, ", ") +
               ") exceeds " + v.Describe(cap_key));
  }
}

// Every entry of a resources key parses (config/resources.h); errors name the key and entry.
void CheckResources(Validator& v, const std::string& key) {
  for (const std::string& entry : v.List(key)) {
    Result<ResourceRef> ref = ParseResourceRef(entry);
    if (!ref.ok()) {
      v.AddError(v.Describe(key) + ": entry \"" + entry + "\": " + ref.status().message() +
                 "; expected SOURCE[::NAME][#archive] or SOURCE#NAME");
    }
  }
}

// tony.application.hadoop.location: an archive every task container localizes (the coordinator
// runs no JVM and needs none); tony.application.hadoop.classpath: the tasks' CLASSPATH.
void AddHadoopFramework(Validator& v, JobSpec& spec) {
  spec.hadoop_classpath = v.List("tony.application.hadoop.classpath");
  const std::string key = "tony.application.hadoop.location";
  const std::string location(Trim(v.String(key)));
  if (location.empty()) return;
  Result<ResourceRef> ref = HadoopLocationResource(location);
  if (!ref.ok()) {
    v.AddError(v.Describe(key) + ": " + ref.status().message() +
               "; expected the URI or path of a Hadoop tarball, with #ALIAS for its directory's "
               "name");
    return;
  }
  spec.hadoop_archive = ref->name;
  for (RoleSpec& r : spec.roles) r.resources.push_back(ref->text);
}

void CheckTotals(Validator& v, const std::vector<RoleSpec>& roles) {
  CheckTotal(v, roles, "instances", [](const RoleSpec&) -> int64_t { return 1; });
  CheckTotal(v, roles, "gpus", [](const RoleSpec& r) -> int64_t { return r.gpus; });
  CheckTotal(v, roles, "vcores", [](const RoleSpec& r) -> int64_t { return r.vcores; });
  CheckTotal(v, roles, "memory", [](const RoleSpec& r) { return r.memory_mb; });
}

// "'name', which is no role of this job (roles: a, b); did you mean 'x'?"
std::string NoSuchRole(const std::string& name, const std::vector<std::string>& declared) {
  std::string error = "'" + name + "', which is no role of this job";
  if (!declared.empty()) error += " (roles: " + Join(declared, ", ") + ")";
  if (std::string best = ClosestName(name, declared); !best.empty()) {
    error += "; did you mean '" + best + "'?";
  }
  return error;
}

// The roles a stage key names, each once; a name that is no role of the job is an error naming
// the key and the closest role.
std::vector<std::string> StageRoles(Validator& v, const std::string& key,
                                    const std::vector<std::string>& declared) {
  std::vector<std::string> names;
  for (const std::string& name : v.List(key)) {
    if (name.empty() || Contains(names, name)) continue;
    if (!Contains(declared, name)) {
      v.AddError(v.Describe(key) + " names " + NoSuchRole(name, declared));
      continue;
    }
    names.push_back(name);
  }
  return names;
}

// TonY's stages (docs/tony-compat.md §1.8): with only one of the two keys set, the other stage is
// every other role; with both, every role is in exactly one. The training stage waits only for
// the prepare stage's tracked tasks: with none (all untracked or sidecar, or no instances),
// nothing is waited for and every role is in one stage, as in TonY.
void BuildStages(Validator& v, const std::vector<std::string>& declared,
                 std::vector<RoleSpec>& roles) {
  constexpr char kPrepare[] = "tony.application.prepare-stage";
  constexpr char kTraining[] = "tony.application.training-stage";
  std::vector<std::string> prepare = StageRoles(v, kPrepare, declared);
  std::vector<std::string> training = StageRoles(v, kTraining, declared);
  if (prepare.empty() && training.empty()) return;
  for (const std::string& name : prepare) {
    if (Contains(training, name)) {
      v.AddError("role " + name + " is in both " + v.Describe(kPrepare) + " and " +
                 v.Describe(kTraining) + ": a role runs in one stage");
    }
  }
  if (!prepare.empty() && !training.empty()) {
    std::vector<std::string> neither;
    for (const RoleSpec& r : roles) {
      if (!Contains(prepare, r.name) && !Contains(training, r.name)) neither.push_back(r.name);
    }
    if (!neither.empty()) {
      v.AddError("role(s) " + Join(neither, ", ") + " in neither " + v.Describe(kPrepare) +
                 " nor " + v.Describe(kTraining) +
                 ": with both keys set every role is in one of them (set only one to have the "
                 "other stage take the rest)");
    }
  }
  bool waits = false;
  for (RoleSpec& r : roles) {
    r.stage = prepare.empty() ? (Contains(training, r.name) ? 1 : 0)
                              : (Contains(prepare, r.name) ? 0 : 1);
    if (r.stage == 0 && !r.untracked && !r.sidecar) waits = true;
  }
  if (!waits) {
    for (RoleSpec& r : roles) r.stage = 0;
  }
}

// TonY's preprocessing job and single-node mode (docs/tony-compat.md §1.8): the role am, one
// task, in a stage before every other role. TonY runs it inside its AM; tony runs it as a task
// with the AM's resources, so that it is stopped, timed out, logged and shown as every task is.
void AddPreprocessRole(Validator& v, JobSpec& spec) {
  const bool single_node = spec.roles.empty();
  if (!single_node && !v.Bool("tony.application.enable-preprocess")) return;
  RoleSpec am;
  am.name = "am";
  am.instances = 1;
  am.preprocess = true;
  am.memory_mb = spec.am_memory_mb;
  am.vcores = spec.am_vcores;
  am.gpus = spec.am_gpus;
  am.command = std::string(Trim(v.String("tony.am.command")));
  if (am.command.empty()) am.command = std::string(Trim(v.String("tony.containers.command")));
  if (am.command.empty()) {
    v.AddError(std::string(single_node ? "no tasks and no command"
                                       : v.Describe("tony.application.enable-preprocess") +
                                             " but no command") +
               ": set tony.<role>.instances (e.g. tony.worker.instances=2) and "
               "tony.containers.command (tony submit --executes \"python train.py\" sets it), or "
               "tony.am.command");
    return;
  }
  am.resources = spec.am_resources;
  am.docker_image = spec.am_docker_image;
  for (RoleSpec& r : spec.roles) ++r.stage;
  spec.roles.insert(spec.roles.begin(), std::move(am));
}

// TonY's group dependency timeouts (docs/tony-compat.md §1.5). Unlike TonY, which skips what
// does not resolve, a dependency on a role, group or group member that does not exist is an error:
// the protection it asks for would silently be missing.
void BuildGroupDependencies(Validator& v, const Configuration& conf,
                            const std::vector<std::string>& declared,
                            const std::vector<RoleSpec>& roles, JobSpec& spec) {
  constexpr std::string_view kTemplate = "tony.application.dependency.<role>.timeout.after.<group>";
  constexpr std::string_view kPrefix = "tony.application.dependency.";
  constexpr std::string_view kAfter = ".timeout.after.";
  std::map<std::string, std::string> key_of_role;
  for (const auto& [key, value] : conf.entries()) {
    // The registry's own match of the key's template (not its .ignored twin, not other keys).
    const KeySpec* k = FindKeySpec(key);
    if (k == nullptr || k->name != kTemplate) continue;
    const std::string rest = key.substr(kPrefix.size());
    const size_t after = rest.find(kAfter);
    GroupDependency d;
    d.role = rest.substr(0, after);
    d.group = rest.substr(after + kAfter.size());
    d.key = key;
    d.timeout_ms = std::min(v.Long(key, 0), std::numeric_limits<int64_t>::max() / 1000) * 1000;
    d.ignored = v.Bool(key + ".ignored");
    if (!Contains(declared, d.role)) {
      v.AddError(v.Describe(key) + " is about " + NoSuchRole(d.role, declared));
      continue;
    }
    if (auto [it, fresh] = key_of_role.emplace(d.role, key); !fresh) {
      v.AddError(v.Describe(key) + " and " + v.Describe(it->second) + " both set a timeout for " +
                 d.role + ": a role depends on one group");
      continue;
    }
    const std::string group_key = "tony.application.group." + d.group;
    if (!v.IsSet(group_key)) {
      v.AddError(v.Describe(key) + " names group " + d.group + ", but " + group_key +
                 " is not set (e.g. " + group_key + "=chief,worker)");
      continue;
    }
    for (const std::string& member : v.List(group_key)) {
      if (member.empty() || Contains(d.members, member)) continue;
      if (!Contains(declared, member)) {
        v.AddError(v.Describe(group_key) + " names " + NoSuchRole(member, declared));
        continue;
      }
      for (const RoleSpec& r : roles) {
        if (r.name == member) d.members.push_back(member);
      }
    }
    spec.group_dependencies.push_back(std::move(d));
  }
}

// A YARN ACL (AccessControlList's form): "*", or users and groups, each comma-separated, split
// by one space ("alice,bob admins", " admins" for groups only); blank is " ": the owner only.
std::string ReadAcl(Validator& v, const std::string& key) {
  std::string value = v.String(key);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.pop_back();
  if (Trim(value).empty()) return " ";
  if (Trim(value) == "*") return "*";
  size_t space = value.find(' ');
  bool ok = value.find_first_of("\t\r\n") == std::string::npos &&
            (space == std::string::npos || value.find(' ', space + 1) == std::string::npos);
  if (!ok) {
    v.AddError(v.Describe(key) +
               ": expected YARN's ACL form \"user1,user2 group1,group2\" (users, one space, "
               "groups), \"*\" for everyone, or empty for the owner only");
    return " ";
  }
  return value;
}

// What the application is, where it goes and who may see or change it; the framework and mode.
void ReadApplicationIdentity(Validator& v, JobSpec& spec) {
  spec.name = v.String("tony.application.name");
  spec.type = v.String("tony.application.type");
  spec.queue = std::string(Trim(v.String("tony.yarn.queue")));
  spec.tags = v.List("tony.application.tags");
  spec.view_acl = ReadAcl(v, "tony.application.view-acls");
  spec.modify_acl = ReadAcl(v, "tony.application.modify-acls");
  spec.framework = ToLower(v.Enum("tony.application.framework"));
  spec.mode = ToLower(v.Enum("tony.application.distributed-mode")) == "fcfs"
                  ? DistributedMode::kFcfs
                  : DistributedMode::kGang;
}

// The application's, the gang's, the registration's, the heartbeats' and the execution's limits.
void ReadTimeouts(Validator& v, JobSpec& spec) {
  spec.application_timeout_ms = v.Long("tony.application.timeout", 0);
  spec.registration_timeout_ms = v.Long("tony.container.registration.timeout");
  spec.allocation_timeout_ms = v.Long("tony.container.allocation.timeout");
  spec.gang_timeout_ms = v.Long("tony.application.gang-timeout-ms", 0);
  spec.heartbeat_interval_ms = v.Long("tony.task.heartbeat-interval-ms", 1);
  spec.max_missed_heartbeats = v.Int("tony.task.max-missed-heartbeats", 1);
  spec.metrics_interval_ms = v.Long("tony.task.metrics-interval-ms", 0);
  if (!v.IsSet(spec.execution_timeout_key) && v.IsSet("tony.worker.timeout")) {
    spec.execution_timeout_key = "tony.worker.timeout";
  }
  spec.execution_timeout_ms = v.Long(spec.execution_timeout_key, 0);
  spec.error_message_max_depth = v.Int("tony.task.executor.execution.error-message-max-depth", 0);
  // Not below 0: a negative value has always meant what 0 means (forever), so it is not refused.
  int64_t registry_s = v.Long("tony.task.executor.registry-timeout-sec");
  spec.registry_timeout_ms =
      std::clamp<int64_t>(registry_s, 0, std::numeric_limits<int64_t>::max() / 1000) * 1000;
}

// How tasks run: failure policy, environments, the held port, the python and source inputs.
void ReadTaskSettings(Validator& v, JobSpec& spec) {
  spec.fail_on_worker_failure = v.Bool("tony.application.fail-on-worker-failure-enabled");
  spec.container_envs = v.List("tony.containers.envs");
  spec.execution_envs = v.List("tony.execution.envs");
  if (std::string hold = ToLower(v.Enum("tony.task.hold-port")); !hold.empty()) {
    spec.hold_port = hold == "true";
  }
  spec.python_exec_path = std::string(Trim(v.String("tony.python-exec-path")));
  spec.horovod_debug_driver = v.Bool("tony.horovod.driver.mode.debug");
  spec.python_venv = std::string(Trim(v.String("tony.python-venv")));
  spec.src_dir = std::string(Trim(v.String("tony.src-dir")));
  spec.tensorboard_log_dir = std::string(Trim(v.String("tony.application.tensorboard-log-dir")));
  spec.skip_fit_check = v.Bool("tony.application.skip-fit-check");
}

// The coordinator's container (resources, Docker), its waits and retries, the local engine's
// capacity.
void ReadContainerSettings(Validator& v, JobSpec& spec) {
  spec.am_memory_mb = v.Memory("tony.am.memory", 1);
  spec.am_vcores = v.Int("tony.am.vcores", 1);
  spec.am_gpus = v.Int("tony.am.gpus", 0);
  spec.docker_enabled = v.Bool("tony.docker.enabled");
  spec.docker_mounts = std::string(Trim(v.String("tony.docker.containers.mount")));
  spec.am_docker_image = std::string(Trim(v.String("tony.docker.am.image")));
  if (spec.am_docker_image.empty()) {
    spec.am_docker_image = std::string(Trim(v.String("tony.docker.containers.image")));
  }
  // TonY's AM waits this long for its client's "I have seen the end"; tony's coordinator waits
  // as long for a client to read the final status (reading it is the signal).
  spec.client_wait_ms = std::min(v.Long("tony.am.wait-client-signal-stop-timeout-sec", 0),
                                 std::numeric_limits<int64_t>::max() / 1000) *
                        1000;
  spec.session_retries = v.Int("tony.am.retry-count", 0);
  // Read for the validator's check alone (a bad value is among its errors); not used here.
  (void)v.Int("tony.application.num-client-rm-connect-retries", 0);  // read by the YARN client
  if (!Trim(v.String("tony.local.memory")).empty()) {
    spec.local_memory_mb = v.Memory("tony.local.memory", 1);
  }
  if (!Trim(v.String("tony.local.vcores")).empty()) {
    spec.local_vcores = v.Int("tony.local.vcores", 1);
  }
  std::string gpu_exec = std::string(Trim(v.String("tony.gpu-exec-path")));
  if (!gpu_exec.empty()) spec.gpu_exec_path = gpu_exec;
}

// The application-wide keys, read in the validator's order (its errors are listed in that order).
void ReadApplication(Validator& v, JobSpec& spec) {
  ReadApplicationIdentity(v, spec);
  ReadTimeouts(v, spec);
  ReadTaskSettings(v, spec);
  ReadContainerSettings(v, spec);
}

}  // namespace

namespace {

// TonY's placeholder default of tony.history.location: with it, no history is written.
constexpr char kHistoryLocationPlaceholder[] = "/path/to/tony-history";

void ReadHistory(const Configuration& conf, JobSpec& spec) {
  std::string location = std::string(Trim(conf.GetOr("tony.history.location", "")));
  if (location.empty() || location == kHistoryLocationPlaceholder) return;
  while (location.size() > 1 && location.back() == '/') location.pop_back();
  auto value = [&conf](const char* key, const std::string& fallback) {
    // At its default the key is relative to the location as written here (without its '/').
    const ConfigValue* raw = conf.Find(key);
    if (raw == nullptr || raw->FromDefaults()) return fallback;
    std::string v = std::string(Trim(conf.GetOr(key, "")));
    // A reference left unexpanded (${tony.history.location} without its value) is the default.
    return v.empty() || v.find("${") != std::string::npos ? fallback : v;
  };
  spec.history_location = location;
  spec.history_intermediate = value("tony.history.intermediate", location + "/intermediate");
  spec.history_finished = value("tony.history.finished", location + "/finished");
  spec.history_timezone = value("tony.history.finished-dir-timezone", "UTC");
}

}  // namespace

Result<JobSpec> BuildJobSpec(const Configuration& conf) {
  Validator v(conf);
  v.CheckAllTypes();
  JobSpec spec;
  ReadApplication(v, spec);
  const std::vector<std::string> declared = DeclaredRoles(conf);
  spec.roles = BuildRoles(v, declared);
  BuildStages(v, declared, spec.roles);
  BuildGroupDependencies(v, conf, declared, spec.roles, spec);
  CheckTotals(v, spec.roles);
  CheckResources(v, "tony.containers.resources");
  CheckResources(v, "tony.am.resources");
  for (const RoleSpec& r : spec.roles) CheckResources(v, "tony." + r.name + ".resources");
  spec.am_resources = v.List("tony.am.resources");
  for (std::string& res : v.List("tony.containers.resources")) spec.am_resources.push_back(res);
  // Only when nothing else is wrong: a bad instances value would otherwise be reported twice.
  if (v.ok()) AddPreprocessRole(v, spec);
  AddHadoopFramework(v, spec);
  if (spec.docker_enabled) {
    // A container without an image would run outside Docker, unlike what the job asked for.
    std::vector<std::string> missing;
    if (spec.am_docker_image.empty()) missing.push_back("am");
    for (const RoleSpec& r : spec.roles) {
      if (r.docker_image.empty() && !r.preprocess) missing.push_back(r.name);
    }
    for (const std::string& name : missing) {
      v.AddError(v.Describe("tony.docker.enabled") + " but " +
                 (name == "am" ? std::string("the coordinator (AM)") : "role " + name) +
                 " has no image: set tony.docker." + name +
                 ".image or tony.docker.containers.image");
    }
  }
  if (spec.FindRole("chief") != nullptr) {
    spec.chief_role = "chief";
  } else if (spec.FindRole("worker") != nullptr) {
    spec.chief_role = "worker";
  }
  spec.chief_index = 0;
  ReadHistory(conf, spec);
  for (const auto& [key, value] : conf.entries()) {
    if (StartsWith(key, "tony.") && !value.FromDefaults()) spec.sources[key] = value.source;
  }
  TONY_RETURN_IF_ERROR(v.ToStatus());
  return spec;
}

std::vector<std::string> UnsupportedKeyWarnings(const Configuration& conf) {
  return config_internal::UnsupportedKeyWarnings(conf);
}

std::vector<std::string> UnknownKeyWarnings(const Configuration& conf) {
  return config_internal::UnknownKeyWarnings(conf, DeclaredRoles(conf));
}

}  // namespace tony
