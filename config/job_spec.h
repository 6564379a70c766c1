// JobSpec: the typed, validated form of a job's configuration. Built once, by the client, which
// writes it to the job's spec file (rpc/spec_file.h, docs/job-spec.md); the coordinator and the
// executors read that file, never the raw keys. A field added here must be added to the file
// (rpc/job_spec.proto) too: the round trip test (tests/unit/spec_file_test.cc) checks its size.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "config/configuration.h"

namespace tony {

enum class DistributedMode { kGang, kFcfs };

// tony.<role>.restart-policy: which ends of a task start it again (README "Restarts").
//   kNever      no end restarts it (TonY's behaviour); a preemption or a lost node still does
//   kOnFailure  any FAILED or LOST end
//   kExitCode   only a retryable end: a signal tony did not send, an exit code in
//               tony.<role>.restart-exit-codes, a LOST task, or YARN's preempted / lost-node /
//               disks-failed container statuses
enum class RestartPolicy { kNever, kOnFailure, kExitCode };
// tony.<role>.restart-scope: what restarts. kTask: only the task that ended, same role, index and
// slot; kGang: every task of its stage, each with a new attempt (what collectives need).
enum class RestartScope { kTask, kGang };
const char* RestartPolicyName(RestartPolicy p);
const char* RestartScopeName(RestartScope s);
// tony.<role>.on-stall: what a STALLED task (README "Stalls") gets once its stacks are captured.
//   kWarn     nothing more: it stays STALLED until it makes progress again, then RUNNING
//   kFail     it is stopped and FAILED for its stall; the restart policy applies as to any failure
//   kRestart  it is stopped and restarted (its restart scope, budget and backoff) whatever the
//             restart policy says; FAILED once the budget is spent
enum class OnStall { kWarn, kFail, kRestart };
const char* OnStallName(OnStall s);

struct RoleSpec {
  std::string name;  // job type, [a-z]+
  int instances = 0;
  int64_t memory_mb = 2048;  // tony.<role>.memory
  int vcores = 1;
  int gpus = 0;
  std::string command;                 // tony.<role>.command, else tony.containers.command
  std::vector<std::string> resources;  // tony.<role>.resources + tony.containers.resources
  std::string node_label;
  std::string docker_image;      // tony.docker.<role>.image, else tony.docker.containers.image
  bool untracked = false;        // in tony.application.untracked.jobtypes
  bool sidecar = false;          // in tony.application.sidecar.jobtypes
  bool stop_on_failure = false;  // in tony.application.stop-on-failure-jobtypes
  int nproc_per_task = 1;        // tony.<role>.nproc-per-task (processes per container; issue 4)
  // 0: the first stage (the prepare stage, or the only one); 1: the training stage, whose
  // containers are asked for once every tracked task of stage 0 succeeded (TonY's
  // tony.application.prepare-stage / training-stage, docs/tony-compat.md §1.8).
  int stage = 0;
  // The role "am" (one task, am:0): TonY's preprocessing job (tony.application.enable-preprocess)
  // or, in a job with no task instances, TonY's single-node job. It runs the command of
  // tony.am.command, else tony.containers.command, with the coordinator's resources, in a stage
  // before every other role, without the framework's environment (docs/tony-compat.md §1.8).
  bool preprocess = false;
  // Set by the coordinator from the framework (runtime/framework.h, ServesPeers): why the job
  // cannot go on once a task of this role ended by itself, even successfully; empty: it can.
  std::string serves_peers;
  // Set likewise (SpecAwaits): the task ("role:index") whose published endpoint this role's tasks
  // need; they stay REGISTERED, their spec held, until it published.
  std::string awaits;
  // Restarts (README "Restarts"): the budget is the role's, counted once per failure that
  // restarts it; a preemption, a lost node or failed disks never count. The n-th counted restart
  // waits min(restart_backoff_max_ms, restart_backoff_ms * 2^(n-1)).
  RestartPolicy restart_policy = RestartPolicy::kNever;
  RestartScope restart_scope = RestartScope::kGang;
  int max_restarts = 3;
  std::vector<int> restart_exit_codes;
  int64_t restart_backoff_ms = 1000;
  int64_t restart_backoff_max_ms = 60'000;
  // Stalls (README "Stalls"): a running task is STALLED after stall_timeout_ms with no output on
  // its stdout/stderr and no touch of $TONY_PROGRESS_FILE; 0: never.
  int64_t stall_timeout_ms = 0;
  OnStall on_stall = OnStall::kFail;
};

// TonY's group dependency timeout (tony.application.group.<group> and
// tony.application.dependency.<role>.timeout.after.<group>[.ignored]): once every task of the
// group's roles has ended, tasks of `role` still running `timeout_ms` later fail the job, or, when
// `ignored`, are no longer waited for (made untracked, as TonY does).
struct GroupDependency {
  std::string role;
  std::string group;
  std::vector<std::string> members;  // the group's roles that have tasks
  int64_t timeout_ms = 0;
  bool ignored = false;
  std::string key;  // tony.application.dependency.<role>.timeout.after.<group>
};

struct JobSpec {
  std::string name;               // tony.application.name
  std::string type;               // tony.application.type
  std::string queue;              // tony.yarn.queue
  std::vector<std::string> tags;  // tony.application.tags
  // The application's YARN ACLs (tony.application.view-acls / modify-acls) as the submission
  // context carries them: "*", "users groups", or " " for nobody but the owner and the admins.
  std::string view_acl = "*";
  std::string modify_acl = " ";
  std::string framework;  // lower case: tensorflow, pytorch, horovod, mxnet, jax,
                          // standalone, generic
  DistributedMode mode = DistributedMode::kGang;
  std::vector<RoleSpec> roles;  // every role with instances > 0, sorted by name

