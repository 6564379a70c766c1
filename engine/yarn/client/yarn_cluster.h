// The cluster a YARN command talks to (`tony submit`, and `tony status`/`logs`/`kill` of an
// application id): its Hadoop configuration, the user and the Kerberos login, and the
// ResourceManager client built from them.
// Thread-safety: call from the command's thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/strings.h"
#include "config/configuration.h"
#include "config/key_names.h"
#include "engine/yarn/client/yarn_security.h"
#include "hadoop/yarn/clients.h"
#include "hadoop/yarn/cluster_conf.h"
#include "rpc/tony.pb.h"

namespace tony::client {

struct Cluster {
  hadoop::ClusterConf conf;
  std::string user;
  ClientSecurity
      security;  // Kerberos login on a secure cluster (engine/yarn/client/yarn_security.h)
  hadoop::SiteFiles site_files;  // the job's tony.application.{yarn,hdfs}-conf-path, if set
  // https or not, the trust (tony.application.ssl.ca-file, else ssl-client.xml's, else the
  // system's; loaded only when dfs.http.policy or yarn.http.policy is HTTPS_ONLY), and the
  // DataNode hosts WebHDFS may be redirected to (tony.application.webhdfs.datanode-hosts).
  hadoop::hdfs::WebHdfsOptions webhdfs;
  std::string ca_file;  // tony.application.ssl.ca-file as given, for the job's record
  // What WebHDFS and the ApplicationClient are given: every NameNode / ResourceManager of an HA
  // pair, in configured order (hadoop/yarn/cluster_conf.h); the https addresses when
  // dfs.http.policy is HTTPS_ONLY.
  std::string NameNodes() const { return Join(conf.NameNodeWebAddresses(), ","); }
};

// The ResourceManagers for the ApplicationClient: their rm-ids name them in failover logs.
Result<std::vector<hadoop::ipc::ServerAddress>> RmServers(const hadoop::ClusterConf& c);

// TonY's keys naming the client's Hadoop site files one by one (docs/keys.md).
inline constexpr const auto& kYarnConfPathKey = keys::kApplicationYarnConfPath;
inline constexpr const auto& kHdfsConfPathKey = keys::kApplicationHdfsConfPath;
// tony's keys for https to the cluster (docs/keys.md): the CAs as a PEM bundle, and the hosts a
// NameNode may redirect WebHDFS to.
inline constexpr const auto& kSslCaFileKey = keys::kApplicationSslCaFile;
inline constexpr const auto& kDataNodeHostsKey = keys::kApplicationWebhdfsDatanodeHosts;
// In a YARN job's local dir: the conf dir it was submitted with, and the site files and https
// keys it named (key=value lines).
inline constexpr char kConfDirRecord[] = "hadoop-conf-dir";
inline constexpr char kSiteFilesRecord[] = "hadoop-site-files";

// The cluster `dir` (a Hadoop conf dir) describes, with the site files `job_conf` names
// (kYarnConfPathKey, kHdfsConfPathKey: read instead of dir's; with no dir, core-site.xml is read
// beside them). `job_conf` names a keytab login (tony.kerberos.*) too; without it a secure
// cluster needs kinit.
Result<Cluster> LoadCluster(const std::string& dir,
                            const Configuration& job_conf = Configuration());

// TonY's tony.application.num-client-rm-connect-retries (`retries`, default 3): how often the
// client tries again to reach a ResourceManager it cannot connect to. Without HA: 1 + retries
// connection attempts, pausing 1 s, 2 s, 4 s ... (at most
// yarn.resourcemanager.connect.retry-interval.ms) between them; with HA, unless yarn-site sets
// yarn.client.failover-max-attempts: retries x retry-interval / failover-sleep-base failovers
// (TonY sets yarn.resourcemanager.connect.max-wait.ms to retries x retry-interval). Only the
// client: the coordinator keeps yarn-site's policy, as TonY's AM does.
void ApplyClientRmRetries(int retries, hadoop::ClusterConf& conf);

// The ResourceManager client of `cluster` (failover between an HA pair, Kerberos when secure).
Result<std::unique_ptr<hadoop::yarn::ApplicationClient>> ConnectRm(const Cluster& cluster);

// The Hadoop config dir for an application id: $HADOOP_CONF_DIR (or $YARN_CONF_DIR), else the
// one the job was submitted with (recorded in its local job dir); "" when neither.
std::string HadoopConfDirOf(const std::string& application_id);
// Writes the records HadoopConfDirOf and ClusterKeysOf read into a job's local dir.
Status RecordClusterConf(const Cluster& cluster, const std::string& job_dir);
// The cluster keys an application id's job was submitted with (from its local record), to pass
// to LoadCluster: the site-file keys when no HADOOP_CONF_DIR is set, and the https keys
// (kSslCaFileKey, kDataNodeHostsKey) always.
Configuration ClusterKeysOf(const std::string& application_id);

// The job's end as the RM reports it, for an application that ended without the coordinator
// saying so (killed, crashed, or the client was not there to hear it).
void ApplyFinalReport(const hadoop::yarn::pb::ApplicationReportProto& report,
                      const std::string& app_id, rpc::JobStatus* status);

}  // namespace tony::client
