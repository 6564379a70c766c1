#include "config/keys.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "common/strings.h"

namespace tony {
namespace {

KeySpec Str(std::string_view name, std::string_view def, std::string_view doc) {
  return {name, KeyType::kString, def, "", doc, {}};
}
KeySpec List(std::string_view name, std::string_view def, std::string_view doc) {
  return {name, KeyType::kList, def, "", doc, {}};
}
KeySpec Int(std::string_view name, std::string_view def, std::string_view unit,
            std::string_view doc) {
  return {name, KeyType::kInt, def, unit, doc, {}};
}
KeySpec Long(std::string_view name, std::string_view def, std::string_view unit,
             std::string_view doc) {
  return {name, KeyType::kLong, def, unit, doc, {}};
}
KeySpec Ms(std::string_view name, std::string_view def, std::string_view doc) {
  return {name, KeyType::kDurationMs, def, "ms", doc, {}};
}
KeySpec Bool(std::string_view name, std::string_view def, std::string_view doc) {
  return {name, KeyType::kBool, def, "", doc, {}};
}
KeySpec Mem(std::string_view name, std::string_view def, std::string_view doc) {
  return {name, KeyType::kMemory, def, "MB", doc, {}};
}
// A key tony accepts (TonY's job files carry it) but does not apply; `why` says so in the
// warning a non-default value gets.
KeySpec Unsupported(KeySpec k, std::string_view why) {
  k.unsupported = why;
  return k;
}

// docs/tony-compat.md §2.1 and the tony-only application keys.
// NOLINTNEXTLINE(readability-function-size): a table, as long as its section has keys
void AddApplicationKeys(std::vector<KeySpec>& k) {
  k.push_back(Str(keys::kYarnQueue, "default", "YARN queue."));
  k.push_back(Str(keys::kApplicationName, "TensorFlowApplication", "Application name."));
  k.push_back(Str(keys::kApplicationType, "TONY", "YARN application type."));
  k.push_back(List(keys::kApplicationTags, "", "Application tags."));
  k.push_back(Str(keys::kApplicationNodeLabel, "", "Node-label expression for the app."));
  // TonY's fixed application ACLs (VIEW_APP "*", MODIFY_APP " ") as keys of ours.
  k.push_back(Str(keys::kApplicationViewAcls, "*",
                  "YARN: who may view the application (its report, diagnostics and tracking "
                  "URL), in YARN's ACL form \"user1,user2 group1,group2\"; * for everyone; empty "
                  "for the owner only. The owner and the cluster's admins always may."));
  k.push_back(Str(keys::kApplicationModifyAcls, "",
                  "YARN: who may modify (kill) the application, in YARN's ACL form \"user1,user2 "
                  "group1,group2\"; empty for the owner only. The owner and the cluster's admins "
                  "always may."));
  k.push_back({keys::kApplicationFramework, KeyType::kEnum, "tensorflow", "",
               "Framework runtime that builds each task's environment.", FrameworkNames()});
  k.push_back({keys::kApplicationDistributedMode,
               KeyType::kEnum,
               "GANG",
               "",
               "GANG: tasks start once all registered; FCFS: each starts on registration.",
               {"GANG", "FCFS"}});
  k.push_back(Bool(keys::kApplicationSkipFitCheck, "false",
                   "YARN: submit without first checking that every container, and the AM with "
                   "each stage's tasks at once, fit the cluster's running NodeManagers and the "
                   "queue's maximum capacity (for a cluster that grows)."));
  k.push_back(Bool(keys::kApplicationEnablePreprocess, "false",
                   "Run the command once as task am:0 before every other task; its line "
                   "\"Model parameters: <p>\" gives the tasks MODEL_PARAMS=<p>."));
  k.push_back(Ms(keys::kApplicationTimeout, "0", "Maximum job runtime; 0: unlimited."));
  k.push_back(
      Int(keys::kApplicationNumClientRmConnectRetries, "3", "",
          "How often the client tries again to reach a ResourceManager it cannot connect to "
          "(pauses from 1 s, doubling, at most yarn.resourcemanager.connect.retry-interval.ms)."));
  k.push_back(List(keys::kApplicationPrepareStage, "",
                   "Roles of the prepare stage: they run first; the training stage's roles get "
                   "containers once every tracked task of these succeeded."));
  k.push_back(List(keys::kApplicationTrainingStage, "",
                   "Roles of the training stage; with only one of the two keys set, the other "
                   "stage is every other role."));
  k.push_back(List(keys::kApplicationUntrackedJobtypes, "ps",
                   "Roles not waited for; their failure fails the job."));
  k.push_back(List(keys::kApplicationSidecarJobtypes, "tensorboard",
                   "Roles not waited for; their failure is ignored."));
  k.push_back(List(keys::kApplicationStopOnFailureJobtypes, "ps",
                   "Roles whose failure fails the job immediately."));
  // Differs from TonY (false): a failed tracked task fails the job unless the user opts out.
  k.push_back(Bool(keys::kApplicationFailOnWorkerFailureEnabled, "true",
                   "Any tracked task failure fails the job."));
  k.push_back(
      Unsupported(Bool(keys::kApplicationSecurityEnabled, "true", "Kerberos/token handling."),
                  "Kerberos follows hadoop.security.authentication in core-site.xml"));
  k.push_back(Str(keys::kApplicationHdfsConfPath, "",
                  "The client's hdfs-site.xml, read instead of the conf dir's."));
  k.push_back(Str(keys::kApplicationYarnConfPath, "",
                  "The client's yarn-site.xml, read instead of the conf dir's."));
  k.push_back(Str(keys::kApplicationSslCaFile, "",
                  "tony only: a PEM file of the CA certificates to trust for HTTPS to the cluster "
                  "(WebHDFS when dfs.http.policy is HTTPS_ONLY, NodeManager logs when "
                  "yarn.http.policy is); unset: the PKCS12 trust store of the cluster's "
                  "ssl-client.xml, else the system's CAs."));
  k.push_back(List(keys::kApplicationWebhdfsDatanodeHosts, "",
                   "tony only: the only hosts a NameNode may redirect WebHDFS CREATE and OPEN "
                   "to; unset: any host."));
  k.push_back(Unsupported(Str(keys::kApplicationMapredConfPath, "", "Explicit mapred-site.xml."),
                          "tony reads no mapred-site.xml: it ships no MapReduce framework"));
  k.push_back(Str(keys::kApplicationHadoopLocation, "",
                  "A Hadoop tarball (URI or path, #ALIAS for its directory) unpacked into every "
                  "task container; its bin/hadoop gives the tasks' CLASSPATH."));
  k.push_back(Str(keys::kApplicationHadoopClasspath, "",
                  "Comma-separated classpath entries ($VAR and {{VAR}} expanded, dir/* globbed) "
                  "that become the tasks' CLASSPATH instead of `hadoop classpath --glob`."));
  k.push_back(Str(keys::kApplicationTensorboardLogDir, "",
                  "Adds the sidecar `tensorboard` task, which runs TensorBoard on this "
                  "directory; --sidecar_tensorboard_log_dir wins."));
  k.push_back(
      Unsupported(Str(keys::kApplicationPlacementSpec, "", "App-level placement constraint."),
                  "YARN placement constraints are not implemented"));
  k.push_back(List(keys::kApplicationGroup, "", "Roles forming group <group>."));
  k.push_back(Long(keys::kApplicationDependencyTimeout, "", "s",
                   "Seconds <role> may keep running after all of <group> finished."));
  k.push_back(Bool(keys::kApplicationDependencyTimeoutIgnored, "false",
                   "On that timeout make <role> untracked instead of failing."));
  k.push_back(List(keys::kOtherNamenodes, "",
                   "Extra NameNode URIs (hdfs://host:port, hdfs://<nameservice>, webhdfs://...) "
                   "to fetch a delegation token for, for the tasks."));
}

// §2.2 and §2.3.
// NOLINTNEXTLINE(readability-function-size): a table, as long as its section has keys
void AddAmAndTaskKeys(std::vector<KeySpec>& k) {
  k.push_back(Int(keys::kAmRetryCount, "0", "",
                  "Session retries: how often a FAILED job starts again from its first stage, "
                  "every task in a new attempt (NUM_AM_RETRIES in their environment says which "
                  "retry); not in a single-node job."));
  k.push_back(Mem(keys::kLocalMemory, "",
                  "Local engine: memory the job may use in all; unset: this machine's memory."));
  k.push_back(Int(keys::kLocalVcores, "", "",
                  "Local engine: the cores a job's vcores are compared with; unset: this "
                  "machine's. More vcores still run, sharing the CPUs, with a warning."));
  k.push_back(Mem(keys::kAmMemory, "2g", "Coordinator container memory."));
  k.push_back(Int(keys::kAmVcores, "1", "", "Coordinator container vcores."));
  k.push_back(Int(keys::kAmGpus, "0", "", "Coordinator container GPUs."));
  k.push_back(Int(keys::kAmWaitClientSignalStopTimeoutSec, "15", "s",
                  "After the job's end, how long the coordinator waits for a client to read "
                  "the final status before it exits (TonY: the client's finish signal)."));
  k.push_back(
      Unsupported(Ms(keys::kAmStartupTimeout, "0", "Time the app may stay ACCEPTED; 0: forever."),
                  "the client waits for the AM without a limit"));
  k.push_back(Unsupported(Str(keys::kAmNodeLabel, "", "Node label for the coordinator container."),
                          "the AM container gets tony.application.node-label only"));
  k.push_back(List(keys::kAmResources, "", "Resources localized for the coordinator only."));
  k.push_back(Str(keys::kAmCommand, "",
                  "Command of the preprocess / single-node task am:0; default: "
                  "tony.containers.command."));
  k.push_back(Int(keys::kTaskMaxTotalInstances, "-1", "", "Cap on total instances; -1: none."));
  k.push_back(Int(keys::kTaskMaxTotalGpus, "-1", "", "Cap on total GPUs; -1: none."));
  k.push_back(Int(keys::kTaskMaxTotalVcores, "-1", "", "Cap on total vcores; -1: none."));
  k.push_back(Mem(keys::kTaskMaxTotalMemory, "-1", "Cap on total memory; -1: none."));
  k.push_back(Unsupported(Str(keys::kTaskAmJvmOpts, "", "Coordinator JVM options (TonY compat)."),
                          "tony runs no JVM"));
  k.push_back(
      Unsupported(Str(keys::kTaskExecutorJvmOpts, "-Xmx1536m", "Executor JVM options (compat)."),
                  "tony runs no JVM"));
  k.push_back(Unsupported(Str(keys::kTaskDefaultJvmOpts, "", "JVM options for both (TonY compat)."),
                          "tony runs no JVM"));
  k.push_back(
      Unsupported(Str(keys::kDefaultJvmOpts, "", "Azkaban's JVM options key (TonY compat)."),
                  "tony runs no JVM"));
  k.push_back(Ms(keys::kTaskHeartbeatIntervalMs, "1000", "Executor heartbeat period."));
  k.push_back(Int(keys::kTaskMaxMissedHeartbeats, "25", "",
                  "Missed heartbeats before a task (or executor) gives up."));
  k.push_back(Ms(keys::kTaskMetricsIntervalMs, "5000",
                 "How often each task's memory (RSS of its processes) is sampled for its "
                 "MAX_MEMORY_BYTES and AVG_MEMORY_BYTES metrics; 0: never."));
  k.push_back(
      Unsupported(Bool(keys::kTaskGpuMetricsEnabled, "true", "Collect GPU metrics on GPU tasks."),
                  "GPU metrics are not collected yet (memory metrics are)"));
  k.push_back(Ms(keys::kTaskExecutorExecutionTimeoutMs, "0",
                 "Kill the user process after this; 0: never."));
  // TonY's name for the same timeout before TonY #596, still in its tony-default.xml and in old
  // job files; tony.task.executor.execution-timeout-ms wins when both are set.
  k.push_back(Ms(keys::kWorkerTimeout, "0",
                 "TonY's older name of tony.task.executor.execution-timeout-ms (every task)."));
  k.push_back(Long(keys::kTaskExecutorRegistryTimeoutSec, "0", "s",
                   "Executor's time to register; 0: forever."));
  k.push_back({keys::kTaskHoldPort,
               KeyType::kEnum,
               "",
               "",
               "Keep each task's reserved port bound (SO_REUSEPORT) while its process runs, so no "
               "other user can take it: true or false. Default: true (tensorflow tasks get "
               "TF_GRPC_REUSE_PORT=true; processes whose listeners do not set SO_REUSEPORT, as "
               "PyTorch's TCPStore, get it from the preloaded libtony-reuseport.so); false for a "
               "program that cannot be preloaded (static). TF_GRPC_REUSE_PORT in "
               "tony.execution.envs decides when this is unset.",
               {"true", "false"}});
  k.push_back(Int(keys::kTaskExecutorExecutionErrorMessageMaxDepth, "20", "",
                  "stderr lines copied into failure diagnostics."));
}

// §2.4 (containers and per-role templates) and §2.5.
// NOLINTNEXTLINE(readability-function-size): a table, as long as its section has keys
void AddContainerKeys(std::vector<KeySpec>& k) {
  k.push_back(Ms(keys::kContainerRegistrationTimeout, "-1",
                 "Time from allocation to registration; <= 0: off."));
  k.push_back(Ms(keys::kApplicationGangTimeoutMs, "0",
                 "Time for every container of a stage's gang to be allocated (from the stage's "
                 "start or its gang restart); the job then fails naming what is missing. 0: "
                 "wait as long as YARN takes."));
  k.push_back(Ms(keys::kContainerAllocationTimeout, "-1",
                 "Time for all tasks to register in GANG mode; <= 0: off."));
  k.push_back(List(keys::kContainersResources, "", "Resources for every container."));
  k.push_back(Str(keys::kContainersCommand, "", "Default command of every role (--executes)."));
  k.push_back(List(keys::kContainersEnvs, "", "K=V for the container environment."));
  k.push_back(List(keys::kExecutionEnvs, "", "K=V for the user process environment."));
  k.push_back(Unsupported(Str(keys::kContainersPlacementSpec, "", "Default placement constraint."),
                          "YARN placement constraints are not implemented"));
  k.push_back(Unsupported(List(keys::kContainersAllocationTags, "", "Default allocation tags."),
                          "YARN placement constraints are not implemented"));
  k.push_back(Int(keys::kRoleInstances, "0", "", "Number of tasks of <role>."));
  k.push_back(Int(keys::kRoleMaxInstances, "-1", "", "Admin cap on instances; -1: none."));
  k.push_back(Mem(keys::kRoleMemory, "2g", "Container memory of <role>."));
  k.push_back(Int(keys::kRoleVcores, "1", "", "Container vcores of <role>."));
  k.push_back(Int(keys::kRoleGpus, "0", "", "Container GPUs of <role>."));
  k.push_back(List(keys::kRoleResources, "", "Resources only for <role>."));
  k.push_back(Str(keys::kRoleCommand, "", "Command of <role>; else tony.containers.command."));
  k.push_back(Str(keys::kRoleNodeLabel, "", "Node-label expression for <role>."));
  k.push_back(Unsupported(Str(keys::kRolePlacementSpec, "", "Placement constraint for <role>."),
                          "YARN placement constraints are not implemented"));
  k.push_back(Unsupported(List(keys::kRoleAllocationTags, "", "Allocation tags for <role>."),
                          "YARN placement constraints are not implemented"));
  k.push_back(Unsupported(List(keys::kRoleDependsOn, "", "Declared by TonY but unused."),
                          "TonY declares it and uses it nowhere"));
  k.push_back(Int(keys::kRoleNprocPerTask, "1", "", "Processes per container of <role>."));
  k.push_back({keys::kRoleRestartPolicy,
               KeyType::kEnum,
               "never",
               "",
               "Which ends of a <role> task start it again: never, on-failure (any failure) or "
               "exit-code (a foreign signal, an exit code of restart-exit-codes, a lost task). "
               "A preempted container or a lost node is replaced whatever this says.",
               {"never", "on-failure", "exit-code"}});
  k.push_back({keys::kRoleRestartScope,
               KeyType::kEnum,
               "",
               "",
               "What a restart of <role> restarts: task (only the task) or gang (every task of "
               "its stage). Default: gang; task for a sidecar role.",
               {"task", "gang"}});
  k.push_back(Int(keys::kRoleMaxRestarts, "3", "",
                  "Restarts <role> may use in the job's life (failures counted once; "
                  "preemptions and lost nodes not)."));
  k.push_back(List(keys::kRoleRestartExitCodes, "",
                   "Exit codes (1-255) that restart a <role> task under restart-policy "
                   "exit-code."));
  k.push_back(Ms(keys::kRoleRestartBackoffMs, "1000",
                 "Wait before the first restart of <role>; doubles with each restart."));
  k.push_back(
      Ms(keys::kRoleRestartBackoffMaxMs, "60000", "The longest wait before a restart of <role>."));
  k.push_back(Ms(keys::kRoleStallTimeoutMs, "0",
                 "A running <role> task with no output and no progress for this long is STALLED "
                 "(its Python stacks are captured); 0: never."));
  k.push_back({keys::kRoleOnStall,
               KeyType::kEnum,
               "fail",
               "",
               "What a STALLED <role> task gets: warn (only shown), fail (stopped, FAILED) or "
               "restart (stopped, restarted as its restart scope says).",
               {"warn", "fail", "restart"}});
  k.push_back(Bool(keys::kDockerEnabled, "false", "Launch containers with Docker."));
  k.push_back(Str(keys::kDockerContainersImage, "", "Default Docker image."));
  k.push_back(Str(keys::kDockerRoleImage, "", "Docker image of <role>."));
  k.push_back(Str(keys::kDockerContainersMount, "", "Docker mounts."));
}

// §2.6 and §2.7.
// NOLINTNEXTLINE(readability-function-size): a table, as long as its section has keys
void AddMiscKeys(std::vector<KeySpec>& k) {
  k.push_back(
      Str(keys::kGpuExecPath, "nvidia-smi",
          "nvidia-smi binary (the local engine lists GPUs with it; YARN's NM finds its own)."));
  k.push_back(Str(keys::kPythonExecPath, "", "Python interpreter (--python_binary_path)."));
  k.push_back(Unsupported(Str(keys::kPythonVenv, "", "Python environment archive (--python_venv)."),
                          "set it with --python_venv; in a file it has no effect"));
  k.push_back(Unsupported(Str(keys::kSrcDir, "", "Source dir or archive (--src_dir)."),
                          "set it with --src_dir; in a file it has no effect"));
  for (std::string_view f :
       {keys::kVersionInfoVersion, keys::kVersionInfoRevision, keys::kVersionInfoBranch,
        keys::kVersionInfoUser, keys::kVersionInfoDate, keys::kVersionInfoUrl,
        keys::kVersionInfoChecksum}) {
    k.push_back(Unsupported(Str(f, "", "Build provenance, injected by the client."),
                            "build provenance TonY's client records; tony neither records nor "
                            "reads it"));
  }
  k.push_back(Unsupported(Bool(keys::kHorovodModeTest, "false", "Horovod driver test mode."),
                          "a TonY test hook"));
  k.push_back(
      Unsupported(Bool(keys::kHorovodModeTestFastFail, "false", "Horovod driver fails at once."),
                  "a TonY test hook"));
  k.push_back(Bool(keys::kHorovodDriverModeDebug, "false",
                   "Horovod: the driver task runs tony.driver.command (your rendezvous driver, "
                   "which writes DRIVER_OUTPUT_PATH/<port>____HOROVOD_RENDEZVOUS_SERVER____ with "
                   "its slot plan) instead of tony's."));
  k.push_back(Str(keys::kHistoryLocation, "/path/to/tony-history",
                  "Job history root, in TonY's layout for TonY's portal: the coordinator writes "
                  "intermediate/<appId>/ (tony-final.xml, <appId>-<startedMs>-<user>.jhist."
                  "inprogress, Avro events in TonY's schema) as the job runs and moves it to "
                  "finished/yyyy/MM/dd/<appId>/ at its end, the events file renamed "
                  "<appId>-<startedMs>-<completedMs>-<user>-<STATUS>.jhist. A local path or "
                  "file:// (other file systems: a warning, no history); unset or TonY's "
                  "placeholder default: none. A location that cannot be written is a warning "
                  "and the job's final message says its history is incomplete; the job runs on. "
                  "An hdfs:// value also gets a delegation token for the tasks, as in TonY."));
  k.push_back(Str(keys::kHistoryIntermediate, "${tony.history.location}/intermediate",
                  "Where a running job's history is written (TonY's AM always uses "
                  "<location>/intermediate; tony honours this key, as TonY's portal does)."));
  k.push_back(Str(keys::kHistoryFinished, "${tony.history.location}/finished",
                  "Where an ended job's history is moved, under yyyy/MM/dd/<appId>/ (tony's "
                  "coordinator moves it at the job's end; TonY's portal mover did it later)."));
  k.push_back(Unsupported(
      Ms(keys::kHistoryMoverIntervalMs, "300000", "Portal mover period."),
      "a key of TonY's history portal's mover; tony's coordinator moves a job's history to "
      "finished/ itself when the job ends"));
  k.push_back(Str(keys::kHistoryFinishedDirTimezone, "UTC",
                  "Time zone (an IANA name) of the yyyy/MM/dd directories under "
                  "tony.history.finished; the date is the job's end."));
  k.push_back(Unsupported(
      Long(keys::kHistoryRetentionSec, "2592000", "s", "History retention."),
      "a key of TonY's history portal; tony has no portal (a job's history is its job dir)"));
  k.push_back(Unsupported(
      Ms(keys::kHistoryPurgerIntervalMs, "21600000", "History purger period."),
      "a key of TonY's history portal; tony has no portal (a job's history is its job dir)"));
  k.push_back(Unsupported(
      Str(keys::kHistoryHost, "", "Legacy portal key."),
      "a key of TonY's history portal; tony has no portal (a job's history is its job dir)"));
  k.push_back(Unsupported(
      Str(keys::kPortalUrl, "https://localhost:19886", "Portal URL."),
      "a key of TonY's history portal; tony has no portal (a job's history is its job dir)"));
  k.push_back(Unsupported(
      Int(keys::kPortalCacheMaxEntries, "10000", "", "Portal cache size."),
      "a key of TonY's history portal; tony has no portal (a job's history is its job dir)"));
  k.push_back(Unsupported(
      Str(keys::kKeytabUser, "user1", "Portal Kerberos principal."),
      "a key of TonY's history portal; tony has no portal (a job's history is its job dir)"));
  k.push_back(Unsupported(
      Str(keys::kKeytabLocation, "/path/to/tony.keytab", "Portal keytab."),
      "a key of TonY's history portal; tony has no portal (a job's history is its job dir)"));
  k.push_back(Unsupported(
      Int(keys::kHttpsPort, "19886", "", "Portal HTTPS port."),
      "a key of TonY's history portal; tony has no portal (a job's history is its job dir)"));
  k.push_back(Unsupported(
      Str(keys::kHttpsKeystorePath, "/path/to/keystore", "Portal keystore."),
      "a key of TonY's history portal; tony has no portal (a job's history is its job dir)"));
  k.push_back(Unsupported(
      Str(keys::kHttpsKeystoreType, "JKS", "Portal keystore type."),
      "a key of TonY's history portal; tony has no portal (a job's history is its job dir)"));
  k.push_back(Unsupported(
      Str(keys::kHttpsKeystorePassword, "password", "Portal keystore password."),
      "a key of TonY's history portal; tony has no portal (a job's history is its job dir)"));
  k.push_back(Unsupported(
      Str(keys::kHttpsKeystoreAlgorithm, "SunX509", "Portal keystore algorithm."),
      "a key of TonY's history portal; tony has no portal (a job's history is its job dir)"));
  k.push_back(Unsupported(
      Str(keys::kHttpPort, "disabled", "Portal plain HTTP port (dev only)."),
      "a key of TonY's history portal; tony has no portal (a job's history is its job dir)"));
  k.push_back(Unsupported(
      Str(keys::kSecretKey, "changeme", "Portal secret."),
      "a key of TonY's history portal; tony has no portal (a job's history is its job dir)"));
}

// tony only: the Kerberos login of `tony submit` on a secure cluster (README, "Kerberos").
void AddKerberosKeys(std::vector<KeySpec>& k) {
  k.push_back(Str(keys::kKerberosPrincipal, "",
                  "Principal to log in as from tony.kerberos.keytab (--principal)."));
  k.push_back(Str(keys::kKerberosKeytab, "",
                  "Keytab of tony.kerberos.principal (--keytab); unset: the ticket cache."));
  k.push_back(Str(keys::kKerberosProxyUser, "",
                  "Submit as this user on behalf of the Kerberos login (--proxy_user)."));
}

std::vector<KeySpec> BuildRegistry() {
  std::vector<KeySpec> k;
  AddApplicationKeys(k);
  AddKerberosKeys(k);
  AddAmAndTaskKeys(k);
  AddContainerKeys(k);
  AddMiscKeys(k);
  return k;
}

bool IsTemplate(std::string_view name) { return name.find('<') != std::string_view::npos; }

bool IsLowerAlpha(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < 'a' || c > 'z') return false;
  }
  return true;
}

