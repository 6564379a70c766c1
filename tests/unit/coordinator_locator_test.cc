// The AM's address file (rpc/am_address.h) and the executor's lookup of it
// (executor/coordinator_locator.h; docs/am-restart.md §4): its format and what a bad one says,
// a read through a stub NameNode and DataNode, and the locator answering on the loop's thread,
// one lookup at a time. A task that rides out a lost coordinator with a locator is
// tests/unit/executor_task_run_test.cc ("reconnect window"); the AM writing the file on a real
// cluster is tests/yarn/test_yarn_faults.py.
#include "executor/coordinator_locator.h"

#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <string>
#include <thread>

#include "executor/event_loop.h"
#include "rpc/am_address.h"
#include "tests/hadoop/http_stub.h"
#include "tests/unit/loop_signals_test_util.h"

namespace tony {
namespace {

TEST(AmAddressTest, OneLineOfTheAttemptAndTheAddressRoundTrips) {
  rpc::AmAddress a{"appattempt_1700000000000_0007_000002", "node-3.example.com:41234"};
  EXPECT_EQ(rpc::FormatAmAddress(a),
            "appattempt_1700000000000_0007_000002 node-3.example.com:41234\n");
  EXPECT_EQ(rpc::AmAddressPath("/user/me/.tony/application_1_0007"),
            "/user/me/.tony/application_1_0007/am/address");
  auto back = rpc::ParseAmAddress(rpc::FormatAmAddress(a), "/s/am/address");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->attempt, a.attempt);
  EXPECT_EQ(back->address, a.address);
}

TEST(AmAddressTest, ABadFileIsNamedWithWhatIsWrong) {
  auto expect_error = [](const std::string& text, const std::string& why) {
    auto r = rpc::ParseAmAddress(text, "/s/am/address");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("/s/am/address"), std::string::npos)
        << r.status().message();
    EXPECT_NE(r.status().message().find(why), std::string::npos) << r.status().message();
  };
  expect_error("", "is not one line \"<app attempt id> <host>:<port>\"");
  expect_error("appattempt_1_0001_000001", "is not one line");
  expect_error("appattempt_1_0001_000001 h:1\nappattempt_1_0001_000002 h:2\n", "is not one line");
  expect_error("container_1_0001_01_000001 h:1", "is not an application attempt id");
  expect_error("appattempt_1_0001_000001 h", "expected host:port");
  expect_error("appattempt_1_0001_000001 h:0", "expected host:port");
}

TEST(CoordinatorLocatorTest, ReadsTheAddressThroughTheNameNodesRedirect) {
  hadoop::HttpStub datanode("HTTP/1.1 200 OK", "appattempt_1_0001_000002 node-2:4321\n", 1);
  hadoop::HttpStub namenode(
      "HTTP/1.1 307 Temporary Redirect", "", 1,
      "Location: http://" + datanode.address() + "/webhdfs/v1/s/am/address?op=OPEN\r\n");
  AmAddressSource source;
  source.staging_dir = "/s";
  source.namenode_http = namenode.address();
  source.user = "me";
  auto address = ReadCoordinatorAddress(source);
  ASSERT_TRUE(address.ok()) << address.status().ToString();
  EXPECT_EQ(*address, "node-2:4321");
}

TEST(CoordinatorLocatorTest, AMissingFileIsNotFoundNamingIt) {
  hadoop::HttpStub namenode("HTTP/1.1 404 Not Found",
                            R"({"RemoteException":{"exception":"FileNotFoundException",)"
                            R"("javaClassName":"java.io.FileNotFoundException",)"
                            R"("message":"File /s/am/address does not exist."}})",
                            1);
  AmAddressSource source;
  source.staging_dir = "/s";
  source.namenode_http = namenode.address();
  source.user = "me";
  auto address = ReadCoordinatorAddress(source);
  ASSERT_FALSE(address.ok());
  EXPECT_EQ(address.status().code(), StatusCode::kNotFound);
  EXPECT_NE(address.status().message().find("/s/am/address"), std::string::npos)
      << address.status().message();
}

struct LoopHarness {
  std::unique_ptr<EventLoop> loop;
  std::unique_ptr<LoopTimer> bound;  // fails the test instead of hanging
  LoopHarness() {
    auto l = EventLoop::Create([](int) {});
    EXPECT_TRUE(l.ok()) << l.status().ToString();
    loop = std::move(l).value();
    bound = std::make_unique<LoopTimer>(*loop, [this] { loop->Quit(1); });
    bound->Arm(20'000);
  }
};

TEST(CoordinatorLocatorTest, AnswersOnTheLoopOneLookupAtATime) {
  LoopHarness h;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  int lookups = 0;
  WebHdfsCoordinatorLocator locator(*h.loop, [&lookups, released]() -> Result<std::string> {
    ++lookups;
    released.wait();
    return std::string("node-2:4321");
  });
  const std::thread::id loop_thread = std::this_thread::get_id();
  std::string first;
  std::string second;
  locator.Locate([&](Result<std::string> r) {
    EXPECT_EQ(std::this_thread::get_id(), loop_thread);
    first = r.ok() ? *r : r.status().ToString();
    // Answered: the next lookup runs.
    locator.Locate([&](Result<std::string> again) {
      second = again.ok() ? *again : again.status().ToString();
      h.loop->Quit(0);
    });
  });
  // While the first is in flight, another is refused at once, on the loop.
  locator.Locate([&](Result<std::string> r) {
    EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
    release.set_value();
  });
  EXPECT_EQ(h.loop->Run(), 0);
  EXPECT_EQ(first, "node-2:4321");
  EXPECT_EQ(second, "node-2:4321");
  EXPECT_EQ(lookups, 2);
}

TEST(CoordinatorLocatorTest, AnAnswerAfterTheLocatorIsGoneIsDropped) {
  LoopHarness h;
  bool answered = false;
  {
    WebHdfsCoordinatorLocator locator(*h.loop, [] { return Result<std::string>("node-2:4321"); });
    locator.Locate([&](Result<std::string>) { answered = true; });
  }  // joins the lookup; its answer is queued on the loop
  h.loop->Post([&] { h.loop->Quit(0); });
  EXPECT_EQ(h.loop->Run(), 0);
  EXPECT_FALSE(answered);
}

}  // namespace
}  // namespace tony
