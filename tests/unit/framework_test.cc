// runtime/framework.h: the roles a framework adds at submit, and when a task may start.
#include "runtime/framework.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "config/keys.h"
#include "tests/unit/runtime_test_util.h"

namespace tony::runtime {
namespace {

using testing::Role;
using testing::Spec;

Configuration WithFramework(const std::string& framework) {
  Configuration conf = Configuration::WithDefaults();
  conf.Set("tony.application.framework", framework, "test");
  return conf;
}

TEST(AddFrameworkRolesTest, HorovodGetsAnUntrackedDriverRunWithTheJobsPython) {
  Configuration conf = WithFramework("Horovod");
  ASSERT_TRUE(AddFrameworkRoles(conf, "venv/bin/python").ok());
  EXPECT_EQ(conf.GetOr("tony.driver.instances", ""), "1");
  EXPECT_EQ(conf.GetOr("tony.driver.command", ""), "venv/bin/python tony_horovod_driver.py");
  EXPECT_EQ(conf.GetOr("tony.application.untracked.jobtypes", ""), "ps,driver");
}

TEST(AddFrameworkRolesTest, AJobsOwnDriverKeysAreRefusedOutsideTheDebugModeAsTonYDoes) {
  Configuration own = WithFramework("horovod");
  own.Set("tony.driver.command", "python3 my_driver.py", "tony.xml");
  Status s = AddFrameworkRoles(own, "");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("tony.driver.command (from tony.xml): tony.application.framework = "
                             "horovod runs its own driver task; set "
                             "tony.horovod.driver.mode.debug = true to run yours"),
            std::string::npos)
      << s.message();
  Configuration pytorch = WithFramework("pytorch");
  pytorch.Set("tony.driver.instances", "1", "tony.xml");  // a role like any other there
  ASSERT_TRUE(AddFrameworkRoles(pytorch, "").ok());
  EXPECT_EQ(pytorch.GetOr("tony.driver.instances", "0"), "1");
}

TEST(AddFrameworkRolesTest, TheDebugModeRunsTheJobsDriverCommandAsOneUntrackedTask) {
  Configuration conf = WithFramework("horovod");
  conf.Set("tony.horovod.driver.mode.debug", "true", "tony.xml");
  conf.Set("tony.driver.command", "python3 horovod_debug_driver.py -t -p 9999", "tony.xml");
  conf.Set("tony.driver.memory", "1g", "tony.xml");
  ASSERT_TRUE(AddFrameworkRoles(conf, "venv/bin/python").ok());
  EXPECT_EQ(conf.GetOr("tony.driver.command", ""), "python3 horovod_debug_driver.py -t -p 9999");
  EXPECT_EQ(conf.GetOr("tony.driver.instances", ""), "1");
  EXPECT_EQ(conf.GetOr("tony.driver.memory", ""), "1g");  // the job's own
  EXPECT_EQ(conf.GetOr("tony.driver.vcores", ""), "1");
  EXPECT_EQ(conf.GetOr("tony.application.untracked.jobtypes", ""), "ps,driver");
  // TonY's job files list the driver as untracked themselves: not twice.
  Configuration listed = WithFramework("horovod");
  listed.Set("tony.horovod.driver.mode.debug", "true", "tony.xml");
  listed.Set("tony.driver.command", "python3 d.py", "tony.xml");
  listed.Set("tony.application.untracked.jobtypes", "driver", "tony.xml");
  ASSERT_TRUE(AddFrameworkRoles(listed, "").ok());
  EXPECT_EQ(listed.GetOr("tony.application.untracked.jobtypes", ""), "driver");
}

TEST(AddFrameworkRolesTest, TheDebugModeNeedsOneDriverWithACommand) {
  Configuration conf = WithFramework("horovod");
  conf.Set("tony.horovod.driver.mode.debug", "true", "tony.xml");
  Status s = AddFrameworkRoles(conf, "");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("tony.horovod.driver.mode.debug = true (from tony.xml) needs "
                             "tony.driver.command"),
            std::string::npos)
      << s.message();
  conf.Set("tony.driver.command", "python3 d.py", "tony.xml");
  conf.Set("tony.driver.instances", "2", "tony.xml");
  s = AddFrameworkRoles(conf, "");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("tony.driver.instances = \"2\" (from tony.xml): the horovod driver "
                             "is one task"),
            std::string::npos)
      << s.message();
}

TEST(SpecAwaitsTest, OnlyTheDebugDriversWorkersWaitForWhatItPublishes) {
  JobSpec spec = Spec("horovod", {Role("driver", 1, true), Role("worker", 2)}, "worker");
  EXPECT_EQ(SpecAwaits(spec, "worker"), "");
  EXPECT_FALSE(Publishes(spec, "driver"));
  spec.horovod_debug_driver = true;
  EXPECT_EQ(SpecAwaits(spec, "worker"), "driver:0");
  EXPECT_EQ(SpecAwaits(spec, "driver"), "");
  EXPECT_TRUE(Publishes(spec, "driver"));
  EXPECT_FALSE(Publishes(spec, "worker"));
  // Whatever the mode, the driver serves the job to its end.
  MarkServingRoles(spec);
  EXPECT_NE(spec.FindRole("driver")->serves_peers.find("rendezvous"), std::string::npos);
  EXPECT_EQ(spec.FindRole("worker")->serves_peers, "");
  JobSpec tf = Spec("tensorflow", {Role("ps", 1, true), Role("worker", 2)}, "worker");
  MarkServingRoles(tf);
  EXPECT_EQ(tf.FindRole("ps")->serves_peers, "");
}

