// How many AM attempts a YARN job asks for, whether its containers outlive an attempt, and the
// executors' reconnect window (engine/yarn/client/am_launch.h; docs/am-restart.md §2, §6). The
// cluster end, kill -9 of the AM, is tests/yarn/test_yarn_faults.py.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "engine/yarn/client/am_launch.h"
#include "tests/unit/cluster_conf_test_util.h"

namespace tony::client {
namespace {

JobSpec Workers(int session_retries) {
  JobSpec spec;
  RoleSpec worker;
  worker.name = "worker";
  worker.instances = 2;
  spec.roles.push_back(worker);
  spec.session_retries = session_retries;
  spec.sources["tony.am.retry-count"] = "/job/tony.xml";
  return spec;
}

TEST(AmAttemptsTest, RetriesKeepTheTasksAndOpenTheReconnectWindow) {
  EXPECT_FALSE(KeepsTasksAcrossAmAttempts(Workers(0)));
  EXPECT_EQ(WithAmReconnectWindow(Workers(0)).am_reconnect_window_ms, 0);
  EXPECT_TRUE(KeepsTasksAcrossAmAttempts(Workers(2)));
  EXPECT_EQ(WithAmReconnectWindow(Workers(2)).am_reconnect_window_ms, 120'000);
}

TEST(AmAttemptsTest, ASingleNodeJobHasOneAttemptAndNoWindow) {
  JobSpec spec = Workers(2);
  spec.roles[0].name = "am";
  spec.roles[0].instances = 1;
  spec.roles[0].preprocess = true;
  ASSERT_TRUE(spec.SingleNode());
  EXPECT_FALSE(KeepsTasksAcrossAmAttempts(spec));
  EXPECT_EQ(WithAmReconnectWindow(spec).am_reconnect_window_ms, 0);
}

TEST(AmAttemptsTest, TheClientSaysWhenTheResourceManagerCapsTheAttempts) {
  const std::vector<std::pair<std::string, std::string>> base = {
      {"yarn.resourcemanager.address", "rm:8032"}, {"fs.defaultFS", "hdfs://nn:8020"}};
  hadoop::ClusterConf defaults = ParseSiteProperties(base);
  EXPECT_EQ(AmAttemptsCapNote(Workers(0), defaults), "");
  EXPECT_EQ(AmAttemptsCapNote(Workers(1), defaults), "");  // 2 attempts: Hadoop's default cap
  EXPECT_EQ(
      AmAttemptsCapNote(Workers(3), defaults),
      "tony: note: retry count 3 (tony.am.retry-count, from /job/tony.xml) asks YARN for 4 AM "
      "attempts, but yarn.resourcemanager.am.max-attempts is 2 (Hadoop's default: this client's "
      "Hadoop configuration in /etc/hadoop does not set it), and the ResourceManager gives no "
      "application more: a dead AM is replaced at most 1 time(s) (session retries of a "
      "failed job are not capped)");

  auto one = base;
  one.emplace_back("yarn.resourcemanager.am.max-attempts", "1");
  EXPECT_EQ(
      AmAttemptsCapNote(Workers(1), ParseSiteProperties(one)),
      "tony: note: retry count 1 (tony.am.retry-count, from /job/tony.xml) asks YARN for 2 AM "
      "attempts, but yarn.resourcemanager.am.max-attempts is 1 (in this client's Hadoop "
      "configuration in /etc/hadoop), and the ResourceManager gives no application more: a "
      "dead AM ends the job (session retries of a failed job are not capped)");

  auto five = base;
  five.emplace_back("yarn.resourcemanager.am.max-attempts", "5");
  EXPECT_EQ(AmAttemptsCapNote(Workers(3), ParseSiteProperties(five)), "");
}

}  // namespace
}  // namespace tony::client