bool IsAlpha(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
  }
  return true;
}

std::vector<std::string_view> SplitDots(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    out.push_back(s.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) return out;
    start = dot + 1;
  }
}

bool SegmentMatches(std::string_view pattern, std::string_view segment) {
  if (pattern == "<role>") return IsLowerAlpha(segment) && !IsReservedNamespace(segment);
  if (pattern == "<group>") return IsAlpha(segment);
  return pattern == segment;
}

bool TemplateMatches(std::string_view templ, std::string_view key) {
  std::vector<std::string_view> t = SplitDots(templ);
  std::vector<std::string_view> k = SplitDots(key);
  if (t.size() != k.size()) return false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (!SegmentMatches(t[i], k[i])) return false;
  }
  return true;
}

// The template with each placeholder replaced by the key's segment at the same position, so a
// misspelt "tony.worker.memroy" is compared with "tony.worker.memory".
std::string FillTemplate(std::string_view templ, std::string_view key) {
  std::vector<std::string_view> t = SplitDots(templ);
  std::vector<std::string_view> k = SplitDots(key);
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (i > 0) out += '.';
    bool placeholder = !t[i].empty() && t[i].front() == '<';
    out += (placeholder && i < k.size()) ? k[i] : t[i];
  }
  return out;
}

}  // namespace

