// The key registry (config/keys.h): lookups of concrete and template keys, the reference tables
// every key must be in, closest-key suggestions, role names, and the audit that every key is
// applied or marked unsupported (docs/keys.md).
#include "config/keys.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

namespace tony {
namespace {

using ::testing::HasSubstr;

TEST(KeysTest, FindsConcreteAndTemplateKeys) {
  const KeySpec* mem = FindKeySpec("tony.worker.memory");
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(mem->name, "tony.<role>.memory");
  EXPECT_EQ(mem->type, KeyType::kMemory);
  EXPECT_EQ(mem->default_value, "2g");
  ASSERT_NE(FindKeySpec("tony.am.memory"), nullptr);
  EXPECT_EQ(FindKeySpec("tony.am.memory")->name, "tony.am.memory");
  ASSERT_NE(FindKeySpec("tony.docker.ps.image"), nullptr);
  ASSERT_NE(FindKeySpec("tony.application.dependency.evaluator.timeout.after.Training"), nullptr);
  ASSERT_NE(FindKeySpec("tony.worker.nproc-per-task"), nullptr);
  EXPECT_EQ(FindKeySpec("tony.worker1.memory"), nullptr);
  EXPECT_EQ(FindKeySpec("tony.application.memory"), nullptr);
  EXPECT_EQ(FindKeySpec("tony.worker.memroy"), nullptr);
}

TEST(KeysTest, EveryKeyOfTheReferenceTablesIsRegistered) {
  for (const char* key : {"tony.yarn.queue",
                          "tony.application.tags",
                          "tony.application.enable-preprocess",
                          "tony.application.num-client-rm-connect-retries",
                          "tony.application.prepare-stage",
                          "tony.application.training-stage",
                          "tony.application.security.enabled",
                          "tony.application.hadoop.location",
                          "tony.application.placement-spec",
                          "tony.application.group.A",
                          "tony.other.namenodes",
                          "tony.am.retry-count",
                          "tony.am.wait-client-signal-stop-timeout-sec",
                          "tony.am.startup-timeout",
                          "tony.docker.am.image",
                          "tony.task.max-total-gpus",
                          "tony.task.executor.jvm.opts",
                          "tony.task.metrics-interval-ms",
                          "tony.task.gpu-metrics.enabled",
                          "tony.task.executor.registry-timeout-sec",
                          "tony.container.allocation.timeout",
                          "tony.containers.placement-spec",
                          "tony.ps.allocation-tags",
                          "tony.ps.depends-on",
                          "tony.docker.enabled",
                          "tony.docker.containers.mount",
                          "tony.gpu-exec-path",
                          "tony.version-info.checksum",
                          "tony.horovod.driver.mode.debug",
                          "tony.driver.command",
                          "tony.tensorboard.instances",
                          "tony.history.retention-sec",
                          "tony.portal.url",
                          "tony.keytab.user",
                          "tony.https.keystore.algorithm",
                          "tony.http.port",
                          "tony.secret.key",
                          "tony.python-venv",
                          "tony.src-dir",
                          "tony.python-exec-path"}) {
    EXPECT_NE(FindKeySpec(key), nullptr) << key;
  }
}

// config/key_names.h: the names code outside config/ uses are the table's.
TEST(KeyNamesTest, ForRoleFillsTheRoleOfATemplate) {
  EXPECT_EQ(keys::ForRole(keys::kRoleMemory, "worker"), "tony.worker.memory");
  EXPECT_EQ(keys::ForRole(keys::kApplicationDependencyTimeout, "evaluator"),
            "tony.application.dependency.evaluator.timeout.after.<group>");
  EXPECT_EQ(keys::RolePrefix("worker"), "tony.worker");
  const KeySpec* spec = FindKeySpec(keys::ForRole(keys::kRoleStallTimeoutMs, "ps"));
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->name, keys::kRoleStallTimeoutMs);
  // The AM's container keys follow the roles' pattern (engine/fit_check.cc and
  // engine/yarn/client/yarn_submit.cc name them with "am").
  EXPECT_EQ(keys::ForRole(keys::kRoleMemory, "am"), keys::kAmMemory);
  EXPECT_EQ(keys::ForRole(keys::kRoleVcores, "am"), keys::kAmVcores);
  EXPECT_EQ(keys::ForRole(keys::kRoleGpus, "am"), keys::kAmGpus);
}

TEST(KeysTest, ClosestKnownKeyFillsTheRole) {
  EXPECT_EQ(ClosestKnownKey("tony.worker.memroy"), "tony.worker.memory");
  EXPECT_EQ(ClosestKnownKey("tony.ps.instance"), "tony.ps.instances");
  EXPECT_EQ(ClosestKnownKey("tony.applicaton.name"), "tony.application.name");
  EXPECT_EQ(ClosestKnownKey("tony.completely.unrelated.thing"), std::nullopt);
}

TEST(KeysTest, DescribeAccepted) {
  EXPECT_EQ(DescribeAccepted(*FindKeySpec("tony.worker.memory")), std::string(kMemorySizeForms));
  EXPECT_EQ(DescribeAccepted(*FindKeySpec("tony.docker.enabled")), "true or false");
  EXPECT_THAT(DescribeAccepted(*FindKeySpec("tony.application.framework")),
              HasSubstr("tensorflow, pytorch, horovod, mxnet, jax, standalone, generic"));
}

TEST(KeysTest, RoleNames) {
  EXPECT_TRUE(IsRoleName("worker"));
  EXPECT_TRUE(IsRoleName("tensorboard"));
  EXPECT_FALSE(IsRoleName("am"));
  EXPECT_FALSE(IsRoleName("containers"));
  EXPECT_FALSE(IsRoleName("task"));
  EXPECT_FALSE(IsRoleName("worker2"));
  EXPECT_FALSE(IsRoleName("Worker"));
  EXPECT_FALSE(IsRoleName("my_role"));
}

// ---- The key audit (docs/keys.md) ----

// Every registered key is either applied (this list, each with its test in docs/keys.md) or
// marked unsupported with a reason: a new key must take one side.
TEST(KeyAuditTest, EveryKeyIsAppliedOrMarkedUnsupported) {
  const std::set<std::string> applied = {"tony.yarn.queue",
                                         "tony.application.name",
                                         "tony.application.type",
                                         "tony.application.tags",
                                         "tony.application.node-label",
                                         "tony.application.view-acls",
                                         "tony.application.modify-acls",
                                         "tony.application.framework",
                                         "tony.application.distributed-mode",
                                         "tony.application.timeout",
                                         "tony.application.untracked.jobtypes",
                                         "tony.application.sidecar.jobtypes",
                                         "tony.application.tensorboard-log-dir",
                                         "tony.application.stop-on-failure-jobtypes",
                                         "tony.application.fail-on-worker-failure-enabled",
                                         "tony.local.memory",
                                         "tony.local.vcores",
                                         "tony.gpu-exec-path",
                                         "tony.am.memory",
                                         "tony.am.vcores",
                                         "tony.am.gpus",
                                         "tony.application.num-client-rm-connect-retries",
                                         "tony.am.wait-client-signal-stop-timeout-sec",
                                         "tony.am.resources",
                                         "tony.am.command",
                                         "tony.application.enable-preprocess",
                                         "tony.application.skip-fit-check",
                                         "tony.horovod.driver.mode.debug",
                                         "tony.application.hdfs-conf-path",
                                         "tony.application.yarn-conf-path",
                                         "tony.application.ssl.ca-file",
                                         "tony.application.webhdfs.datanode-hosts",
                                         "tony.application.hadoop.location",
                                         "tony.application.hadoop.classpath",
                                         "tony.task.max-total-instances",
                                         "tony.task.max-total-gpus",
                                         "tony.task.max-total-vcores",
                                         "tony.task.max-total-memory",
                                         "tony.task.heartbeat-interval-ms",
                                         "tony.task.max-missed-heartbeats",
                                         "tony.am.retry-count",
                                         "tony.task.metrics-interval-ms",
                                         "tony.task.executor.execution-timeout-ms",
                                         "tony.worker.timeout",
                                         "tony.task.executor.registry-timeout-sec",
                                         "tony.task.hold-port",
                                         "tony.task.executor.execution.error-message-max-depth",
                                         "tony.container.registration.timeout",
                                         "tony.container.allocation.timeout",
                                         "tony.application.gang-timeout-ms",
                                         "tony.application.prepare-stage",
                                         "tony.application.group.<group>",
                                         "tony.application.dependency.<role>.timeout.after.<group>",
                                         "tony.application.dependency.<role>.timeout.after.<group>."
                                         "ignored",
                                         "tony.application.training-stage",
                                         "tony.containers.resources",
                                         "tony.containers.command",
                                         "tony.containers.envs",
                                         "tony.execution.envs",
                                         "tony.<role>.instances",
                                         "tony.<role>.max-instances",
                                         "tony.<role>.memory",
                                         "tony.<role>.vcores",
                                         "tony.<role>.gpus",
                                         "tony.<role>.resources",
                                         "tony.<role>.command",
                                         "tony.<role>.node-label",
                                         "tony.<role>.nproc-per-task",
                                         "tony.<role>.restart-policy",
                                         "tony.<role>.restart-scope",
                                         "tony.<role>.max-restarts",
                                         "tony.<role>.restart-exit-codes",
                                         "tony.<role>.restart-backoff-ms",
                                         "tony.<role>.restart-backoff-max-ms",
                                         "tony.<role>.stall-timeout-ms",
                                         "tony.<role>.on-stall",
                                         "tony.docker.enabled",
                                         "tony.docker.containers.image",
                                         "tony.docker.<role>.image",
                                         "tony.docker.containers.mount",
                                         "tony.python-exec-path",
                                         "tony.kerberos.principal",
                                         "tony.kerberos.keytab",
                                         "tony.kerberos.proxy-user",
                                         "tony.other.namenodes",
                                         "tony.history.location",
                                         "tony.history.intermediate",
                                         "tony.history.finished",
                                         "tony.history.finished-dir-timezone"};
  for (const KeySpec& spec : AllKeys()) {
    bool is_applied = applied.count(std::string(spec.name)) > 0;
    EXPECT_NE(is_applied, !spec.unsupported.empty()) << spec.name;
  }
}

}  // namespace
}  // namespace tony
