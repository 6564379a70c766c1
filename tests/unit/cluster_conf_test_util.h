// A client's Hadoop configuration for unit tests: the given properties as one yarn-site.xml of
// /etc/hadoop, parsed as the client parses its HADOOP_CONF_DIR (hadoop/yarn/cluster_conf.h).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "config/configuration.h"
#include "hadoop/yarn/cluster_conf.h"

namespace tony {

inline hadoop::ClusterConf ParseSiteProperties(
    const std::vector<std::pair<std::string, std::string>>& props) {
  std::string xml = "<configuration>";
  for (const auto& [k, v] : props) {
    xml += "<property><name>" + k + "</name><value>" + v + "</value></property>";
  }
  xml += "</configuration>";
  Configuration c;
  EXPECT_TRUE(c.AddXml(xml, "/etc/hadoop/yarn-site.xml").ok());
  auto cc = hadoop::ParseClusterConf(std::move(c), "/etc/hadoop");
  EXPECT_TRUE(cc.ok()) << cc.status().ToString();
  return cc.ok() ? *cc : hadoop::ClusterConf{};
}

}  // namespace tony
