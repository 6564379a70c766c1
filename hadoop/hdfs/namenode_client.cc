#include "hadoop/hdfs/namenode_client.h"

#include <chrono>

#include "Security.pb.h"
#include "hadoop/ipc/client.h"

namespace tony::hadoop::hdfs {

Result<security::Token> GetDelegationTokenOverRpc(
    const NameNodeRpcTarget& target, std::shared_ptr<security::KerberosCredentials> kerberos,
    const std::string& renewer) {
  const std::string where = target.host + ":" + std::to_string(target.port);
  if (kerberos == nullptr) {
    return FailedPrecondition("a delegation token from the NameNode at " + where +
                              " needs a Kerberos login");
  }
  ipc::ConnectionOptions o;
  o.host = target.host;
  o.port = target.port;
  o.protocol = kClientNamenodeProtocol;
  o.auth = ipc::AuthMethod::kKerberos;
  o.kerberos = std::move(kerberos);
  o.server_principal = target.server_principal;
  o.protection = target.protection;
  o.connect_timeout = std::chrono::seconds(10);
  ipc::RetryPolicy retry;
  retry.max_connect_attempts = 2;  // a NameNode that is down should not hold up the submit
  ipc::RpcClient rpc(std::move(o), retry);
  ::hadoop::common::GetDelegationTokenRequestProto req;
  req.set_renewer(renewer);
  ::hadoop::common::GetDelegationTokenResponseProto r;
  TONY_RETURN_IF_ERROR(rpc.Call("getDelegationToken", req, &r, std::chrono::seconds(30))
                           .WithContext("getDelegationToken from the NameNode at " + where));
  if (!r.has_token()) {
    return Internal("getDelegationToken: the NameNode at " + where + " returned no token");
  }
  const auto& t = r.token();
  return security::Token{t.identifier(), t.password(), t.kind(), t.service()};
}

Result<security::Token> GetDefaultFsDelegationToken(WebHdfs& fs, const std::string& renewer,
                                                    const std::string& service) {
  TONY_ASSIGN_OR_RETURN(std::string url, fs.GetDelegationToken(renewer));
  TONY_ASSIGN_OR_RETURN(security::Token token, security::DecodeTokenUrlString(url));
  token.kind = security::kHdfsDelegationTokenKind;
  token.service = service;
  return token;
}

}  // namespace tony::hadoop::hdfs
