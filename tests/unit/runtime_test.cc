#include "runtime/runtime.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/unit/runtime_test_util.h"

namespace tony::runtime {
namespace {

using testing::Role;
using testing::Spec;

TEST(TensorFlowEnvTest, ChiefWorkersAndPsSeeTonyStyleTfConfig) {
  JobSpec spec =
      Spec("tensorflow", {Role("chief", 1), Role("ps", 1, true), Role("worker", 2)}, "chief");
  TaskEnvInput in;
  in.spec = &spec;
  in.role = "worker";
  in.index = 1;
  in.cluster = {{"chief", {"h0:1000"}}, {"ps", {"h1:1001"}}, {"worker", {"h2:1002", "h3:1003"}}};
  EnvMap env = TensorFlowEnv(in);
  auto tf = nlohmann::json::parse(env.at("TF_CONFIG"));
  EXPECT_EQ(tf["task"]["type"], "worker");
  EXPECT_EQ(tf["task"]["index"], 1);
  EXPECT_EQ(tf["cluster"]["chief"], nlohmann::json::array({"h0:1000"}));
  EXPECT_EQ(tf["cluster"]["ps"], nlohmann::json::array({"h1:1001"}));
  EXPECT_EQ(tf["cluster"]["worker"], nlohmann::json::array({"h2:1002", "h3:1003"}));
  EXPECT_FALSE(tf.contains("environment"));
  auto cs = nlohmann::json::parse(env.at("CLUSTER_SPEC"));
  EXPECT_EQ(cs.size(), 3u);
}

TEST(TensorFlowEnvTest, EvaluatorOnlyInItsOwnTfConfigAndTensorboardNowhere) {
  JobSpec spec = Spec(
      "tensorflow", {Role("evaluator", 1), Role("tensorboard", 1, false, true), Role("worker", 1)},
      "worker");
  TaskEnvInput in;
  in.spec = &spec;
  in.cluster = {{"evaluator", {"e:1"}}, {"tensorboard", {"t:2"}}, {"worker", {"w:3"}}};
  in.role = "worker";
  auto worker_tf = nlohmann::json::parse(TensorFlowEnv(in).at("TF_CONFIG"));
  EXPECT_FALSE(worker_tf["cluster"].contains("evaluator"));
  EXPECT_FALSE(worker_tf["cluster"].contains("tensorboard"));
  in.role = "evaluator";
  auto eval_tf = nlohmann::json::parse(TensorFlowEnv(in).at("TF_CONFIG"));
  EXPECT_TRUE(eval_tf["cluster"].contains("evaluator"));
  EXPECT_FALSE(eval_tf["cluster"].contains("tensorboard"));
  // CLUSTER_SPEC is the raw spec, everything included (docs/tony-compat.md §4.1).
  EXPECT_TRUE(nlohmann::json::parse(TensorFlowEnv(in).at("CLUSTER_SPEC")).contains("tensorboard"));
}

TEST(TensorFlowEnvTest, FcfsSetsNoClusterVariables) {
  JobSpec spec = Spec("tensorflow", {Role("worker", 2)}, "worker");
  spec.mode = DistributedMode::kFcfs;
  TaskEnvInput in;
  in.spec = &spec;
  in.role = "worker";
  in.cluster = {{"worker", {"a:1"}}};
  // Only the held port's variable: no TF_CONFIG, no CLUSTER_SPEC.
  EXPECT_EQ(TensorFlowEnv(in), (EnvMap{{"TF_GRPC_REUSE_PORT", "true"}}));
}

TEST(PyTorchEnvTest, WorkersGetTorchrunAndTonyVariables) {
  JobSpec spec = Spec("pytorch", {Role("worker", 3)}, "worker");
  TaskEnvInput in;
  in.spec = &spec;
  in.role = "worker";
  in.index = 2;
  in.cluster = {{"worker", {"m:29500", "b:2", "c:3"}}};
  auto env = PyTorchEnv(in);
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->at("MASTER_ADDR"), "m");
  EXPECT_EQ(env->at("MASTER_PORT"), "29500");
  EXPECT_EQ(env->at("RANK"), "2");
  EXPECT_EQ(env->at("WORLD_SIZE"), "3");
  EXPECT_EQ(env->at("WORLD"), "3");
  EXPECT_EQ(env->at("LOCAL_RANK"), "0");
  EXPECT_EQ(env->at("LOCAL_WORLD_SIZE"), "1");
  EXPECT_EQ(env->at("GROUP_RANK"), "2");
  EXPECT_EQ(env->at("INIT_METHOD"), "tcp://m:29500");
}

TEST(PyTorchEnvTest, ChiefIsRankZeroAndWorkersFollow) {
  JobSpec spec = Spec("pytorch", {Role("chief", 1), Role("worker", 2)}, "chief");
  TaskEnvInput in;
  in.spec = &spec;
  in.cluster = {{"chief", {"c:10"}}, {"worker", {"w0:11", "w1:12"}}};
  in.role = "worker";
  in.index = 0;
  auto env = PyTorchEnv(in);
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->at("MASTER_ADDR"), "c");
  EXPECT_EQ(env->at("RANK"), "1");
  EXPECT_EQ(env->at("WORLD_SIZE"), "3");
  in.role = "chief";
  EXPECT_EQ(PyTorchEnv(in)->at("RANK"), "0");
}

TEST(CommonTaskEnvTest, TonyTaskVariables) {
  JobSpec spec = Spec("generic", {Role("ps", 1, true), Role("worker", 2)}, "worker");
  TaskEnvInput in;
  in.spec = &spec;
  in.job_id = "job-1";
  in.role = "worker";
  in.index = 0;
  in.attempt = 2;
  EnvMap env = CommonTaskEnv(in);
  EXPECT_EQ(env.at("JOB_NAME"), "worker");
  EXPECT_EQ(env.at("TASK_INDEX"), "0");
  EXPECT_EQ(env.at("TASK_NUM"), "2");  // tracked tasks only: ps is untracked
  EXPECT_EQ(env.at("IS_CHIEF"), "true");
  EXPECT_EQ(env.at("DISTRIBUTED_MODE"), "GANG");
  EXPECT_EQ(env.at("JOB_ID"), "job-1");
  EXPECT_EQ(env.at("ATTEMPT_NUMBER"), "2");
  in.index = 1;
  EXPECT_EQ(CommonTaskEnv(in).count("IS_CHIEF"), 0u);
}

TEST(ValidateForFrameworkTest, StandaloneNeedsExactlyOneTask) {
  JobSpec spec = Spec("standalone", {Role("worker", 3)}, "worker");
  Status s = ValidateForFramework(spec);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("exactly one task"), std::string::npos);
  spec.roles[0].instances = 1;
  EXPECT_TRUE(ValidateForFramework(spec).ok());
}

}  // namespace
}  // namespace tony::runtime
