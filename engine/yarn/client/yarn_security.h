// `tony submit` on a Kerberized cluster (hadoop.security.authentication=kerberos; issue 9):
// the Kerberos login, made before anything is staged, the ResourceManager client and WebHDFS
// that use it, and the delegation tokens that go into the AM container's launch context.
//
// Login, first that applies:
//  1. tony.kerberos.principal + tony.kerberos.keytab (the keytab's tickets stay in this process:
//     its MEMORY cache becomes KRB5CCNAME for libcurl's SPNEGO); a proxy user
//     (tony.kerberos.proxy-user) needs a Kerberos login too, from the ticket cache without a
//     keytab;
//  2. the delegation tokens of $HADOOP_TOKEN_FILE_LOCATION when it holds an RM delegation token
//     for this cluster's RM and an HDFS one for its default file system
//     (engine/yarn/client/token_file.h): the RM over TOKEN, WebHDFS with `delegation=`, nothing
//     fetched; a ticket in the cache is not used, as Hadoop's RPC client prefers a token it has for
//     the server;
//  3. the ticket cache; a token file that could not serve is then a warning naming why.
// Tokens for the AM's launch context: the token file's (any login;
// engine/yarn/client/token_file.h's ForwardedTokens), and with a Kerberos login a fresh RM
// delegation token and HDFS delegation token (fetched over WebHDFS, stored as HDFS_DELEGATION_TOKEN
// for the NameNode's RPC address, so the NodeManagers can localize from HDFS), both renewable by
// the ResourceManager's principal, replacing the file's for the same services. On an open cluster
// every function here is the SIMPLE behaviour of before. Thread-safety: call from the submitting
// thread.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/status.h"
#include "config/configuration.h"
#include "engine/yarn/client/token_file.h"
#include "hadoop/hdfs/webhdfs.h"
#include "hadoop/security/credentials.h"
#include "hadoop/security/kerberos.h"
#include "hadoop/yarn/clients.h"
#include "hadoop/yarn/cluster_conf.h"

namespace tony::client {

struct ClientSecurity {
  std::shared_ptr<hadoop::security::KerberosCredentials> kerberos;  // null on an open cluster
  // Who the job runs as: the proxy user, else the short name ("alice" of alice@REALM), else the
  // SIMPLE user.
  std::string user;
  // tony.kerberos.proxy-user (--proxy_user): every RM and WebHDFS call acts as it, the
  // Kerberos login being the real user; empty without one.
  std::string proxy_user;
  // Login 2: the RM and HDFS delegation tokens every call authenticates with.
  std::optional<TokenLogin> tokens;
  // The token file's tokens that go on to the job, and the file ("$HADOOP_TOKEN_FILE_LOCATION
  // (path)") for messages; empty without one.
  hadoop::security::Credentials file_tokens;
  std::string token_file;

  bool secure() const { return kerberos != nullptr || tokens.has_value(); }
};

// kUnauthenticated, naming kinit or the keytab (and the token the token file lacks), when the
// login fails; kInvalidArgument naming $HADOOP_TOKEN_FILE_LOCATION and its path when that file
// cannot be read. A proxy user on an open
// cluster is kInvalidArgument (its user is whoever the client says).
Result<ClientSecurity> LoginForCluster(const hadoop::ClusterConf& cluster,
                                       const Configuration& job_conf,
                                       const std::string& simple_user);

std::unique_ptr<hadoop::yarn::ApplicationClient> MakeRmClient(
    const hadoop::ClusterConf& cluster, const ClientSecurity& security,
    std::vector<hadoop::ipc::ServerAddress> servers);

// The error of a call the cluster refused because the login may not act as the proxy user,
// told in the user's terms (which settings would allow it); any other error as it is.
Status ExplainProxyRefusal(const ClientSecurity& security, Status s);

// The error of an RM that refused the token file's RM delegation token (expired, cancelled, or
// another RM's), told in the user's terms (the file, the token, what to do); nullopt for any other
// error.
std::optional<Status> ExplainTokenRefusal(const ClientSecurity& security, const Status& s);

// WebHDFS for `user`, over SPNEGO on a Kerberized cluster; https as `options` say.
std::unique_ptr<hadoop::hdfs::WebHdfs> MakeWebHdfs(const hadoop::ClusterConf& cluster,
                                                   const ClientSecurity& security,
                                                   const hadoop::hdfs::WebHdfsOptions& options);

// The tokens for the AM's launch context; empty on an open cluster. kUnauthenticated naming a
// token of the token file past its maximum lifetime.
Result<hadoop::security::Credentials> FetchDelegationTokens(const hadoop::ClusterConf& cluster,
                                                            const ClientSecurity& security,
                                                            hadoop::yarn::ApplicationClient& rm,
                                                            hadoop::hdfs::WebHdfs& fs);

// "ip:port" as Hadoop names a token's service (SecurityUtil.buildTokenService).
std::string TokenService(const std::string& host, int port);

// The principal of this cluster's first ResourceManager (Hadoop's YarnClientUtils.getRmPrincipal):
// every delegation token's renewer, so that the RM renews it while the job runs.
std::string RmPrincipal(const hadoop::ClusterConf& cluster);

// The service an RM delegation token of this cluster names: "ip:port" of each ResourceManager.
std::vector<std::string> RmTokenServices(const hadoop::ClusterConf& cluster);

// The service of the staging (default) file system's HDFS token: "ip:port" of its NameNode, or
// "ha-hdfs:<nameservice>".
std::string DefaultFsTokenService(const hadoop::ClusterConf& cluster);

}  // namespace tony::client
