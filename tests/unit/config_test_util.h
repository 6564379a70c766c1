// The fixture of config/'s unit tests (config_test.cc, config_resources_test.cc): a temp dir for
// job files, a runnable configuration, and the message BuildJobSpec refuses one with.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "common/files.h"
#include "config/configuration.h"
#include "config/job_spec.h"

namespace tony {

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::string> dir = MakeTempDir(::testing::TempDir(), "config_test.");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_ = *dir;
  }
  void TearDown() override { (void)RemoveAll(dir_); }

  // Writes `content` to <temp dir>/<name> and returns the path.
  std::string Write(const std::string& name, const std::string& content) {
    std::string path = JoinPath(dir_, name);
    Status s = WriteFileAtomic(path, content);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return path;
  }

  // A configuration with a runnable job: two workers and a command.
  static Configuration Runnable() {
    Configuration conf = Configuration::WithDefaults();
    conf.Set("tony.worker.instances", "2", "--conf");
    conf.Set("tony.containers.command", "python train.py", "--executes");
    return conf;
  }

  // The error message BuildJobSpec returns for `conf`; fails the test if it succeeds.
  static std::string BuildError(const Configuration& conf) {
    Result<JobSpec> spec = BuildJobSpec(conf);
    EXPECT_FALSE(spec.ok());
    if (spec.ok()) return "";
    EXPECT_EQ(spec.status().code(), StatusCode::kInvalidArgument);
    return spec.status().message();
  }

  std::string dir_;
};

using JobSpecTest = ConfigTest;

}  // namespace tony