// The debug driver's port file, as TonY's horovod_debug_driver.py writes it in its test mode
// (fake port 9999, a fake plan of strings), read from DRIVER_OUTPUT_PATH under the task's
// working directory.
class PollPublishedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    old_ = std::filesystem::current_path();
    dir_ = std::filesystem::temp_directory_path() /
           ("tony-poll-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::filesystem::current_path(dir_);
    spec_ = Spec("horovod", {Role("driver", 1, true), Role("worker", 2)}, "worker");
    spec_.horovod_debug_driver = true;
    ASSERT_TRUE(PrepareTask(spec_, "driver").ok());
  }
  void TearDown() override {
    std::filesystem::current_path(old_);
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path Output() const { return dir_ / "horovod_driver_output"; }
  void Write(const std::string& name, const std::string& text) const {
    std::ofstream(Output() / name) << text;
  }

  std::filesystem::path old_, dir_;
  JobSpec spec_;
};

TEST_F(PollPublishedTest, NothingUntilThePortFileAppearsThenItsPortAndPlan) {
  auto none = PollPublished(spec_, "driver");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  Write("9999____HOROVOD_RENDEZVOUS_SERVER____",
        R"([{"hostname": "127.0.0.1", "rank": "0", "localRank": "0", "crossRank": "0", )"
        R"("size": "2", "localSize": "2", "crossSize": "1"}, {"hostname": "127.0.0.1", )"
        R"("rank": "1", "localRank": "1", "crossRank": "1", "size": "2", "localSize": "2", )"
        R"("crossSize": "1"}])");
  auto found = PollPublished(spec_, "driver");
  ASSERT_TRUE(found.ok()) << found.status().message();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->port, 9999);
  auto plan = nlohmann::json::parse((*found)->info);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[1]["rank"], 1);
  EXPECT_EQ(plan[1]["hostname"], "127.0.0.1");
  // Not the workers' business, nor the driver's without debug mode.
  spec_.horovod_debug_driver = false;
  EXPECT_FALSE(PollPublished(spec_, "driver")->has_value());
}

TEST_F(PollPublishedTest, APortFileThatStaysBadIsAnErrorNamingIt) {
  const std::string name = "4242____HOROVOD_RENDEZVOUS_SERVER____";
  Write(name, "not json");
  // Just written: perhaps still being written.
  EXPECT_FALSE(PollPublished(spec_, "driver")->has_value());
  auto old = std::filesystem::last_write_time(Output() / name) - std::chrono::seconds(10);
  std::filesystem::last_write_time(Output() / name, old);
  auto bad = PollPublished(spec_, "driver");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find((Output() / name).string()), std::string::npos)
      << bad.status().message();
  EXPECT_NE(bad.status().message().find("expected a JSON list of slots"), std::string::npos);
}

TEST_F(PollPublishedTest, AnEarlierAttemptsPortFileIsGoneBeforeTheDriverStarts) {
  Write("9999____HOROVOD_RENDEZVOUS_SERVER____", "[]");
  ASSERT_TRUE(PrepareTask(spec_, "driver").ok());
  EXPECT_FALSE(std::filesystem::exists(Output() / "9999____HOROVOD_RENDEZVOUS_SERVER____"));
  // Debug mode: tony's own driver script is not written.
  EXPECT_FALSE(std::filesystem::exists(dir_ / "tony_horovod_driver.py"));
}

TEST(WaitUntilReadyTest, AHorovodWorkerStartsOnceTheDriverListens) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  JobSpec spec = Spec("horovod", {Role("driver", 1, true), Role("worker", 2)}, "worker");
  Cluster cluster = {{"driver", {"127.0.0.1:" + std::to_string(ntohs(addr.sin_port))}},
                     {"worker", {"127.0.0.1:1", "127.0.0.1:2"}}};
  EXPECT_TRUE(WaitUntilReady(spec, "worker", cluster).ok());
  ::close(fd);
}

TEST(WaitUntilReadyTest, ABadDriverAddressIsAnErrorAndOtherTasksDoNotWait) {
  JobSpec horovod = Spec("horovod", {Role("driver", 1, true), Role("worker", 1)}, "worker");
  Status bad = WaitUntilReady(horovod, "worker", {{"driver", {"no-port"}}});
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("the horovod driver's address: expected host:port, got \"no-port\": "
                               "there is no port"),
            std::string::npos)
      << bad.message();
  // The driver itself, and every task of other frameworks, start at once: nothing listens here.
  EXPECT_TRUE(WaitUntilReady(horovod, "driver", {{"driver", {"127.0.0.1:1"}}}).ok());
  JobSpec pytorch = Spec("pytorch", {Role("worker", 1)}, "worker");
  EXPECT_TRUE(WaitUntilReady(pytorch, "worker", {{"driver", {"127.0.0.1:1"}}}).ok());
}

