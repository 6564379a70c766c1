// The addresses a YARN client and AM need, from a cluster's Hadoop XML files (core-site.xml,
// yarn-site.xml, hdfs-site.xml), read with the same XML code as tony.xml (config/).
// Thread-safety: plain values.
#pragma once

#include <string>

#include "common/status.h"
#include "config/configuration.h"

namespace tony::hadoop {

struct ClusterConf {
  std::string conf_dir;
  std::string rm_address;             // yarn.resourcemanager.address (ApplicationClientProtocol)
  std::string scheduler_address;      // yarn.resourcemanager.scheduler.address (§4.3: the AM
                                      // is told this by us, not by the RM)
  std::string rm_webapp_address;      // yarn.resourcemanager.webapp.address
  std::string default_fs;             // fs.defaultFS, e.g. hdfs://nn:8020
  std::string namenode_http_address;  // dfs.namenode.http-address (WebHDFS, §6)
  Configuration raw;
};

// $HADOOP_CONF_DIR, else $YARN_CONF_DIR; empty when neither is set.
std::string HadoopConfDir();

// Reads the site files of `conf_dir` (missing ones are skipped) and applies Hadoop's defaults:
// a missing address is <yarn.resourcemanager.hostname>:<default port>.
Result<ClusterConf> LoadClusterConf(const std::string& conf_dir);

}  // namespace tony::hadoop
