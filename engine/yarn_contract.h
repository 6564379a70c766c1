// What the tony client hands the YARN ApplicationMaster: the staged files every container gets
// (tony-resources.txt), the environment of the AM's launch context, and where the tony bundle
// lands in a container. Both sides include this file, and nothing else of each other: the client
// does not link the coordinator or the YARN engine (engine/yarn/), the AM does not link the client.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "config/key_names.h"
#include "hadoop/yarn/records.h"
#include "rpc/am_address.h"

namespace tony::engine {

// A staged file every executor container gets (name in the container's working directory).
// An archive (the tony bundle) is unpacked by the NodeManager into a directory of that name.
struct YarnResource {
  std::string name;
  hadoop::yarn::RemoteFile file;
  bool archive = false;
  // The roles whose containers get it (a tony.<role>.resources entry); empty: every container.
  std::vector<std::string> roles;
  bool ForRole(const std::string& role) const;
};

// tony-resources.txt, written by the client and localized into the AM: one resource per line,
// tab-separated: name scheme host port path size modification_time [FILE|ARCHIVE [roles]],
// roles comma-separated (absent: every container).
std::string FormatYarnResources(const std::vector<YarnResource>& resources);
Result<std::vector<YarnResource>> ParseYarnResources(const std::string& text);
inline constexpr char kResourcesFile[] = "tony-resources.txt";

// Environment variables the client puts into the AM's launch context.
// host:port of the RM's scheduler; with RM HA every one of them, comma-separated, in rm-ids order.
inline constexpr char kSchedulerAddressEnv[] = "TONY_YARN_SCHEDULER_ADDRESS";
// The client's yarn.client.failover-* policy (hadoop::FormatFailoverPolicy).
inline constexpr char kRmFailoverEnv[] = "TONY_YARN_RM_FAILOVER";
// Where the RM's web proxy runs (hadoop::ClusterConf::WebProxyAddresses), host:port,
// comma-separated: the only peers the AM's status endpoint answers with the job's details.
inline constexpr char kWebProxyEnv[] = "TONY_YARN_WEB_PROXY";
// The job's HDFS staging dir, and the NameNode HTTP address and user to remove it with (WebHDFS).
// The executors read the AM's address file there (rpc/am_address.h, which defines these names).
inline constexpr const auto& kStagingDirEnv = rpc::kStagingDirEnv;
inline constexpr const auto& kStagingNameNodeEnv = rpc::kStagingNameNodeEnv;
inline constexpr const auto& kStagingUserEnv = rpc::kStagingUserEnv;
// The client's fs.defaultFS (hdfs://authority): tony.history.* paths without a scheme, or on that
// authority, are written to this HDFS through the staging NameNodes (coordinator/yarn_am.cc).
inline constexpr char kDefaultFsEnv[] = "TONY_YARN_DEFAULT_FS";
// WebHDFS over https (dfs.http.policy=HTTPS_ONLY: "true", else unset), the DataNode hosts it may
// be redirected to (tony.application.webhdfs.datanode-hosts, comma-separated; unset: any), and
// the CAs it trusts: the PEM text, as the secret key hadoop::hdfs::kTrustAlias of the AM's
// credentials (a file's worth of certificates does not fit the environment; it is no secret).
inline constexpr const auto& kStagingWebHdfsHttpsEnv = rpc::kStagingWebHdfsHttpsEnv;
inline constexpr const auto& kStagingDataNodeHostsEnv = rpc::kStagingDataNodeHostsEnv;
// The scheme of the NodeManagers' web addresses, for the tasks' log URLs: "https" when
// yarn.http.policy is HTTPS_ONLY, else unset (http).
inline constexpr char kNodeWebSchemeEnv[] = "TONY_YARN_NODE_WEB_SCHEME";
// For the tasks' own HDFS access (README, "HDFS data for tasks"): every TONY_ variable of the
// AM's environment travels on to the executors and their user processes. The default file
// system's NameNode HTTP address(es), host:port, comma-separated in dfs.ha.namenodes order with
// HA; the WebHDFS base URL of the first; the service of its delegation token, by which the
// executor finds that token in $HADOOP_TOKEN_FILE_LOCATION (Kerberos only).
inline constexpr char kNameNodeHttpEnv[] = "TONY_NAMENODE_HTTP_ADDRESS";
inline constexpr char kWebHdfsUrlEnv[] = "TONY_WEBHDFS_URL";
inline constexpr char kHdfsTokenServiceEnv[] = "TONY_HDFS_TOKEN_SERVICE";
// A keytab submit (--principal/--keytab or tony.kerberos.*, without a proxy user): the keytab's
// bytes and the principal as secret keys of the AM's credentials, as the job secret travels
// (rpc/job_secret.h), so that the AM can get new HDFS delegation tokens before the old ones reach
// their maximum lifetime (engine/yarn/token_renewal.h). The AM takes them out of its credentials
// file at start; no executor gets them.
inline constexpr const auto& kKeytabAlias = keys::kKerberosKeytab;
inline constexpr const auto& kPrincipalAlias = keys::kKerberosPrincipal;

// How long an executor rides out a dead AM while the RM starts the next attempt
// (JobSpec::am_reconnect_window_ms, docs/am-restart.md §6): the RM noticing the AM container's
// exit, scheduling and localizing the new AM, and its recovery. Set by the client when the job
// has more than one AM attempt (engine/yarn/client/am_launch.h).
inline constexpr int64_t kAmReconnectWindowMs = 120'000;

// Inside a container: the name of the tony bundle's ARCHIVE resource (client/bundle.h builds it)
// and the executable in it, which the AM and every executor run.
inline constexpr char kBundleResource[] = "tony-bundle";
inline constexpr char kBundleBinary[] = "./tony-bundle/bin/tony";

}  // namespace tony::engine