TEST(FrameworkNamesTest, TheKeysAllowedValuesAreTheRuntimesFrameworks) {
  const KeySpec* key = FindKeySpec("tony.application.framework");
  ASSERT_NE(key, nullptr);
  std::vector<std::string> allowed(key->allowed.begin(), key->allowed.end());
  EXPECT_EQ(allowed, KnownFrameworks());
  Status unknown = ValidateForFramework(Spec("caffe", {Role("worker", 1)}, "worker"));
  EXPECT_NE(unknown.message().find(
                "expected one of tensorflow, pytorch, horovod, mxnet, jax, standalone, generic"),
            std::string::npos)
      << unknown.message();
}

// The task port hold (README "What a task sees"): the frameworks whose listener binds with
// SO_REUSEPORT hold it by default; the key, then TonY's TF_GRPC_REUSE_PORT, override.
TEST(HoldsTaskPortTest, HeldByDefaultUnlessTheKeyOrTonYsVariableSaysOtherwise) {
  JobSpec tf =
      Spec("tensorflow", {Role("worker", 2), Role("ps", 1, true), Role("tb", 1, false, true)}, "");
  EXPECT_TRUE(HoldsTaskPort(tf, "worker"));
  EXPECT_TRUE(HoldsTaskPort(tf, "ps"));  // untracked, still a gRPC server of the cluster
  EXPECT_TRUE(HoldsTaskPort(tf, "tb"));  // a sidecar's TensorBoard too, through the library
  EXPECT_EQ(HoldReason(tf), "the default");
  for (const char* fw : {"jax", "pytorch", "horovod", "mxnet", "generic"}) {
    EXPECT_TRUE(HoldsTaskPort(Spec(fw, {Role("worker", 2)}, ""), "worker")) << fw;
  }
  JobSpec pt = Spec("pytorch", {Role("worker", 2)}, "");
  pt.execution_envs = {"TF_GRPC_REUSE_PORT=false", "TF_GRPC_REUSE_PORT=True"};
  EXPECT_TRUE(HoldsTaskPort(pt, "worker"));  // the last setting, any case
  EXPECT_EQ(HoldReason(pt), "TF_GRPC_REUSE_PORT=true in tony.execution.envs");
  tf.execution_envs = {"TF_GRPC_REUSE_PORT=false"};
  EXPECT_FALSE(HoldsTaskPort(tf, "worker"));
  tf.hold_port = true;  // the key wins over the variable
  EXPECT_TRUE(HoldsTaskPort(tf, "worker"));
  EXPECT_EQ(HoldReason(tf), "tony.task.hold-port = true");
  pt.hold_port = false;
  EXPECT_FALSE(HoldsTaskPort(pt, "worker"));
}

// Which user processes bind a held port by themselves, and which need libtony-reuseport.so.
TEST(HoldsTaskPortTest, OnlyListenersWithoutSoReusePortNeedThePreloadLibrary) {
  JobSpec tf = Spec("tensorflow", {Role("worker", 2), Role("tb", 1, false, true)}, "");
  EXPECT_TRUE(SharesHeldPort(tf, "worker"));  // gRPC with TF_GRPC_REUSE_PORT=true
  EXPECT_FALSE(SharesHeldPort(tf, "tb"));
  EXPECT_TRUE(SharesHeldPort(Spec("jax", {Role("worker", 2)}, ""), "worker"));
  for (const char* fw : {"pytorch", "horovod", "mxnet", "generic"}) {
    JobSpec spec = Spec(fw, {Role("worker", 2)}, "");
    EXPECT_FALSE(SharesHeldPort(spec, "worker")) << fw;
    spec.execution_envs = {"TF_GRPC_REUSE_PORT=true"};  // the user says the process sets it
    EXPECT_TRUE(SharesHeldPort(spec, "worker")) << fw;
  }
}

// A held TensorFlow port is shared with TensorFlow's server only when it binds with
// SO_REUSEPORT: the task gets TF_GRPC_REUSE_PORT=true exactly when its port is held.
TEST(HoldsTaskPortTest, TensorFlowTasksOfAHeldPortGetTfGrpcReusePort) {
  JobSpec tf = Spec("tensorflow", {Role("worker", 1), Role("tb", 1, false, true)}, "");
  TaskEnvInput in;
  in.spec = &tf;
  in.role = "worker";
  in.cluster = {{"worker", {"h:1"}}, {"tb", {"h:2"}}};
  auto env = BuildTaskEnv(in);
  ASSERT_TRUE(env.ok()) << env.status().message();
  EXPECT_EQ((*env)["TF_GRPC_REUSE_PORT"], "true");
  in.role = "tb";
  env = BuildTaskEnv(in);
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->count("TF_GRPC_REUSE_PORT"), 0U);
  tf.hold_port = false;
  in.role = "worker";
  env = BuildTaskEnv(in);
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->count("TF_GRPC_REUSE_PORT"), 0U);
}

}  // namespace
}  // namespace tony::runtime
