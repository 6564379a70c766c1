// The name of every tony.* configuration key, each written once: the key table (keys.cc) registers
// these constants, and code outside config/ names a key only through them, so a renamed key is
// changed in one place (the unit test keys_in_config checks that no tony.* name is written
// elsewhere; docs/architecture.md §2).
//
// A per-role key is a template with "<role>" in place of the role (kRoleMemory is
// "tony.<role>.memory"); ForRole fills it in. Messages compose the names they show from these
// constants, so they read as before: "tony.worker.memory sets the limit".
#pragma once

#include <string>
#include <string_view>

namespace tony::keys {

// tony.application.*, tony.yarn.queue and tony.other.namenodes (docs/tony-compat.md §2.1).
inline constexpr char kYarnQueue[] = "tony.yarn.queue";
inline constexpr char kApplicationName[] = "tony.application.name";
inline constexpr char kApplicationType[] = "tony.application.type";
inline constexpr char kApplicationTags[] = "tony.application.tags";
inline constexpr char kApplicationNodeLabel[] = "tony.application.node-label";
inline constexpr char kApplicationViewAcls[] = "tony.application.view-acls";
inline constexpr char kApplicationModifyAcls[] = "tony.application.modify-acls";
inline constexpr char kApplicationFramework[] = "tony.application.framework";
inline constexpr char kApplicationDistributedMode[] = "tony.application.distributed-mode";
inline constexpr char kApplicationSkipFitCheck[] = "tony.application.skip-fit-check";
inline constexpr char kApplicationEnablePreprocess[] = "tony.application.enable-preprocess";
inline constexpr char kApplicationTimeout[] = "tony.application.timeout";
inline constexpr char kApplicationNumClientRmConnectRetries[] =
    "tony.application.num-client-rm-connect-retries";
inline constexpr char kApplicationPrepareStage[] = "tony.application.prepare-stage";
inline constexpr char kApplicationTrainingStage[] = "tony.application.training-stage";
inline constexpr char kApplicationUntrackedJobtypes[] = "tony.application.untracked.jobtypes";
inline constexpr char kApplicationSidecarJobtypes[] = "tony.application.sidecar.jobtypes";
inline constexpr char kApplicationStopOnFailureJobtypes[] =
    "tony.application.stop-on-failure-jobtypes";
inline constexpr char kApplicationFailOnWorkerFailureEnabled[] =
    "tony.application.fail-on-worker-failure-enabled";
inline constexpr char kApplicationSecurityEnabled[] = "tony.application.security.enabled";
inline constexpr char kApplicationHdfsConfPath[] = "tony.application.hdfs-conf-path";
inline constexpr char kApplicationYarnConfPath[] = "tony.application.yarn-conf-path";
inline constexpr char kApplicationSslCaFile[] = "tony.application.ssl.ca-file";
inline constexpr char kApplicationWebhdfsDatanodeHosts[] =
    "tony.application.webhdfs.datanode-hosts";
inline constexpr char kApplicationMapredConfPath[] = "tony.application.mapred-conf-path";
inline constexpr char kApplicationHadoopLocation[] = "tony.application.hadoop.location";
inline constexpr char kApplicationHadoopClasspath[] = "tony.application.hadoop.classpath";
inline constexpr char kApplicationTensorboardLogDir[] = "tony.application.tensorboard-log-dir";
inline constexpr char kApplicationPlacementSpec[] = "tony.application.placement-spec";
inline constexpr char kApplicationGroup[] = "tony.application.group.<group>";
inline constexpr char kApplicationDependencyTimeout[] =
    "tony.application.dependency.<role>.timeout.after.<group>";
inline constexpr char kApplicationDependencyTimeoutIgnored[] =
    "tony.application.dependency.<role>.timeout.after.<group>.ignored";
inline constexpr char kOtherNamenodes[] = "tony.other.namenodes";
inline constexpr char kApplicationGangTimeoutMs[] = "tony.application.gang-timeout-ms";

// tony.am.*, tony.local.*, tony.task.* and tony.worker.timeout (§2.2, §2.3).
inline constexpr char kAmRetryCount[] = "tony.am.retry-count";
inline constexpr char kLocalMemory[] = "tony.local.memory";
inline constexpr char kLocalVcores[] = "tony.local.vcores";
inline constexpr char kAmMemory[] = "tony.am.memory";
inline constexpr char kAmVcores[] = "tony.am.vcores";
inline constexpr char kAmGpus[] = "tony.am.gpus";
inline constexpr char kAmWaitClientSignalStopTimeoutSec[] =
    "tony.am.wait-client-signal-stop-timeout-sec";
inline constexpr char kAmStartupTimeout[] = "tony.am.startup-timeout";
inline constexpr char kAmNodeLabel[] = "tony.am.node-label";
inline constexpr char kAmResources[] = "tony.am.resources";
inline constexpr char kAmCommand[] = "tony.am.command";
inline constexpr char kTaskMaxTotalInstances[] = "tony.task.max-total-instances";
inline constexpr char kTaskMaxTotalGpus[] = "tony.task.max-total-gpus";
inline constexpr char kTaskMaxTotalVcores[] = "tony.task.max-total-vcores";
inline constexpr char kTaskMaxTotalMemory[] = "tony.task.max-total-memory";
inline constexpr char kTaskAmJvmOpts[] = "tony.task.am.jvm.opts";
inline constexpr char kTaskExecutorJvmOpts[] = "tony.task.executor.jvm.opts";
inline constexpr char kTaskDefaultJvmOpts[] = "tony.task.default.jvm.opts";
inline constexpr char kDefaultJvmOpts[] = "tony.default.jvm.opts";
inline constexpr char kTaskHeartbeatIntervalMs[] = "tony.task.heartbeat-interval-ms";
inline constexpr char kTaskMaxMissedHeartbeats[] = "tony.task.max-missed-heartbeats";
inline constexpr char kTaskMetricsIntervalMs[] = "tony.task.metrics-interval-ms";
inline constexpr char kTaskGpuMetricsEnabled[] = "tony.task.gpu-metrics.enabled";
inline constexpr char kTaskExecutorExecutionTimeoutMs[] = "tony.task.executor.execution-timeout-ms";
inline constexpr char kWorkerTimeout[] = "tony.worker.timeout";
inline constexpr char kTaskExecutorRegistryTimeoutSec[] = "tony.task.executor.registry-timeout-sec";
inline constexpr char kTaskHoldPort[] = "tony.task.hold-port";
inline constexpr char kTaskExecutorExecutionErrorMessageMaxDepth[] =
    "tony.task.executor.execution.error-message-max-depth";

// Containers, the per-role templates and Docker (§2.4, §2.5).
inline constexpr char kContainerRegistrationTimeout[] = "tony.container.registration.timeout";
inline constexpr char kContainerAllocationTimeout[] = "tony.container.allocation.timeout";
inline constexpr char kContainersResources[] = "tony.containers.resources";
inline constexpr char kContainersCommand[] = "tony.containers.command";
inline constexpr char kContainersEnvs[] = "tony.containers.envs";
inline constexpr char kExecutionEnvs[] = "tony.execution.envs";
inline constexpr char kContainersPlacementSpec[] = "tony.containers.placement-spec";
inline constexpr char kContainersAllocationTags[] = "tony.containers.allocation-tags";
inline constexpr char kRoleInstances[] = "tony.<role>.instances";
inline constexpr char kRoleMaxInstances[] = "tony.<role>.max-instances";
inline constexpr char kRoleMemory[] = "tony.<role>.memory";
inline constexpr char kRoleVcores[] = "tony.<role>.vcores";
inline constexpr char kRoleGpus[] = "tony.<role>.gpus";
inline constexpr char kRoleResources[] = "tony.<role>.resources";
inline constexpr char kRoleCommand[] = "tony.<role>.command";
inline constexpr char kRoleNodeLabel[] = "tony.<role>.node-label";
inline constexpr char kRolePlacementSpec[] = "tony.<role>.placement-spec";
inline constexpr char kRoleAllocationTags[] = "tony.<role>.allocation-tags";
inline constexpr char kRoleDependsOn[] = "tony.<role>.depends-on";
inline constexpr char kRoleNprocPerTask[] = "tony.<role>.nproc-per-task";
inline constexpr char kRoleRestartPolicy[] = "tony.<role>.restart-policy";
inline constexpr char kRoleRestartScope[] = "tony.<role>.restart-scope";
inline constexpr char kRoleMaxRestarts[] = "tony.<role>.max-restarts";
inline constexpr char kRoleRestartExitCodes[] = "tony.<role>.restart-exit-codes";
inline constexpr char kRoleRestartBackoffMs[] = "tony.<role>.restart-backoff-ms";
inline constexpr char kRoleRestartBackoffMaxMs[] = "tony.<role>.restart-backoff-max-ms";
inline constexpr char kRoleStallTimeoutMs[] = "tony.<role>.stall-timeout-ms";
inline constexpr char kRoleOnStall[] = "tony.<role>.on-stall";
inline constexpr char kDockerEnabled[] = "tony.docker.enabled";
inline constexpr char kDockerContainersImage[] = "tony.docker.containers.image";
inline constexpr char kDockerRoleImage[] = "tony.docker.<role>.image";
inline constexpr char kDockerContainersMount[] = "tony.docker.containers.mount";

// Paths, build provenance, Horovod, history and TonY's portal (§2.6, §2.7).
inline constexpr char kGpuExecPath[] = "tony.gpu-exec-path";
inline constexpr char kPythonExecPath[] = "tony.python-exec-path";
inline constexpr char kPythonVenv[] = "tony.python-venv";
inline constexpr char kSrcDir[] = "tony.src-dir";
inline constexpr char kVersionInfoVersion[] = "tony.version-info.version";
inline constexpr char kVersionInfoRevision[] = "tony.version-info.revision";
inline constexpr char kVersionInfoBranch[] = "tony.version-info.branch";
inline constexpr char kVersionInfoUser[] = "tony.version-info.user";
inline constexpr char kVersionInfoDate[] = "tony.version-info.date";
inline constexpr char kVersionInfoUrl[] = "tony.version-info.url";
inline constexpr char kVersionInfoChecksum[] = "tony.version-info.checksum";
inline constexpr char kHorovodModeTest[] = "tony.horovod.mode.test";
inline constexpr char kHorovodModeTestFastFail[] = "tony.horovod.mode.test.fast.fail";
inline constexpr char kHorovodDriverModeDebug[] = "tony.horovod.driver.mode.debug";
inline constexpr char kHistoryLocation[] = "tony.history.location";
inline constexpr char kHistoryIntermediate[] = "tony.history.intermediate";
inline constexpr char kHistoryFinished[] = "tony.history.finished";
inline constexpr char kHistoryMoverIntervalMs[] = "tony.history.mover-interval-ms";
inline constexpr char kHistoryFinishedDirTimezone[] = "tony.history.finished-dir-timezone";
inline constexpr char kHistoryRetentionSec[] = "tony.history.retention-sec";
inline constexpr char kHistoryPurgerIntervalMs[] = "tony.history.purger-interval-ms";
inline constexpr char kHistoryHost[] = "tony.history.host";
inline constexpr char kPortalUrl[] = "tony.portal.url";
inline constexpr char kPortalCacheMaxEntries[] = "tony.portal.cache.max-entries";
inline constexpr char kKeytabUser[] = "tony.keytab.user";
inline constexpr char kKeytabLocation[] = "tony.keytab.location";
inline constexpr char kHttpsPort[] = "tony.https.port";
inline constexpr char kHttpsKeystorePath[] = "tony.https.keystore.path";
inline constexpr char kHttpsKeystoreType[] = "tony.https.keystore.type";
inline constexpr char kHttpsKeystorePassword[] = "tony.https.keystore.password";
inline constexpr char kHttpsKeystoreAlgorithm[] = "tony.https.keystore.algorithm";
inline constexpr char kHttpPort[] = "tony.http.port";
inline constexpr char kSecretKey[] = "tony.secret.key";

// The Kerberos login of `tony submit` (README, "Kerberos").
inline constexpr char kKerberosPrincipal[] = "tony.kerberos.principal";
inline constexpr char kKerberosKeytab[] = "tony.kerberos.keytab";
inline constexpr char kKerberosProxyUser[] = "tony.kerberos.proxy-user";
// Not configuration keys: the tony.* aliases of secrets in the job's credentials (the keytab's
// and the principal's aliases are the names of their keys).
inline constexpr char kJobSecretAlias[] = "tony.job.secret";
inline constexpr char kJobTlsKeyAlias[] = "tony.job.tls.key";
inline constexpr char kJobTlsCertAlias[] = "tony.job.tls.cert";
inline constexpr char kWebHdfsTrustAlias[] = "tony.webhdfs.ca-pem";

// A per-role template filled in for `role`: ForRole(kRoleMemory, "worker") is
// "tony.worker.memory". Every "<role>" in `key_template` is replaced.
std::string ForRole(std::string_view key_template, std::string_view role);

// What every key of `role` starts with, up to its last '.': "tony.worker" for "worker".
std::string RolePrefix(std::string_view role);

}  // namespace tony::keys
