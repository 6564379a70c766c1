// One call of HDFS's ClientNamenodeProtocol over Hadoop IPC (docs/hadoop-ipc.md §6.2):
// getDelegationToken, which takes and returns the same messages as the RM's (Security.proto).
// tony stages over WebHDFS; this is for NameNodes the client knows only by their RPC address
// (tony.other.namenodes, tony.history.location as hdfs://host:port), the way TonY's client asks
// each FileSystem for its tokens. SASL GSSAPI with the user's Kerberos login.
// Thread-safety: a free function; each call opens and closes its own connection.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "hadoop/hdfs/webhdfs.h"
#include "hadoop/ipc/sasl_layer.h"
#include "hadoop/security/credentials.h"
#include "hadoop/security/kerberos.h"

namespace tony::hadoop::hdfs {

inline constexpr char kClientNamenodeProtocol[] = "org.apache.hadoop.hdfs.protocol.ClientProtocol";

struct NameNodeRpcTarget {
  std::string host;
  uint16_t port = 8020;
  // dfs.namenode.kerberos.principal with _HOST already replaced by `host`.
  std::string server_principal;
  std::vector<ipc::Qop> protection{ipc::Qop::kAuthentication};
};

// An HDFS delegation token that `renewer` may renew. The NameNode leaves its service empty;
// the caller names it (SecurityUtil.buildTokenService: "ip:port").
Result<security::Token> GetDelegationTokenOverRpc(
    const NameNodeRpcTarget& target, std::shared_ptr<security::KerberosCredentials> kerberos,
    const std::string& renewer);

// The staging (default) file system's token: WebHDFS GETDELEGATIONTOKEN for `renewer`, stored as
// HDFS_DELEGATION_TOKEN for `service` ("ip:port" of the NameNode's RPC address, or
// "ha-hdfs:<nameservice>"): the same identifier and password serve HDFS RPC, which the
// NodeManagers localize with. The client's submit and the AM's renewal both get it this way.
Result<security::Token> GetDefaultFsDelegationToken(WebHdfs& fs, const std::string& renewer,
                                                    const std::string& service);

}  // namespace tony::hadoop::hdfs
