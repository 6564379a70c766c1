#include "engine/yarn/client/yarn_security.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "common/clock.h"
#include "common/net.h"
#include "common/strings.h"
#include "config/key_names.h"
#include "hadoop/hdfs/namenode_client.h"
#include "hadoop/yarn/records.h"

namespace tony::client {
namespace {

std::string ShortName(const std::string& principal) {
  return principal.substr(0, principal.find_first_of("/@"));
}

// "tony.kerberos.keytab = /k (from --keytab)": the setting as the user made it, for errors.
std::string Setting(const Configuration& conf, const std::string& key) {
  const ConfigValue* v = conf.Find(key);
  if (v == nullptr) return key;
  return key + " = " + v->value + " (from " + v->source + ")";
}

// A keytab MIT's library would fail on with a vaguer message ("Key table file not found" or an
// empty cache) is refused here with the file's own reason.
Status CheckKeytabFile(const Configuration& conf, const std::string& keytab,
                       const std::string& principal) {
  const std::string what =
      Setting(conf, keys::kKerberosKeytab) + ", the keytab of " + principal + ": ";
  struct stat st {};
  if (::stat(keytab.c_str(), &st) != 0) return InvalidArgument(what + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return InvalidArgument(what + "not a regular file");
  int fd = ::open(keytab.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return InvalidArgument(what + "cannot be read: " + std::strerror(errno));
  ::close(fd);
  return Status::Ok();
}

// Neither the token file nor a Kerberos login can serve: both reasons, and both remedies.
Status NoLogin(const hadoop::ClusterConf& cluster, const Status& unusable_file,
               const Status& kerberos) {
  return Unauthenticated(unusable_file.message() +
                         ", and there is no Kerberos login to submit with instead: " +
                         kerberos.message() + "; or submit with a token file that holds " +
                         std::string(hadoop::security::kRmDelegationTokenKind) + " for service " +
                         Join(RmTokenServices(cluster), ",") + " and " +
                         std::string(hadoop::security::kHdfsDelegationTokenKind) + " for service " +
                         DefaultFsTokenService(cluster));
}

}  // namespace

std::string RmPrincipal(const hadoop::ClusterConf& cluster) {
  auto rm = ParseHostPort(cluster.RmAddresses().at(0), "yarn.resourcemanager.address");
  return hadoop::ServerPrincipal(cluster.rm_principal, rm.ok() ? rm->host : "");
}

std::vector<std::string> RmTokenServices(const hadoop::ClusterConf& cluster) {
  std::vector<std::string> out;
  for (const std::string& address : cluster.RmAddresses()) {
    auto rm = ParseHostPort(address, "yarn.resourcemanager.address");
    if (rm.ok()) out.push_back(TokenService(rm->host, rm->port));
  }
  return out;
}

std::string DefaultFsTokenService(const hadoop::ClusterConf& cluster) {
  return cluster.nameservice.empty() ? TokenService(cluster.fs_host, cluster.fs_port)
                                     : "ha-hdfs:" + cluster.nameservice;
}

std::string TokenService(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* found = nullptr;
  std::string ip = host;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &found) == 0 && found != nullptr) {
    char text[INET_ADDRSTRLEN] = {};
    auto* in = reinterpret_cast<sockaddr_in*>(found->ai_addr);
    if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text)) != nullptr) ip = text;
    ::freeaddrinfo(found);
  }
  return ip + ":" + std::to_string(port);
}

Result<ClientSecurity> LoginForCluster(const hadoop::ClusterConf& cluster,
                                       const Configuration& job_conf,
                                       const std::string& simple_user) {
  ClientSecurity out;
  out.user = simple_user;
  const std::string proxy_user = job_conf.GetOr(keys::kKerberosProxyUser, "");
  if (!cluster.kerberos) {
    if (proxy_user.empty()) return out;
    return InvalidArgument(Setting(job_conf, keys::kKerberosProxyUser) +
                           ": proxy users need a Kerberized cluster, and " + cluster.conf_dir +
                           " has hadoop.security.authentication=simple; to submit as " +
                           proxy_user + " there, set HADOOP_USER_NAME=" + proxy_user);
  }
  std::string principal = job_conf.GetOr(keys::kKerberosPrincipal, "");
  std::string keytab = job_conf.GetOr(keys::kKerberosKeytab, "");
  if (principal.empty() != keytab.empty()) {
    return InvalidArgument(
        std::string(keys::kKerberosPrincipal) + " and " + keys::kKerberosKeytab +
        " (--principal and --keytab) go together; set both or neither (got " +
        Setting(job_conf, principal.empty() ? keys::kKerberosKeytab : keys::kKerberosPrincipal) +
        ")");
  }
  if (!keytab.empty()) TONY_RETURN_IF_ERROR(CheckKeytabFile(job_conf, keytab, principal));
  TONY_ASSIGN_OR_RETURN(std::optional<TokenFile> file, ReadTokenFile(std::getenv(kTokenFileEnv)));
  Status unusable_file;  // why the token file cannot serve as the login, when it cannot
  if (file) {
    out.file_tokens = ForwardedTokens(*file);
    out.token_file = file->Describe();
    if (keytab.empty() && proxy_user.empty()) {
      auto login = SelectTokenLogin(*file, RmTokenServices(cluster), DefaultFsTokenService(cluster),
                                    SystemClock().WallMs());
      if (login.ok()) {
        out.user = ShortName(login->owner);
        out.tokens = std::move(login).value();
        return out;
      }
      unusable_file = login.status();
    }
  }
  using hadoop::security::KerberosCredentials;
  auto creds = keytab.empty() ? KerberosCredentials::FromTicketCache()
                              : KerberosCredentials::FromKeytab(principal, keytab);
  if (!creds.ok() && !unusable_file.ok()) return NoLogin(cluster, unusable_file, creds.status());
  if (!creds.ok()) {
    return creds.status().WithContext("the cluster in " + cluster.conf_dir + " uses Kerberos");
  }
  if (!unusable_file.ok()) {
    std::cerr << "tony: warning: " << unusable_file.message() << "; submitting with the Kerberos "
              << "ticket of " << (*creds)->principal() << " instead\n";
  }
  out.kerberos = *creds;
  out.user = ShortName(out.kerberos->principal());
  if (!proxy_user.empty()) {
    out.proxy_user = proxy_user;
    out.user = proxy_user;
  }
  // libcurl's SPNEGO takes the default cache: point it at the keytab login's own.
  if (!out.kerberos->ccache().empty()) ::setenv("KRB5CCNAME", out.kerberos->ccache().c_str(), 1);
  return out;
}

