// The addresses a YARN client and AM need, from a cluster's Hadoop XML files (core-site.xml,
// yarn-site.xml, hdfs-site.xml), read with the same XML code as tony.xml (config/, which also
// expands ${var} references as Hadoop does). The one reader of those files: code outside hadoop/
// takes what it needs of them (other nameservices' NameNodes, the scheduler's settings) from here.
//
// High availability, as Hadoop's clients read it:
//  - ResourceManagers: with yarn.resourcemanager.ha.enabled, one entry per id of
//    yarn.resourcemanager.ha.rm-ids, each address from <key>.<id>, else
//    yarn.resourcemanager.hostname.<id> and the key's default port
//    (HAUtil.checkAndSetRMRPCAddress); without HA, one entry from the plain keys
//    (yarn.resourcemanager.hostname + default port).
//  - NameNodes: fs.defaultFS=hdfs://<nameservice> (no port) where the nameservice is in
//    dfs.nameservices: one entry per id of dfs.ha.namenodes.<ns>, from
//    dfs.namenode.{rpc,http}-address.<ns>.<nn>; else the one NameNode of hdfs://host[:8020] with
//    dfs.namenode.http-address (its wildcard host replaced by the RPC host, as DFSUtil does).
//  - HTTPS: dfs.http.policy=HTTPS_ONLY makes WebHDFS "swebhdfs": https to
//    dfs.namenode.https-address[.<ns>.<nn>] (default 0.0.0.0:9871), the same way as the http
//    addresses; HTTP_ONLY and HTTP_AND_HTTPS keep http, as Hadoop's DFSUtil.getHttpClientScheme
//    does. yarn.http.policy=HTTPS_ONLY: the NodeManagers' web addresses are https. The trust store
//    of a Hadoop client is ssl-client.xml's (core-site's hadoop.ssl.client.conf, a file beside
//    the site files), read when present (hadoop/hdfs/tls.h; §6.3).
//  - _HOST: Hadoop replaces it only in Kerberos principals (SecurityUtil.getServerPrincipal), with
//    the host of the server; ServerPrincipal() does that. An address that still says _HOST is an
//    error that names the key.
// Errors name the key and the file it came from. §N: docs/hadoop-ipc.md section N.
// Thread-safety: plain values.
#pragma once

#include <string>
#include <vector>

#include "common/net.h"
#include "common/status.h"
#include "config/configuration.h"
#include "hadoop/hdfs/tls.h"
#include "hadoop/ipc/failover.h"
#include "hadoop/ipc/sasl_layer.h"

namespace tony::hadoop {

struct ResourceManagerAddresses {
  std::string id;                 // the rm-id; empty without HA
  std::string address;            // yarn.resourcemanager.address[.id] (ApplicationClientProtocol)
  std::string scheduler_address;  // yarn.resourcemanager.scheduler.address[.id] (§4.3: the AM
                                  // is told this by us, not by the RM)
  std::string webapp_address;     // yarn.resourcemanager.webapp.address[.id]
  std::string webapp_https_address;  // yarn.resourcemanager.webapp.https.address[.id]
};

struct NameNodeAddresses {
  std::string id;             // the NameNode id in its nameservice; empty without HA
  std::string rpc_address;    // host:port
  std::string http_address;   // host:port of WebHDFS over http (§6)
  std::string https_address;  // host:port of WebHDFS over https (dfs.http.policy=HTTPS_ONLY)
};

struct ClusterConf {
  std::string conf_dir;
  bool rm_ha = false;
  std::vector<ResourceManagerAddresses> resource_managers;  // in rm-ids order; at least one
  ipc::FailoverPolicy rm_failover;                          // yarn.client.failover-*
  bool rm_failover_attempts_set = false;  // yarn.client.failover-max-attempts is in yarn-site
  ipc::RetryPolicy rm_connect;            // connection attempts to the one RM without HA
  // yarn.resourcemanager.connect.retry-interval.ms (30000).
  std::chrono::milliseconds rm_retry_interval{30000};
  std::string default_fs;  // fs.defaultFS, e.g. hdfs://nn:8020
  // The authority of hdfs:// LocalResource URLs: the nameservice (port -1, "none") with HA,
  // else the NameNode's RPC host and port.
  std::string fs_host;
  int fs_port = -1;
  std::string nameservice;                   // empty without NameNode HA
  std::vector<NameNodeAddresses> namenodes;  // in dfs.ha.namenodes order; at least one for hdfs://
  // Security (docs/hadoop-ipc.md §2.3): hadoop.security.authentication=kerberos, the
  // levels of hadoop.rpc.protection, and yarn.resourcemanager.principal (may say _HOST).
  bool kerberos = false;
  std::vector<ipc::Qop> rpc_protection{ipc::Qop::kAuthentication};
  std::string rm_principal;
  std::string namenode_principal;   // dfs.namenode.kerberos.principal (may say _HOST); may be empty
  bool webhdfs_https = false;       // dfs.http.policy is HTTPS_ONLY
  bool yarn_https = false;          // yarn.http.policy is HTTPS_ONLY
  hdfs::TrustStoreFile ssl_client;  // ssl-client.xml's trust store; location empty: none
  Configuration raw;