const std::vector<std::string_view>& FrameworkNames() {
  static const std::vector<std::string_view> kNames = {
      "tensorflow", "pytorch", "horovod", "mxnet", "jax", "standalone", "generic"};
  return kNames;
}

bool IsReservedNamespace(std::string_view segment) {
  static const char* const kReserved[] = {
      "application", "container", "containers", "task",    "docker",  "yarn",
      "history",     "portal",    "execution",  "horovod", "http",    "https",
      "keytab",      "secret",    "other",      "default", "version", "kerberos"};
  for (const char* r : kReserved) {
    if (segment == r) return true;
  }
  return false;
}

bool IsRoleName(std::string_view name) {
  return IsLowerAlpha(name) && name != "am" && !IsReservedNamespace(name);
}

const std::vector<KeySpec>& AllKeys() {
  static const std::vector<KeySpec> kKeys = BuildRegistry();
  return kKeys;
}

const KeySpec* FindKeySpec(std::string_view key) {
  static const std::map<std::string_view, const KeySpec*> kExact = [] {
    std::map<std::string_view, const KeySpec*> m;
    for (const KeySpec& s : AllKeys()) {
      if (!IsTemplate(s.name)) m.emplace(s.name, &s);
    }
    return m;
  }();
  auto it = kExact.find(key);
  if (it != kExact.end()) return it->second;
  for (const KeySpec& s : AllKeys()) {
    if (IsTemplate(s.name) && TemplateMatches(s.name, key)) return &s;
  }
  return nullptr;
}

