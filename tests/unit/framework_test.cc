// runtime/framework.h: the roles a framework adds at submit, and when a task may start.
#include "runtime/framework.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

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
  AddFrameworkRoles(conf, "venv/bin/python");
  EXPECT_EQ(conf.GetOr("tony.driver.instances", ""), "1");
  EXPECT_EQ(conf.GetOr("tony.driver.command", ""), "venv/bin/python tony_horovod_driver.py");
  EXPECT_EQ(conf.GetOr("tony.application.untracked.jobtypes", ""), "ps,driver");
}

TEST(AddFrameworkRolesTest, AJobsOwnDriverAndOtherFrameworksAreLeftAlone) {
  Configuration own = WithFramework("horovod");
  own.Set("tony.driver.instances", "1", "job");
  own.Set("tony.driver.command", "python3 my_driver.py", "job");
  AddFrameworkRoles(own, "");
  EXPECT_EQ(own.GetOr("tony.driver.command", ""), "python3 my_driver.py");
  Configuration pytorch = WithFramework("pytorch");
  AddFrameworkRoles(pytorch, "");
  EXPECT_EQ(pytorch.GetOr("tony.driver.instances", "0"), "0");
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
  EXPECT_NE(bad.message().find("bad driver address no-port"), std::string::npos);
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

}  // namespace
}  // namespace tony::runtime