std::unique_ptr<hadoop::yarn::ApplicationClient> MakeRmClient(
    const hadoop::ClusterConf& cluster, const ClientSecurity& security,
    std::vector<hadoop::ipc::ServerAddress> servers) {
  if (security.tokens) {
    return std::make_unique<hadoop::yarn::ApplicationClient>(
        std::move(servers), security.tokens->rm, cluster.rpc_protection, cluster.rm_failover,
        cluster.rm_connect);
  }
  if (!security.kerberos) {
    return std::make_unique<hadoop::yarn::ApplicationClient>(
        std::move(servers), security.user, cluster.rm_failover, cluster.rm_connect);
  }
  return std::make_unique<hadoop::yarn::ApplicationClient>(
      std::move(servers), security.kerberos, cluster.rm_principal, cluster.rpc_protection,
      cluster.rm_failover, security.proxy_user, cluster.rm_connect);
}

Status ExplainProxyRefusal(const ClientSecurity& security, Status s) {
  if (s.ok() || security.proxy_user.empty() ||
      s.message().find("is not allowed to impersonate") == std::string::npos) {
    return s;
  }
  const std::string real = ShortName(security.kerberos->principal());
  return PermissionDenied(
      security.kerberos->principal() + " may not act as proxy user " + security.proxy_user +
      ": the cluster's hadoop.proxyuser." + real + ".hosts and hadoop.proxyuser." + real +
      ".groups (or .users) do not "
      "allow " +
      real + " to impersonate " + security.proxy_user + " from this host (" + s.message() + ")");
}

std::optional<Status> ExplainTokenRefusal(const ClientSecurity& security, const Status& s) {
  const std::string& m = s.message();
  if (s.ok() || !security.tokens ||
      (m.find("InvalidToken") == std::string::npos &&
       m.find("FATAL_UNAUTHORIZED") == std::string::npos &&
       m.find("token not accepted") == std::string::npos)) {
    return std::nullopt;
  }
  return Unauthenticated(security.token_file + ": the ResourceManager refused its " +
                         security.tokens->rm.kind + " for " + security.tokens->rm.service + " (" +
                         m +
                         "): it expired, was cancelled, or is another ResourceManager's; get new "
                         "tokens from the scheduler that wrote the file, or run kinit and submit "
                         "without " +
                         kTokenFileEnv);
}

std::unique_ptr<hadoop::hdfs::WebHdfs> MakeWebHdfs(const hadoop::ClusterConf& cluster,
                                                   const ClientSecurity& security,
                                                   const hadoop::hdfs::WebHdfsOptions& options) {
  auto fs = std::make_unique<hadoop::hdfs::WebHdfs>(Join(cluster.NameNodeWebAddresses(), ","),
                                                    security.user, options);
  if (security.kerberos) fs->UseSpnego();
  if (security.tokens)
    fs->UseDelegationToken(hadoop::security::EncodeTokenUrlString(security.tokens->hdfs));
  if (!security.proxy_user.empty()) fs->ActAs(security.proxy_user);
  return fs;
}

Result<hadoop::security::Credentials> FetchDelegationTokens(const hadoop::ClusterConf& cluster,
                                                            const ClientSecurity& security,
                                                            hadoop::yarn::ApplicationClient& rm,
                                                            hadoop::hdfs::WebHdfs& fs) {
  hadoop::security::Credentials creds = security.file_tokens;
  if (!security.kerberos) {
    TONY_RETURN_IF_ERROR(CheckNotExpired(creds, security.token_file, SystemClock().WallMs()));
    return creds;
  }
  const std::string renewer = RmPrincipal(cluster);
  TONY_ASSIGN_OR_RETURN(auto rm_token, rm.GetDelegationToken(renewer));
  auto rm_addr = ParseHostPort(cluster.RmAddresses().at(0), "yarn.resourcemanager.address");
  if (rm_addr.ok()) rm_token.service = TokenService(rm_addr->host, rm_addr->port);
  creds.AddToken(rm_token.service, rm_token);

  TONY_ASSIGN_OR_RETURN(auto hdfs_token, hadoop::hdfs::GetDefaultFsDelegationToken(
                                             fs, renewer, DefaultFsTokenService(cluster)));
  creds.AddToken(hdfs_token.service, hdfs_token);
  // The file's tokens for other services still go on: one past its lifetime would make the RM
  // refuse the submission (it renews every token first), with a vaguer message.
  TONY_RETURN_IF_ERROR(CheckNotExpired(creds, security.token_file, SystemClock().WallMs()));
  return creds;
}

}  // namespace tony::client
