// What callers outside hadoop/ read of a cluster's site files through ClusterConf
// (hadoop/yarn/cluster_conf.h): any nameservice's NameNodes, the NameNode principal, and the
// scheduler's settings for the client's fit check.
#include "hadoop/yarn/cluster_conf.h"

#include <gtest/gtest.h>

#include "common/files.h"

namespace tony::hadoop {
namespace {

std::string SiteXml(const std::vector<std::pair<std::string, std::string>>& props) {
  std::string xml = "<configuration>";
  for (const auto& [k, v] : props) {
    xml += "<property><name>" + k + "</name><value>" + v + "</value></property>";
  }
  return xml + "</configuration>";
}

// A conf dir of its own with the given files.
std::string ConfDir(const std::vector<std::pair<std::string, std::string>>& files) {
  auto dir = MakeTempDir(::testing::TempDir(), "cluster_conf_test.");
  EXPECT_TRUE(dir.ok()) << dir.status().ToString();
  for (const auto& [name, text] : files) {
    EXPECT_TRUE(WriteFileAtomic(JoinPath(*dir, name), text).ok());
  }
  return *dir;
}

TEST(ClusterConfReadTest, AnyNameservicesNameNodesAndErrorsThatNameTheFile) {
  std::string dir =
      ConfDir({{"hdfs-site.xml", SiteXml({{"dfs.ha.namenodes.other", " nn1 , nn2 "},
                                          {"dfs.namenode.rpc-address.other.nn1", "[::1]:8020"},
                                          {"dfs.namenode.rpc-address.other.nn2", "h2"},
                                          {"dfs.namenode.kerberos.principal", "nn/_HOST@R"}})}});
  auto c = LoadClusterConf(dir);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->NameNodeIds("other"), (std::vector<std::string>{"nn1", "nn2"}));
  EXPECT_TRUE(c->NameNodeIds("mycluster").empty());
  EXPECT_EQ(c->namenode_principal, "nn/_HOST@R");

  auto nn1 = c->NameNodeRpcAddress("other", "nn1");
  ASSERT_TRUE(nn1.ok()) << nn1.status().ToString();
  EXPECT_EQ(nn1->ToString(), "[::1]:8020");
  auto nn2 = c->NameNodeRpcAddress("other", "nn2");
  ASSERT_FALSE(nn2.ok());
  EXPECT_EQ(nn2.status().message(), "dfs.namenode.rpc-address.other.nn2 in " + dir +
                                        "/hdfs-site.xml: expected host:port, got \"h2\": there "
                                        "is no port");
  auto unset = c->NameNodeRpcAddress("other", "nn3");
  ASSERT_FALSE(unset.ok());
  EXPECT_EQ(unset.status().message(), "dfs.namenode.rpc-address.other.nn3 in " + dir +
                                          "/hdfs-site.xml: expected host:port, got \"\": it is "
                                          "empty");
}

TEST(ClusterConfReadTest, SchedulerSettingsFromYarnSiteAndCapacitySchedulerXml) {
  auto memory_only = LoadClusterConf(
      ConfDir({{"yarn-site.xml", SiteXml({{"yarn.scheduler.minimum-allocation-mb", "512"}})}}));
  ASSERT_TRUE(memory_only.ok()) << memory_only.status().ToString();
  SchedulerConf s = ReadSchedulerConf(*memory_only);
  EXPECT_FALSE(s.counts_vcores);
  EXPECT_EQ(s.min_allocation_mb, 512);
  EXPECT_TRUE(s.capacity_scheduler_error.ok());

  auto dominant = LoadClusterConf(
      ConfDir({{"yarn-site.xml", SiteXml({})},
               {"capacity-scheduler.xml",
                SiteXml({{"yarn.scheduler.capacity.resource-calculator",
                          "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"}})}}));
  ASSERT_TRUE(dominant.ok()) << dominant.status().ToString();
  EXPECT_TRUE(ReadSchedulerConf(*dominant).counts_vcores);
  EXPECT_EQ(ReadSchedulerConf(*dominant).min_allocation_mb, 0);

  // A capacity-scheduler.xml that does not parse is reported; yarn-site.xml still counts.
  auto broken = LoadClusterConf(ConfDir(
      {{"yarn-site.xml", SiteXml({{"yarn.resourcemanager.scheduler.class",
                                   "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair."
                                   "FairScheduler"}})},
       {"capacity-scheduler.xml", "<configuration><property>"}}));
  ASSERT_TRUE(broken.ok()) << broken.status().ToString();
  SchedulerConf b = ReadSchedulerConf(*broken);
  EXPECT_FALSE(b.capacity_scheduler_error.ok());
  EXPECT_NE(b.capacity_scheduler_error.message().find("capacity-scheduler.xml"), std::string::npos)
      << b.capacity_scheduler_error.message();
  EXPECT_TRUE(b.counts_vcores);
}

}  // namespace
}  // namespace tony::hadoop