  // The RM's web proxy: yarn.web-proxy.address (a standalone WebAppProxyServer), empty when the
  // ResourceManagers run it in their web apps; yarn.http.policy=HTTPS_ONLY makes the web
  // addresses the .https ones.
  std::string web_proxy_address;
  bool web_https = false;

  std::vector<std::string> RmAddresses() const;
  // Where the RM's web proxy runs, host:port, as AMs' IP filters take it
  // (WebAppUtils.getProxyHostsAndPortsForAmFilter): yarn.web-proxy.address, else every
  // ResourceManager's web app address (webapp.https.address with HTTPS_ONLY), in rm-ids order.
  std::vector<std::string> WebProxyAddresses() const;
  std::vector<std::string> SchedulerAddresses() const;
  std::vector<std::string> NameNodeHttpAddresses() const;
  // Where WebHDFS goes: the https addresses with webhdfs_https, else the http ones.
  std::vector<std::string> NameNodeWebAddresses() const;
  // "https" with webhdfs_https, else "http".
  std::string WebHdfsScheme() const { return webhdfs_https ? "https" : "http"; }

  // The NameNode ids of nameservice `ns` in this client's hdfs-site.xml (dfs.ha.namenodes.<ns>),
  // for fs.defaultFS's nameservice and any other; empty when it lists none.
  std::vector<std::string> NameNodeIds(const std::string& ns) const;
  // dfs.namenode.rpc-address.<ns>.<id>; an error names the key and its file.
  Result<HostPort> NameNodeRpcAddress(const std::string& ns, const std::string& id) const;
};

// What the client's fit check needs to know of the scheduler (engine/fit_check.h), from
// yarn-site.xml and the conf dir's capacity-scheduler.xml when it has one.
struct SchedulerConf {
  // Whether the scheduler counts vcores when it places a container: CapacityScheduler's default
  // calculator places by memory alone, its DominantResourceCalculator and the FairScheduler
  // count them.
  bool counts_vcores = false;
  int64_t min_allocation_mb = 0;  // yarn.scheduler.minimum-allocation-mb; 0: unset or not a number
  // Why capacity-scheduler.xml could not be read; its keys then count as unset.
  Status capacity_scheduler_error;
};
SchedulerConf ReadSchedulerConf(const ClusterConf& cluster);

// $HADOOP_CONF_DIR, else $YARN_CONF_DIR; empty when neither is set.
std::string HadoopConfDir();

// Site files named one by one (TonY's tony.application.yarn-conf-path / hdfs-conf-path), read
// instead of conf_dir's file of that name; empty: conf_dir's.
struct SiteFiles {
  std::string yarn_site;
  std::string hdfs_site;
};

// Reads the site files of `conf_dir` (missing ones are skipped; a named one must exist) and
// applies Hadoop's defaults.
Result<ClusterConf> LoadClusterConf(const std::string& conf_dir, const SiteFiles& files = {});
// The same from a Configuration already read (unit tests); `conf_dir` only names it in errors.
Result<ClusterConf> ParseClusterConf(Configuration raw, const std::string& conf_dir);

// "host:port" list <-> servers for ipc::FailoverRpcClient; `ids` name them in logs (may be
// empty). Errors name `key` and the bad entry.
Result<std::vector<ipc::ServerAddress>> ToServers(const std::vector<std::string>& addresses,
                                                  const std::vector<std::string>& ids,
                                                  const std::string& key);

// A Kerberos principal "service/_HOST@REALM" with _HOST replaced by `host` in lower case
// (SecurityUtil.replacePattern); other principals unchanged.
std::string ServerPrincipal(const std::string& principal, const std::string& host);

// The failover policy as one env value for the AM ("max_failovers,base_ms,max_ms,retries"),
// and back; a malformed value gives the defaults.
std::string FormatFailoverPolicy(const ipc::FailoverPolicy& policy);
ipc::FailoverPolicy ParseFailoverPolicy(const std::string& value);

}  // namespace tony::hadoop