  int64_t application_timeout_ms = 0;    // 0: none
  int64_t registration_timeout_ms = -1;  // tony.container.registration.timeout; <= 0: none
  int64_t allocation_timeout_ms = -1;    // tony.container.allocation.timeout; <= 0: none
  int64_t gang_timeout_ms = 0;           // tony.application.gang-timeout-ms; 0: none
  int64_t heartbeat_interval_ms = 1000;
  int max_missed_heartbeats = 25;
  // tony.am.retry-count: TonY's session retries, how often a FAILED job starts again from its
  // first stage with every task in a new attempt (not in a single-node job).
  int session_retries = 0;
  // How long an executor that lost its coordinator keeps its running task while it looks for a
  // new one (a new AM attempt: docs/am-restart.md §6); 0: it stops the task at once, as README's
  // "a lost coordinator" says. Not a key: the YARN client sets it when the job has more than one
  // AM attempt (engine/yarn/client/am_launch.h WithAmReconnectWindow).
  int64_t am_reconnect_window_ms = 0;
  int64_t metrics_interval_ms = 5000;  // tony.task.metrics-interval-ms; 0: no sampling
  int64_t execution_timeout_ms = 0;    // from execution_timeout_key
  // tony.am.wait-client-signal-stop-timeout-sec: after the end, how long the coordinator waits
  // for a client to read the final status.
  int64_t client_wait_ms = 15'000;
  // The key the timeout came from, for the message when it fires (TonY's older
  // tony.worker.timeout when only that one is set).
  std::string execution_timeout_key = "tony.task.executor.execution-timeout-ms";
  int error_message_max_depth = 20;
  // tony.task.executor.registry-timeout-sec: how long an executor waits for the coordinator to
  // take its registration; 0: forever.
  int64_t registry_timeout_ms = 0;
  bool fail_on_worker_failure = true;               // our default differs from TonY's (README)
  std::vector<GroupDependency> group_dependencies;  // at most one per role

  std::vector<std::string> container_envs;  // "K=V", tony.containers.envs
  std::vector<std::string> execution_envs;  // "K=V", tony.execution.envs
  std::string python_exec_path;             // tony.python-exec-path
  std::string python_venv;                  // tony.python-venv (path to the venv zip)
  std::string src_dir;                      // tony.src-dir (path to the src dir or archive)
  // tony.application.tensorboard-log-dir (--sidecar_tensorboard_log_dir): what the sidecar
  // TensorBoard reads (runtime/tensorboard.h); empty: no sidecar, the chief gets TB_PORT.
  std::string tensorboard_log_dir;
  // tony.task.hold-port; unset: the framework decides (runtime::HoldsTaskPort).
  std::optional<bool> hold_port;
  // TonY's Hadoop for the tasks (README "HDFS data for tasks", executor/hadoop_env.h):
  // tony.application.hadoop.location's archive, localized into every task container under this
  // name ("": none; its entry is in every RoleSpec::resources), and
  // tony.application.hadoop.classpath's entries, which become the tasks' CLASSPATH.
  std::string hadoop_archive;
  std::vector<std::string> hadoop_classpath;
  // tony.horovod.driver.mode.debug: the horovod driver runs tony.driver.command, which writes
  // its rendezvous port and slot plan to a port file, as TonY's debug driver does.
  bool horovod_debug_driver = false;

