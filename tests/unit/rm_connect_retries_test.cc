// ApplyClientRmRetries (engine/yarn/client/yarn_cluster.h): TonY's
// tony.application.num-client-rm-connect-retries turned into the client's connection policy for one
// ResourceManager and its failover budget for an HA pair. The user-visible end (an unreachable RM
// named after 1 + N attempts) is
// tests/local/test_bad_input.py::test_an_unreachable_resource_manager_is_named_after_the_retries_asked_for.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "engine/yarn/client/yarn_cluster.h"
#include "tests/unit/cluster_conf_test_util.h"

namespace tony::client {
namespace {

using namespace std::chrono_literals;

TEST(RmConnectRetriesTest, OneRmIsTriedOnePlusRetriesTimesWithPausesUpToTheRetryInterval) {
  hadoop::ClusterConf c = ParseSiteProperties(
      {{"yarn.resourcemanager.address", "rm:8032"}, {"fs.defaultFS", "hdfs://nn:8020"}});
  ApplyClientRmRetries(3, c);  // TonY's default
  EXPECT_EQ(c.rm_connect.max_connect_attempts, 4);
  EXPECT_EQ(c.rm_connect.initial_backoff, 1s);
  EXPECT_EQ(c.rm_connect.max_backoff, 30s);  // yarn-default's connect.retry-interval.ms

  hadoop::ClusterConf fast =
      ParseSiteProperties({{"yarn.resourcemanager.address", "rm:8032"},
                           {"yarn.resourcemanager.connect.retry-interval.ms", "400"},
                           {"fs.defaultFS", "hdfs://nn:8020"}});
  ApplyClientRmRetries(0, fast);
  EXPECT_EQ(fast.rm_connect.max_connect_attempts, 1);
  EXPECT_EQ(fast.rm_connect.initial_backoff, 400ms);
  EXPECT_EQ(fast.rm_connect.max_backoff, 400ms);
}

TEST(RmConnectRetriesTest,
     HaFailoversAreRetriesTimesTheIntervalOverTheSleepBaseUnlessYarnSiteSaysSo) {
  const std::vector<std::pair<std::string, std::string>> ha = {
      {"yarn.resourcemanager.ha.enabled", "true"},
      {"yarn.resourcemanager.ha.rm-ids", "rm1,rm2"},
      {"yarn.resourcemanager.hostname.rm1", "m1"},
      {"yarn.resourcemanager.hostname.rm2", "m2"},
      {"yarn.client.failover-sleep-base-ms", "10000"},
      {"fs.defaultFS", "hdfs://nn:8020"}};
  hadoop::ClusterConf c = ParseSiteProperties(ha);
  EXPECT_EQ(c.rm_failover.max_failovers, 90);  // yarn-default: 900 s / 10 s
  ApplyClientRmRetries(3, c);
  EXPECT_EQ(c.rm_failover.max_failovers, 9);  // TonY: max-wait = 3 x 30 s, over 10 s pauses

  auto explicit_attempts = ha;
  explicit_attempts.emplace_back("yarn.client.failover-max-attempts", "7");
  hadoop::ClusterConf e = ParseSiteProperties(explicit_attempts);
  ApplyClientRmRetries(3, e);
  EXPECT_EQ(e.rm_failover.max_failovers, 7);
}

}  // namespace
}  // namespace tony::client