std::optional<std::string> ClosestKnownKey(std::string_view key) {
  constexpr size_t kMaxDistance = 3;
  // The edit distance is quadratic in the lengths and a template takes the key's own role, so a
  // very long key (a 20 kB role name took 20 s) gets no suggestion: no real key is near.
  constexpr size_t kMaxKeyLength = 256;
  if (key.size() > kMaxKeyLength) return std::nullopt;
  std::optional<std::string> best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (const KeySpec& s : AllKeys()) {
    std::string candidate = IsTemplate(s.name) ? FillTemplate(s.name, key) : std::string(s.name);
    if (candidate == key) continue;
    // The distance is at least the difference in length; such candidates cannot be close.
    if (std::max(candidate.size(), key.size()) - std::min(candidate.size(), key.size()) >
        kMaxDistance) {
      continue;
    }
    size_t d = EditDistance(key, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = std::move(candidate);
    }
  }
  if (best_distance > kMaxDistance) return std::nullopt;
  return best;
}

std::string DescribeAccepted(const KeySpec& spec) {
  switch (spec.type) {
    case KeyType::kString:
      return "a string";
    case KeyType::kList:
      return "a comma-separated list";
    case KeyType::kBool:
      return "true or false";
    case KeyType::kMemory:
      return kMemorySizeForms;
    case KeyType::kDurationMs:
      return "an integer number of milliseconds";
    case KeyType::kInt:
    case KeyType::kLong:
      if (spec.unit == "s") return "an integer number of seconds";
      return "an integer";
    case KeyType::kEnum: {
      std::vector<std::string> allowed(spec.allowed.begin(), spec.allowed.end());
      return "one of " + Join(allowed, ", ") + " (case-insensitive)";
    }
  }
  return "a value";
}

}  // namespace tony
