#include "engine/yarn/client/namenode_tokens.h"

#include "common/net.h"
#include "common/strings.h"
#include "config/key_names.h"
#include "hadoop/hdfs/namenode_client.h"
#include "hadoop/hdfs/webhdfs.h"

namespace tony::client {
namespace {

namespace security = hadoop::security;

Result<security::Token> RpcToken(const hadoop::ClusterConf& cluster, const ClientSecurity& login,
                                 const std::string& host, int port, const std::string& renewer) {
  hadoop::hdfs::NameNodeRpcTarget target;
  target.host = host;
  target.port = static_cast<uint16_t>(port);
  const std::string& principal = cluster.namenode_principal;
  if (principal.empty()) {
    return FailedPrecondition("dfs.namenode.kerberos.principal is not set in " + cluster.conf_dir +
                              "/hdfs-site.xml");
  }
  target.server_principal = hadoop::ServerPrincipal(principal, host);
  target.protection = cluster.rpc_protection;
  TONY_ASSIGN_OR_RETURN(security::Token t,
                        hadoop::hdfs::GetDelegationTokenOverRpc(target, login.kerberos, renewer));
  if (t.kind.empty()) t.kind = security::kHdfsDelegationTokenKind;
  t.service = TokenService(host, port);
  return t;
}

// hdfs://<nameservice> of this client's hdfs-site.xml: the first of its NameNodes that answers.
Result<security::Token> NameserviceToken(const hadoop::ClusterConf& cluster,
                                         const ClientSecurity& login, const std::string& ns,
                                         const std::vector<std::string>& ids,
                                         const std::string& renewer) {
  Status last;
  for (const std::string& id : ids) {
    auto address = cluster.NameNodeRpcAddress(ns, id);
    if (!address.ok()) {
      last = address.status();
      continue;
    }
    auto t = RpcToken(cluster, login, address->host, address->port, renewer);
    if (t.ok()) {
      t->service = "ha-hdfs:" + ns;
      return t;
    }
    last = t.status();
  }
  return last.ok() ? NotFound("dfs.ha.namenodes." + ns + " lists no NameNode") : last;
}

// The default port of a WebHDFS URI: dfs.namenode.http-address's or https-address's.
int WebPort(const NameNodeUri& uri) {
  if (uri.port > 0) return uri.port;
  return uri.scheme == "swebhdfs" ? 9871 : 9870;
}

Result<security::Token> TokenFor(const hadoop::ClusterConf& cluster, const ClientSecurity& login,
                                 const NameNodeUri& uri, const std::string& renewer,
                                 const hadoop::hdfs::TlsTrust& trust) {
  if (uri.scheme == "webhdfs" || uri.scheme == "swebhdfs") {
    int port = WebPort(uri);
    hadoop::hdfs::WebHdfsOptions web;
    web.https = uri.scheme == "swebhdfs";
    web.trust = trust;
    hadoop::hdfs::WebHdfs fs(uri.host + ":" + std::to_string(port), login.user, web);
    fs.UseSpnego();
    TONY_ASSIGN_OR_RETURN(std::string url, fs.GetDelegationToken(renewer));
    TONY_ASSIGN_OR_RETURN(security::Token t, security::DecodeTokenUrlString(url));
    t.service = TokenService(uri.host, port);
    return t;
  }
  auto ids = cluster.NameNodeIds(uri.host);
  if (uri.port < 0 && !ids.empty()) {
    return NameserviceToken(cluster, login, uri.host, ids, renewer);
  }
  return RpcToken(cluster, login, uri.host, uri.port > 0 ? uri.port : 8020, renewer);
}

// The service Hadoop names `uri`'s token with (as TokenFor sets it).
std::string ServiceOf(const hadoop::ClusterConf& cluster, const NameNodeUri& uri) {
  if (uri.scheme == "webhdfs" || uri.scheme == "swebhdfs")
    return TokenService(uri.host, WebPort(uri));
  if (uri.port < 0 && !cluster.NameNodeIds(uri.host).empty()) {
    return "ha-hdfs:" + uri.host;
  }
  return TokenService(uri.host, uri.port > 0 ? uri.port : 8020);
}

bool HasService(const security::Credentials& creds, const std::string& service) {
  for (const auto& [alias, t] : creds.tokens()) {
    if (t.service == service) return true;
  }
  return false;
}

// tony.history.location counts only as an hdfs:// URI (TonY fetches for its file system).
std::vector<std::pair<std::string, std::string>> Requested(const Configuration& job_conf) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& uri : SplitTrimmed(job_conf.GetOr(keys::kOtherNamenodes, ""), ',')) {
    if (!uri.empty()) out.emplace_back(keys::kOtherNamenodes, uri);
  }
  std::string history = job_conf.GetOr(keys::kHistoryLocation, "");
  if (StartsWith(history, "hdfs://")) out.emplace_back(keys::kHistoryLocation, history);
  return out;
}

