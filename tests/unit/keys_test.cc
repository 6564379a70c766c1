// The key registry (config/keys.h): lookups of concrete and template keys, the reference tables
// every key must be in, closest-key suggestions, and role names.
#include "config/keys.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tony
