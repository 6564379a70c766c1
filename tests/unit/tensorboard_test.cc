// runtime/tensorboard.h: the sidecar role the client adds, which task gets TB_PORT, and its
// variables.
#include "runtime/tensorboard.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "common/strings.h"
#include "tests/unit/runtime_test_util.h"

namespace tony::runtime {
namespace {

using ::testing::HasSubstr;
using testing::Role;
using testing::Spec;

Configuration WithLogDir(const std::string& dir) {
  Configuration conf = Configuration::WithDefaults();
  conf.Set("tony.application.framework", "tensorflow", "test");
  conf.Set("tony.worker.instances", "2", "tony.xml");
  conf.Set("tony.containers.command", "python3 train.py", "tony.xml");
  if (!dir.empty())
    conf.Set(keys::kApplicationTensorboardLogDir, dir, "--sidecar_tensorboard_log_dir");
  return conf;
}

TEST(AddTensorBoardSidecarTest, WithoutALogDirNothingChanges) {
  Configuration conf = WithLogDir("");
  ASSERT_TRUE(AddTensorBoardSidecar(conf, "python3").ok());
  EXPECT_EQ(conf.GetOr("tony.tensorboard.instances", "0"), "0");
  auto spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->FindRole(kTensorBoardRole), nullptr);
  EXPECT_FALSE(HasTensorBoardSidecar(*spec));
}

TEST(AddTensorBoardSidecarTest, AddsOneSidecarTaskRunningTensorBoardOnTheDirectory) {
  Configuration conf = WithLogDir("/data/tb");
  conf.Set("tony.tensorboard.instances", "3", "tony.xml");  // TonY forces one
  conf.Set("tony.application.sidecar.jobtypes", "notebook", "tony.xml");
  ASSERT_TRUE(AddTensorBoardSidecar(conf, "venv/bin/python").ok());
  EXPECT_EQ(conf.GetOr("tony.tensorboard.instances", ""), "1");
  EXPECT_EQ(conf.GetOr("tony.tensorboard.vcores", ""), "1");
  EXPECT_EQ(conf.GetOr("tony.tensorboard.memory", ""), "2g");
  EXPECT_EQ(conf.GetOr("tony.application.sidecar.jobtypes", ""), "notebook,tensorboard");
  std::string command = conf.GetOr("tony.tensorboard.command", "");
  EXPECT_THAT(command, HasSubstr("exec 'venv/bin/python' -m tensorboard.main --logdir "
                                 "\"$TB_LOG_DIR\" --port \"$TB_PORT\" --bind_all"));
  auto spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->tensorboard_log_dir, "/data/tb");
  const RoleSpec* tb = spec->FindRole(kTensorBoardRole);
  ASSERT_NE(tb, nullptr);
  EXPECT_EQ(tb->instances, 1);
  EXPECT_TRUE(tb->sidecar);
  EXPECT_EQ(tb->command, command);
  EXPECT_EQ(spec->TrackedInstances(), 2);  // TASK_NUM: the workers only
  EXPECT_TRUE(HasTensorBoardSidecar(*spec));
}

TEST(AddTensorBoardSidecarTest, TheJobsOwnSizingAndCommandAreKept) {
  Configuration conf = WithLogDir("hdfs:///tb");
  conf.Set("tony.tensorboard.memory", "4g", "tony.xml");
  conf.Set("tony.tensorboard.command", "my_tensorboard.sh", "tony.xml");
  ASSERT_TRUE(AddTensorBoardSidecar(conf, "").ok());
  EXPECT_EQ(conf.GetOr("tony.tensorboard.memory", ""), "4g");
  EXPECT_EQ(conf.GetOr("tony.tensorboard.command", ""), "my_tensorboard.sh");
  EXPECT_EQ(conf.GetOr("tony.application.sidecar.jobtypes", ""), "tensorboard");
}