// A token-file login fetches nothing: each NameNode asked for needs the file's token.
std::vector<std::string> MissingFromTokenFile(const hadoop::ClusterConf& cluster,
                                              const ClientSecurity& login,
                                              const Configuration& job_conf,
                                              const security::Credentials& creds) {
  std::vector<std::string> warnings;
  for (const auto& [key, text] : Requested(job_conf)) {
    auto uri = ParseNameNodeUri(text, key);
    if (!uri.ok()) {
      warnings.push_back("no delegation token for " + text + " (" + key +
                         "); tasks cannot reach it: " + uri.status().message());
      continue;
    }
    std::string service = ServiceOf(cluster, *uri);
    if (HasService(creds, service)) continue;
    warnings.push_back("no delegation token for " + text + " (" + key +
                       "); tasks cannot reach it: " + login.token_file + " has none for service " +
                       service + ", and tony fetches none without a Kerberos login (run kinit)");
  }
  return warnings;
}

}  // namespace

Result<NameNodeUri> ParseNameNodeUri(const std::string& text, const std::string& key) {
  NameNodeUri u;
  u.text = text;
  size_t sep = text.find("://");
  if (sep != std::string::npos) u.scheme = text.substr(0, sep);
  if (u.scheme != "hdfs" && u.scheme != "webhdfs" && u.scheme != "swebhdfs") {
    return InvalidArgument(key + ": \"" + text +
                           "\" is not an hdfs://host[:port], webhdfs://host[:port] or "
                           "swebhdfs://host[:port] URI");
  }
  std::string authority = text.substr(sep + 3);
  authority = authority.substr(0, authority.find('/'));
  TONY_ASSIGN_OR_RETURN(Authority a, ParseAuthority(authority, key + ": \"" + text + "\""));
  u.host = std::move(a.host);
  if (a.port) u.port = *a.port;
  if (u.host.empty()) return InvalidArgument(key + ": \"" + text + "\" names no host");
  return u;
}

std::vector<std::string> AddOtherNameNodeTokens(const hadoop::ClusterConf& cluster,
                                                const ClientSecurity& login,
                                                const Configuration& job_conf,
                                                const hadoop::hdfs::TlsTrust& trust,
                                                security::Credentials* creds) {
  std::vector<std::string> warnings;
  if (login.tokens) return MissingFromTokenFile(cluster, login, job_conf, *creds);
  if (!login.kerberos) return warnings;
  const std::string renewer = RmPrincipal(cluster);
  for (const auto& [key, text] : Requested(job_conf)) {
    auto uri = ParseNameNodeUri(text, key);
    Result<security::Token> token = uri.ok() ? TokenFor(cluster, login, *uri, renewer, trust)
                                             : Result<security::Token>(uri.status());
    if (!token.ok()) {
      warnings.push_back("no delegation token for " + text + " (" + key +
                         "); tasks cannot reach it: " + token.status().message());
      continue;
    }
    bool have = false;
    for (const auto& [alias, t] : creds->tokens()) have = have || t.service == token->service;
    if (!have) creds->AddToken(token->service, *token);
  }
  return warnings;
}

}  // namespace tony::client
