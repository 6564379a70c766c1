// `tony submit` on a Kerberized cluster (hadoop.security.authentication=kerberos; issue 9):
// the Kerberos login, made before anything is staged, the ResourceManager client and WebHDFS
// that use it, and the delegation tokens that go into the AM container's launch context.
//
// Login: tony.kerberos.principal + tony.kerberos.keytab when set (the keytab's tickets stay in
// this process: its MEMORY cache becomes KRB5CCNAME for libcurl's SPNEGO), else the ticket cache.
// Tokens: an RM delegation token and an HDFS delegation token (fetched over WebHDFS, stored as
// HDFS_DELEGATION_TOKEN for the NameNode's RPC address, so the NodeManagers can localize from
// HDFS), both renewable by the ResourceManager's principal.
// On an open cluster every function here is the SIMPLE behaviour of before.
// Thread-safety: call from the submitting thread.
#pragma once

#include <memory>
#include <string>

#include "common/status.h"
#include "config/configuration.h"
#include "hadoop/hdfs/webhdfs.h"
#include "hadoop/security/credentials.h"
#include "hadoop/security/kerberos.h"
#include "hadoop/yarn/clients.h"
#include "hadoop/yarn/cluster_conf.h"

namespace tony::client {

struct ClientSecurity {
  std::shared_ptr<hadoop::security::KerberosCredentials> kerberos;  // null on an open cluster
  std::string user;  // the short user name: "alice" of alice@REALM, else the SIMPLE user
};

// kUnauthenticated, naming kinit or the keytab, when the login fails.
Result<ClientSecurity> LoginForCluster(const hadoop::ClusterConf& cluster,
                                       const Configuration& job_conf,
                                       const std::string& simple_user);

std::unique_ptr<hadoop::yarn::ApplicationClient> MakeRmClient(
    const hadoop::ClusterConf& cluster, const ClientSecurity& security,
    std::vector<hadoop::ipc::ServerAddress> servers);

// WebHDFS for `user`, over SPNEGO on a Kerberized cluster.
std::unique_ptr<hadoop::hdfs::WebHdfs> MakeWebHdfs(const hadoop::ClusterConf& cluster,
                                                   const ClientSecurity& security);

// The tokens for the AM's launch context; empty on an open cluster.
Result<hadoop::security::Credentials> FetchDelegationTokens(const hadoop::ClusterConf& cluster,
                                                            const ClientSecurity& security,
                                                            hadoop::yarn::ApplicationClient& rm,
                                                            hadoop::hdfs::WebHdfs& fs);

// "ip:port" as Hadoop names a token's service (SecurityUtil.buildTokenService).
std::string TokenService(const std::string& host, int port);

// The principal of this cluster's first ResourceManager (Hadoop's YarnClientUtils.getRmPrincipal):
// every delegation token's renewer, so that the RM renews it while the job runs.
std::string RmPrincipal(const hadoop::ClusterConf& cluster);

// The service of the staging (default) file system's HDFS token: "ip:port" of its NameNode, or
// "ha-hdfs:<nameservice>".
std::string DefaultFsTokenService(const hadoop::ClusterConf& cluster);

}  // namespace tony::client
