// Unit tests of how tony.<role>.stall-timeout-ms and tony.<role>.on-stall become RoleSpec's stall
// fields (config/job_spec.cc, BuildRole; README "Stalls"), and what a bad value says.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "config/configuration.h"
#include "config/job_spec.h"

namespace tony {
namespace {

using ::testing::HasSubstr;

Configuration StallConf(std::initializer_list<std::pair<const char*, const char*>> keys) {
  Configuration conf = Configuration::WithDefaults();
  conf.Set("tony.containers.command", "python train.py", "--executes");
  conf.Set("tony.worker.instances", "2", "tony.xml");
  conf.Set("tony.ps.instances", "1", "tony.xml");
  for (const auto& [k, v] : keys) conf.Set(k, v, "tony.xml");
  return conf;
}

TEST(StallConfigTest, OffByDefaultAndFailWhenOn) {
  Result<JobSpec> spec = BuildJobSpec(StallConf({}));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  const RoleSpec* worker = spec->FindRole("worker");
  ASSERT_NE(worker, nullptr);
  EXPECT_EQ(worker->stall_timeout_ms, 0);
  EXPECT_EQ(worker->on_stall, OnStall::kFail);
}

TEST(StallConfigTest, EachRoleHasItsOwn) {
  Result<JobSpec> spec = BuildJobSpec(StallConf({{"tony.worker.stall-timeout-ms", "30000"},
                                                 {"tony.worker.on-stall", "Restart"},
                                                 {"tony.ps.stall-timeout-ms", "5000"},
                                                 {"tony.ps.on-stall", "warn"}}));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->FindRole("worker")->stall_timeout_ms, 30'000);
  EXPECT_EQ(spec->FindRole("worker")->on_stall, OnStall::kRestart);
  EXPECT_EQ(spec->FindRole("ps")->stall_timeout_ms, 5'000);
  EXPECT_EQ(spec->FindRole("ps")->on_stall, OnStall::kWarn);
  EXPECT_STREQ(OnStallName(OnStall::kRestart), "restart");
}

TEST(StallConfigTest, BadValuesNameTheKeyTheFileAndWhatIsAccepted) {
  Result<JobSpec> spec = BuildJobSpec(
      StallConf({{"tony.worker.on-stall", "kill"}, {"tony.ps.stall-timeout-ms", "-5"}}));
  ASSERT_FALSE(spec.ok());
  const std::string& m = spec.status().message();
  EXPECT_THAT(m, HasSubstr("tony.worker.on-stall = \"kill\" (from tony.xml): expected one of warn, "
                           "fail, restart"));
  EXPECT_THAT(m, HasSubstr("tony.ps.stall-timeout-ms = \"-5\" (from tony.xml)"));
}

}  // namespace
}  // namespace tony