// The default command without a TensorBoard: exit 127 and a line naming the key to set.
TEST(AddTensorBoardSidecarTest, WithoutTensorBoardTheTaskSaysWhichKeyToSet) {
  Configuration conf = WithLogDir("/data/tb");
  ASSERT_TRUE(AddTensorBoardSidecar(conf, "").ok());
  std::string command = conf.GetOr("tony.tensorboard.command", "");
  EXPECT_THAT(command, HasSubstr("exec tensorboard --logdir"));
  std::string shell = "env -i PATH=/nonexistent /bin/bash -c " + ShellQuote(command) + " 2>&1";
  FILE* p = ::popen(shell.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[256];
  while (size_t n = std::fread(buf, 1, sizeof(buf), p)) out.append(buf, n);
  int status = ::pclose(p);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 127);
  EXPECT_EQ(out,
            "tony: the sidecar TensorBoard cannot start: no tensorboard on the task's PATH; set "
            "tony.tensorboard.command to a command that runs TensorBoard on $TB_LOG_DIR at "
            "$TB_PORT\n");
}

TEST(TensorBoardPortTest, OnlyTheChiefGetsItWithoutTheSidecar) {
  JobSpec with_chief =
      Spec("tensorflow", {Role("chief", 1), Role("ps", 1, true), Role("worker", 2)}, "chief");
  EXPECT_TRUE(GetsTensorBoardPort(with_chief, "chief", 0));
  EXPECT_FALSE(GetsTensorBoardPort(with_chief, "worker", 0));
  EXPECT_FALSE(GetsTensorBoardPort(with_chief, "ps", 0));
  EXPECT_FALSE(TensorBoardOnTaskPort(with_chief, "chief"));  // a second port
  JobSpec workers = Spec("tensorflow", {Role("ps", 1, true), Role("worker", 2)}, "worker");
  EXPECT_TRUE(GetsTensorBoardPort(workers, "worker", 0));
  EXPECT_FALSE(GetsTensorBoardPort(workers, "worker", 1));
}

TEST(TensorBoardPortTest, ASingleNodeJobsTaskGetsIt) {
  RoleSpec am = Role("am", 1);
  am.preprocess = true;
  JobSpec single = Spec("pytorch", {am}, "");
  ASSERT_TRUE(single.SingleNode());
  EXPECT_TRUE(GetsTensorBoardPort(single, "am", 0));
  EXPECT_FALSE(TensorBoardOnTaskPort(single, "am"));
  JobSpec preprocess = Spec("pytorch", {am, Role("worker", 2)}, "worker");
  EXPECT_FALSE(GetsTensorBoardPort(preprocess, "am", 0));  // the chief's, as in any job
  EXPECT_TRUE(GetsTensorBoardPort(preprocess, "worker", 0));
}

TEST(TensorBoardPortTest, WithTheSidecarOnlyItGetsItOnItsOwnTaskPort) {
  JobSpec spec =
      Spec("tensorflow", {Role("chief", 1), Role("tensorboard", 1, false, true), Role("worker", 2)},
           "chief");
  spec.tensorboard_log_dir = "/data/tb";
  EXPECT_FALSE(GetsTensorBoardPort(spec, "chief", 0));
  EXPECT_TRUE(GetsTensorBoardPort(spec, "tensorboard", 0));
  EXPECT_TRUE(TensorBoardOnTaskPort(spec, "tensorboard"));

  EnvMap env = TensorBoardEnv(spec, "tensorboard", 4242, /*held=*/true);
  EXPECT_EQ(
      env,
      (EnvMap{{"TB_LOG_DIR", "/data/tb"}, {"TB_PORT", "4242"}, {"TB_SERVER_REUSE_PORT", "true"}}));
  spec.tensorboard_log_dir.clear();
  EXPECT_TRUE(GetsTensorBoardPort(spec, "chief", 0));  // a tensorboard role of the job's own
  EXPECT_EQ(TensorBoardEnv(spec, "chief", 4343, /*held=*/false), (EnvMap{{"TB_PORT", "4343"}}));
}

}  // namespace
}  // namespace tony::runtime