  // tony.application.skip-fit-check: submit to YARN without the check that the job can ever fit
  // the cluster (engine/fit_check.h).
  bool skip_fit_check = false;

  int64_t am_memory_mb = 2048;
  int am_vcores = 1;
  int am_gpus = 0;

  // YARN's Docker runtime (tony.docker.*): every container, the AM's included, runs in its image
  // (RoleSpec::docker_image; am_docker_image from tony.docker.am.image, else
  // tony.docker.containers.image), with tony.docker.containers.mount as its mounts.
  bool docker_enabled = false;
  std::string am_docker_image;
  std::string docker_mounts;

  // What the coordinator's container localizes (TonY's AM gets both): tony.am.resources, then
  // tony.containers.resources; entries as config/resources.h parses them.
  std::vector<std::string> am_resources;

  // Local engine capacity overrides (tony.local.memory, tony.local.vcores); 0: detect.
  int64_t local_memory_mb = 0;
  int local_vcores = 0;
  std::string gpu_exec_path = "nvidia-smi";  // tony.gpu-exec-path: lists the local engine's GPUs

  // The role:index that decides the outcome: "chief" if that role exists, else worker:0
  // (docs/tony-compat.md §1.5). chief_role is empty when neither exists.
  std::string chief_role;
  int chief_index = 0;

  // Where each tony.* key the job set came from (a file's path, or "--conf"), as the layered
  // Configuration knew; keys left at their defaults are absent. It travels in the spec file, so
  // that the coordinator's and the executors' messages about a value can name its source.
  std::map<std::string, std::string> sources;

  // TonY's job history (history/tony_history.h), from tony.history.*: no history when
  // history_location is empty (unset, or TonY's placeholder default /path/to/tony-history);
  // otherwise the two roots with their defaults under it resolved, and the finished dirs' zone.
  std::string history_location;
  std::string history_intermediate;
  std::string history_finished;
  std::string history_timezone = "UTC";

  // "key" with ", from <source>" when the job set it: for a message's "(...)" naming the key.
  std::string KeyAndSource(const std::string& key) const;

  const RoleSpec* FindRole(const std::string& name) const;
  // True when the job runs in stages (some role has stage 1 or more).
  bool Staged() const;
  // The preprocess / single-node role am, or null.
  const RoleSpec* PreprocessRole() const;
  // Only the am role: TonY's single-node job.
  bool SingleNode() const;
  // "preprocess" (the am role's stage), "prepare" or "training" (the last stage); every view
  // names stages so.
  std::string StageName(int stage) const;
  // Tasks of every role but am (TonY's tasks: the frameworks count these).
  int TotalInstances() const;
  // Those neither untracked nor sidecar (TonY's TASK_NUM).
  int TrackedInstances() const;
};

// Validates every known key's value and builds the JobSpec. An error names the key, the source
// file, the value and what would be accepted, e.g.
//   tony.worker.memory = "lots" (from /tmp/tony.xml): expected a memory size such as 2g, 512m
//   or 4096 (MB)
// Unknown keys are not errors; see UnknownKeyWarnings.
Result<JobSpec> BuildJobSpec(const Configuration& conf);

// One warning per unknown tony.* key: "unknown key tony.worker.memroy (from tony.xml); did you
// mean tony.worker.memory?"
std::vector<std::string> UnknownKeyWarnings(const Configuration& conf);

// One warning per key set (to other than its default) that tony accepts from TonY's job files
// but does not apply (KeySpec::unsupported, docs/keys.md): "tony.am.retry-count = \"2\" (from
// tony.xml) is not supported by tony and has no effect: session retries are not implemented".
std::vector<std::string> UnsupportedKeyWarnings(const Configuration& conf);

// Parses a memory string as TonY does: "<n>g" -> n*1024 MB, "<n>m" -> n MB, a bare number -> MB;
// case-insensitive. Also accepts "<n>t" and "<n>k" (rounded up to MB).
Result<int64_t> ParseMemoryMb(const std::string& s);

}  // namespace tony
