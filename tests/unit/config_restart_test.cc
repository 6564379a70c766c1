// Unit tests of how tony.<role>.restart-* become RoleSpec's restart fields (config/job_spec.cc,
// ReadRestarts), and what a bad value says.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "config/configuration.h"
#include "config/job_spec.h"

namespace tony {
namespace {

using ::testing::HasSubstr;

Configuration RestartConf(std::initializer_list<std::pair<const char*, const char*>> keys) {
  Configuration conf = Configuration::WithDefaults();
  conf.Set("tony.containers.command", "python train.py", "--executes");
  conf.Set("tony.worker.instances", "2", "tony.xml");
  conf.Set("tony.tensorboard.instances", "1", "tony.xml");
  for (const auto& [k, v] : keys) conf.Set(k, v, "tony.xml");
  return conf;
}

const RoleSpec& Role(const Result<JobSpec>& spec, const std::string& name) {
  const RoleSpec* role = spec->FindRole(name);
  EXPECT_NE(role, nullptr) << name;
  return *role;
}

TEST(RestartConfigTest, DefaultsRestartNothingAndSidecarsRestartAlone) {
  Result<JobSpec> spec = BuildJobSpec(RestartConf({}));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  const RoleSpec& worker = Role(spec, "worker");
  EXPECT_EQ(worker.restart_policy, RestartPolicy::kNever);
  EXPECT_EQ(worker.restart_scope, RestartScope::kGang);
  EXPECT_EQ(worker.max_restarts, 3);
  EXPECT_EQ(worker.restart_backoff_ms, 1000);
  EXPECT_EQ(worker.restart_backoff_max_ms, 60'000);
  EXPECT_EQ(Role(spec, "tensorboard").restart_scope, RestartScope::kTask);  // a sidecar
}

TEST(RestartConfigTest, EveryKeyIsRead) {
  Result<JobSpec> spec = BuildJobSpec(RestartConf({{"tony.worker.restart-policy", "Exit-Code"},
                                                   {"tony.worker.restart-scope", "task"},
                                                   {"tony.worker.max-restarts", "7"},
                                                   {"tony.worker.restart-exit-codes", "75, 143"},
                                                   {"tony.worker.restart-backoff-ms", "250"},
                                                   {"tony.worker.restart-backoff-max-ms", "4000"},
                                                   {"tony.tensorboard.restart-scope", "gang"}}));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  const RoleSpec& worker = Role(spec, "worker");
  EXPECT_EQ(worker.restart_policy, RestartPolicy::kExitCode);
  EXPECT_EQ(worker.restart_scope, RestartScope::kTask);
  EXPECT_EQ(worker.max_restarts, 7);
  EXPECT_EQ(worker.restart_exit_codes, (std::vector<int>{75, 143}));
  EXPECT_EQ(worker.restart_backoff_ms, 250);
  EXPECT_EQ(worker.restart_backoff_max_ms, 4000);
  EXPECT_EQ(Role(spec, "tensorboard").restart_scope, RestartScope::kGang);
}

TEST(RestartConfigTest, BadValuesNameTheKeyTheFileAndWhatIsAccepted) {
  Result<JobSpec> spec = BuildJobSpec(RestartConf({{"tony.worker.restart-policy", "always"},
                                                   {"tony.worker.max-restarts", "-1"},
                                                   {"tony.tensorboard.restart-scope", "node"}}));
  ASSERT_FALSE(spec.ok());
  const std::string& m = spec.status().message();
  EXPECT_THAT(m, HasSubstr("tony.worker.restart-policy = \"always\" (from tony.xml): expected one "
                           "of never, on-failure, exit-code"));
  EXPECT_THAT(m, HasSubstr("tony.worker.max-restarts = \"-1\" (from tony.xml)"));
  EXPECT_THAT(m, HasSubstr("tony.tensorboard.restart-scope = \"node\" (from tony.xml): expected "
                           "one of task, gang"));
}

TEST(RestartConfigTest, ExitCodesMustBeCodesAndNeedTheExitCodePolicy) {
  Result<JobSpec> spec = BuildJobSpec(RestartConf(
      {{"tony.worker.restart-policy", "exit-code"}, {"tony.worker.restart-exit-codes", "75,0,x"}}));
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(),
              HasSubstr("tony.worker.restart-exit-codes = \"75,0,x\" (from tony.xml): \"0\" is no "
                        "exit code; expected numbers from 1 to 255, comma-separated"));
  EXPECT_THAT(spec.status().message(), HasSubstr("\"x\" is no exit code"));
  spec = BuildJobSpec(RestartConf({{"tony.worker.restart-exit-codes", "75"}}));
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(),
              HasSubstr("tony.worker.restart-exit-codes = \"75\" (from tony.xml) only applies with "
                        "tony.worker.restart-policy = exit-code, but the policy is never"));
}

}  // namespace
}  // namespace tony
