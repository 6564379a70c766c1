#include "hadoop/yarn/cluster_conf.h"

#include <cstdlib>

#include "common/files.h"

namespace tony::hadoop {

std::string HadoopConfDir() {
  for (const char* var : {"HADOOP_CONF_DIR", "YARN_CONF_DIR"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && *v != '\0') return v;
  }
  return "";
}

Result<ClusterConf> LoadClusterConf(const std::string& conf_dir) {
  ClusterConf c;
  c.conf_dir = conf_dir;
  bool any = false;
  for (const char* file : {"core-site.xml", "hdfs-site.xml", "yarn-site.xml"}) {
    std::string path = JoinPath(conf_dir, file);
    if (!PathExists(path)) continue;
    TONY_RETURN_IF_ERROR(c.raw.AddFile(path));
    any = true;
  }
  if (!any) {
    return NotFound("no core-site.xml, hdfs-site.xml or yarn-site.xml in " + conf_dir);
  }
  std::string rm_host = c.raw.GetOr("yarn.resourcemanager.hostname", "0.0.0.0");
  // yarn-default.xml's defaults.
  c.rm_address = c.raw.GetOr("yarn.resourcemanager.address", rm_host + ":8032");
  c.scheduler_address = c.raw.GetOr("yarn.resourcemanager.scheduler.address", rm_host + ":8030");
  c.rm_webapp_address = c.raw.GetOr("yarn.resourcemanager.webapp.address", rm_host + ":8088");
  c.default_fs = c.raw.GetOr("fs.defaultFS", "file:///");
  c.namenode_http_address = c.raw.GetOr("dfs.namenode.http-address", "0.0.0.0:9870");
  return c;
}

}  // namespace tony::hadoop
