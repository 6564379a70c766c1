// Integration test (label "secure"): hadoop/ipc's Kerberos (SASL GSSAPI) client against the
// secure minicluster's ResourceManager, run by tests/lib/secure_cluster.py, which starts the KDC
// and the cluster with hadoop.rpc.protection = $TONY_SECURE_PROTECTION and puts alice's ticket in
// $KRB5CCNAME (docs/hadoop-ipc.md, Kerberos).
//
// Also WebHDFS on the same cluster: SPNEGO from the ticket cache (writes go through the secure
// DataNode), the 401 without it, and an HDFS delegation token that the RM may renew, usable with
// no Kerberos ticket at all.
//
// Proves: calls from a ticket cache and from a keytab (with no ticket cache at all), with the
// cluster's protection negotiated and every call wrapped; the refusals a user meets (no ticket,
// a keytab without the principal's keys, SIMPLE auth, a protection level the cluster does not
// offer, a server that is not the configured principal).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "Security.pb.h"
#include "applicationclient_protocol.pb.h"
#include "common/strings.h"
#include "hadoop/hdfs/webhdfs.h"
#include "hadoop/ipc/connection.h"
#include "hadoop/ipc/sasl_layer.h"
#include "hadoop/security/credentials.h"
#include "hadoop/security/kerberos.h"
#include "hadoop/yarn/cluster_conf.h"
#include "yarn_service_protos.pb.h"

namespace tony::hadoop::ipc {
namespace {

using namespace std::chrono_literals;
namespace yarn_pb = ::hadoop::yarn;
namespace hdfs = ::tony::hadoop::hdfs;
using security::KerberosCredentials;

constexpr char kClientProtocol[] = "org.apache.hadoop.yarn.api.ApplicationClientProtocolPB";
constexpr char kMasterProtocol[] = "org.apache.hadoop.yarn.api.ApplicationMasterProtocolPB";
constexpr auto kCallTimeout = 30s;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

// Sets an environment variable for one scope (MIT krb5 reads KRB5CCNAME at each login).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name), old_(Env(name)) {
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { ::setenv(name_, old_.c_str(), 1); }

 private:
  const char* name_;
  std::string old_;
};

class SecureIpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    conf_dir_ = Env("TONY_SECURE_CONF_DIR");
    ASSERT_FALSE(conf_dir_.empty()) << "run me under tests/lib/secure_cluster.py";
    auto conf = LoadClusterConf(conf_dir_);
    ASSERT_TRUE(conf.ok()) << conf.status().ToString();
    auto servers = ToServers(conf->RmAddresses(), {}, "yarn.resourcemanager.address");
    ASSERT_TRUE(servers.ok() && !servers->empty()) << servers.status().ToString();
    host_ = (*servers)[0].host;
    port_ = (*servers)[0].port;
    auto pattern = conf->raw.Get("yarn.resourcemanager.principal");
    ASSERT_TRUE(pattern.has_value());
    server_principal_ = ServerPrincipal(*pattern, host_);
    auto protection =
        ParseRpcProtection(conf->raw.GetOr("hadoop.rpc.protection", "authentication"));
    ASSERT_TRUE(protection.ok()) << protection.status().ToString();
    protection_ = *protection;
    ASSERT_EQ(QopName(protection_.at(0)), Env("TONY_SECURE_PROTECTION"));
    namenodes_ = Join(conf->NameNodeHttpAddresses(), ",");
    auto sched =
        ToServers(conf->SchedulerAddresses(), {}, "yarn.resourcemanager.scheduler.address");
    ASSERT_TRUE(sched.ok() && !sched->empty()) << sched.status().ToString();
    scheduler_host_ = (*sched)[0].host;
    scheduler_port_ = (*sched)[0].port;
  }

  ConnectionOptions KerberosOptions(std::shared_ptr<KerberosCredentials> creds) {
    ConnectionOptions o;
    o.host = host_;
    o.port = port_;
    o.protocol = kClientProtocol;
    o.auth = AuthMethod::kKerberos;
    o.kerberos = std::move(creds);
    o.server_principal = server_principal_;
    o.protection = protection_;
    return o;
  }

  // Opens a connection with `creds` and makes two calls a client makes first.
  void ExpectRmAnswers(std::shared_ptr<KerberosCredentials> creds) {
    auto conn = Connection::Open(KerberosOptions(std::move(creds)));
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    EXPECT_EQ((*conn)->protection(), protection_.at(0));
    yarn_pb::GetClusterMetricsResponseProto metrics;
    Status s = (*conn)->Call("getClusterMetrics", yarn_pb::GetClusterMetricsRequestProto(),
                             &metrics, kCallTimeout);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_GE(metrics.cluster_metrics().num_node_managers(), 1);
    for (int i = 0; i < 3; ++i) {  // several calls: sequence numbers of the wrap layer advance
      yarn_pb::GetNewApplicationResponseProto app;
      s = (*conn)->Call("getNewApplication", yarn_pb::GetNewApplicationRequestProto(), &app,
                        kCallTimeout);
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_GT(app.application_id().id(), 0);
    }
  }

  std::string conf_dir_;
  std::string host_;
  uint16_t port_ = 0;
  std::string server_principal_;
  std::vector<Qop> protection_;
  std::string namenodes_;
  std::string scheduler_host_;
  uint16_t scheduler_port_ = 0;
};

TEST_F(SecureIpcTest, CallsFromTheTicketCache) {
  auto creds = KerberosCredentials::FromTicketCache();
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  EXPECT_EQ((*creds)->principal(), Env("TONY_SECURE_USER"));
  ExpectRmAnswers(*creds);
}

TEST_F(SecureIpcTest, CallsFromAKeytabWithoutATicketCache) {
  ScopedEnv no_cache("KRB5CCNAME", "FILE:" + conf_dir_ + "/no-such-ccache");
  auto creds =
      KerberosCredentials::FromKeytab(Env("TONY_SECURE_USER"), Env("TONY_SECURE_USER_KEYTAB"));
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  EXPECT_EQ((*creds)->principal(), Env("TONY_SECURE_USER"));
  ExpectRmAnswers(*creds);
  // The keytab login kept its tickets to itself.
  EXPECT_FALSE(KerberosCredentials::FromTicketCache().ok());
}

TEST_F(SecureIpcTest, LargeRequestsAreWrappedInSeveralMessages) {
  auto creds = KerberosCredentials::FromTicketCache();
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  auto conn = Connection::Open(KerberosOptions(*creds));
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  // ~300 KB of tags: several times the server's largest wrapped message.
  yarn_pb::GetApplicationsRequestProto request;
  for (int i = 0; i < 3000; ++i) request.add_applicationtags("tag-" + std::string(90, 'x'));
  yarn_pb::GetApplicationsResponseProto response;
  Status s = (*conn)->Call("getApplications", request, &response, kCallTimeout);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(response.applications_size(), 0);
  yarn_pb::GetClusterMetricsResponseProto metrics;
  EXPECT_TRUE((*conn)
                  ->Call("getClusterMetrics", yarn_pb::GetClusterMetricsRequestProto(), &metrics,
                         kCallTimeout)
                  .ok());
}

TEST_F(SecureIpcTest, NoTicketIsAClearErrorNamingKinit) {
  ScopedEnv empty_cache("KRB5CCNAME", "FILE:" + conf_dir_ + "/empty-ccache");
  auto creds = KerberosCredentials::FromTicketCache();
  ASSERT_FALSE(creds.ok());
  EXPECT_EQ(creds.status().code(), StatusCode::kUnauthenticated);
  EXPECT_NE(creds.status().message().find("run kinit"), std::string::npos)
      << creds.status().ToString();
  EXPECT_NE(creds.status().message().find("empty-ccache"), std::string::npos)
      << creds.status().ToString();
}

TEST_F(SecureIpcTest, AKeytabWithoutThePrincipalsKeysIsRefused) {
  // The service keytab holds hadoop/localhost's keys, not alice's.
  const std::string keytab = Env("TONY_SECURE_SERVICE_KEYTAB");
  auto creds = KerberosCredentials::FromKeytab(Env("TONY_SECURE_USER"), keytab);
  ASSERT_FALSE(creds.ok());
  EXPECT_EQ(creds.status().code(), StatusCode::kUnauthenticated);
  EXPECT_NE(creds.status().message().find(keytab), std::string::npos) << creds.status().ToString();
  EXPECT_NE(creds.status().message().find(Env("TONY_SECURE_USER")), std::string::npos);
  std::cerr << "wrong keytab: " << creds.status().ToString() << "\n";
}

TEST_F(SecureIpcTest, SimpleAuthIsRefused) {
  ConnectionOptions o = KerberosOptions(nullptr);
  o.auth = AuthMethod::kSimple;
  o.user = "alice";
  auto conn = Connection::Open(o);
  Status s = conn.ok()
                 ? (*conn)->Call("getClusterMetrics", yarn_pb::GetClusterMetricsRequestProto(),
                                 std::make_unique<yarn_pb::GetClusterMetricsResponseProto>().get(),
                                 kCallTimeout)
                 : conn.status();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("SIMPLE authentication is not enabled"), std::string::npos)
      << s.ToString();
}

TEST_F(SecureIpcTest, AProtectionTheClusterDoesNotOfferIsRefused) {
  auto creds = KerberosCredentials::FromTicketCache();
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  ConnectionOptions o = KerberosOptions(*creds);
  o.protection.clear();
  for (Qop q : {Qop::kAuthentication, Qop::kIntegrity, Qop::kPrivacy}) {
    if (q != protection_.at(0)) o.protection.push_back(q);
  }
  auto conn = Connection::Open(o);
  ASSERT_FALSE(conn.ok());
  EXPECT_NE(conn.status().message().find("No common protection layer"), std::string::npos)
      << conn.status().ToString();
}

TEST_F(SecureIpcTest, AServerThatIsNotTheConfiguredPrincipalIsRefused) {
  auto creds = KerberosCredentials::FromTicketCache();
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  ConnectionOptions o = KerberosOptions(*creds);
  o.server_principal = "rm/otherhost@" + Env("TONY_SECURE_REALM");
  auto conn = Connection::Open(o);
  ASSERT_FALSE(conn.ok());
  EXPECT_EQ(conn.status().code(), StatusCode::kUnauthenticated);
  EXPECT_NE(conn.status().message().find("rm/otherhost"), std::string::npos)
      << conn.status().ToString();
}

// TOKEN/DIGEST-MD5 at the cluster's protection (privacy: auth-conf with 3des, every frame
// sealed), the way the AM's AMRMToken and NMTokens connect: here with an RM delegation token
// fetched over Kerberos. (The RM hands an unmanaged AM's AMRMToken only to a caller whose full
// name equals the app's short user name, so a Kerberos client never gets one.)
TEST_F(SecureIpcTest, AnRmDelegationTokenConnectsAtTheClustersProtection) {
  auto creds = KerberosCredentials::FromTicketCache();
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  auto rm = Connection::Open(KerberosOptions(*creds));
  ASSERT_TRUE(rm.ok()) << rm.status().ToString();
  ::hadoop::common::GetDelegationTokenRequestProto request;
  request.set_renewer("alice");
  ::hadoop::common::GetDelegationTokenResponseProto response;
  Status s = (*rm)->Call("getDelegationToken", request, &response, kCallTimeout);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const auto& tp = response.token();
  EXPECT_EQ(tp.kind(), security::kRmDelegationTokenKind);

  ConnectionOptions o = KerberosOptions(nullptr);
  o.auth = AuthMethod::kToken;
  o.token = security::Token{tp.identifier(), tp.password(), tp.kind(), tp.service()};
  auto with_token = Connection::Open(o);
  ASSERT_TRUE(with_token.ok()) << with_token.status().ToString();
  EXPECT_EQ((*with_token)->protection(), protection_.at(0));
  for (int i = 0; i < 3; ++i) {  // the CBC chain and sequence numbers run on across frames
    yarn_pb::GetNewApplicationResponseProto app;
    s = (*with_token)
            ->Call("getNewApplication", yarn_pb::GetNewApplicationRequestProto(), &app,
                   kCallTimeout);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_GT(app.application_id().id(), 0);
  }
  yarn_pb::GetApplicationsRequestProto big;  // several wrapped messages for one frame
  for (int i = 0; i < 2000; ++i) big.add_applicationtags("tag-" + std::string(90, 'y'));
  yarn_pb::GetApplicationsResponseProto apps;
  s = (*with_token)->Call("getApplications", big, &apps, kCallTimeout);
  ASSERT_TRUE(s.ok()) << s.ToString();

  // A client that accepts only a level the cluster does not offer is refused.
  o.protection = {protection_.at(0) == Qop::kAuthentication ? Qop::kPrivacy : Qop::kAuthentication};
  auto refused = Connection::Open(o);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("No common protection layer"), std::string::npos)
      << refused.status().ToString();
}

TEST_F(SecureIpcTest, WebHdfsWithSpnegoWritesAndReadsAsTheTicketsUser) {
  hdfs::WebHdfs fs(namenodes_, "not-used");
  fs.UseSpnego();
  const std::string dir = "/user/alice/spnego";
  ASSERT_TRUE(fs.Mkdirs(dir).ok());
  Status s = fs.Create(dir + "/data.txt", "secure bytes\n");
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto status = fs.GetFileStatus(dir + "/data.txt");
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_EQ(status->owner, "alice");  // from the ticket, not from user.name
  auto bytes = fs.Open(dir + "/data.txt");
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_EQ(*bytes, "secure bytes\n");
}

TEST_F(SecureIpcTest, WebHdfsWithoutSpnegoIsRefused) {
  hdfs::WebHdfs fs(namenodes_, "alice");
  auto status = fs.GetFileStatus("/");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.status().code(), StatusCode::kPermissionDenied) << status.status().ToString();
  EXPECT_NE(status.status().message().find("HTTP 401"), std::string::npos);
}

TEST_F(SecureIpcTest, AnHdfsDelegationTokenForTheRmWorksWithoutATicket) {
  hdfs::WebHdfs fs(namenodes_, "not-used");
  fs.UseSpnego();
  ASSERT_TRUE(fs.Create("/user/alice/dt.txt", "read with a token").ok());
  auto url = fs.GetDelegationToken(server_principal_);
  ASSERT_TRUE(url.ok()) << url.status().ToString();
  auto token = security::DecodeTokenUrlString(*url);
  ASSERT_TRUE(token.ok()) << token.status().ToString();
  EXPECT_EQ(token->kind, security::kWebHdfsDelegationTokenKind);
  // The identifier names the owner and, as a short name, the renewer (the RM's principal).
  EXPECT_NE(token->identifier.find("alice"), std::string::npos);
  EXPECT_NE(token->identifier.find("hadoop"), std::string::npos);

  ScopedEnv no_cache("KRB5CCNAME", "FILE:" + conf_dir_ + "/no-such-ccache");
  hdfs::WebHdfs with_token(namenodes_, "not-used");
  with_token.UseDelegationToken(*url);
  auto bytes = with_token.Open("/user/alice/dt.txt");
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_EQ(*bytes, "read with a token");
  // A token that is not the NameNode's is refused, and the error does not repeat it.
  security::Token forged = *token;
  forged.password = "forged-password";
  hdfs::WebHdfs with_forged(namenodes_, "not-used");
  const std::string forged_url = security::EncodeTokenUrlString(forged);
  with_forged.UseDelegationToken(forged_url);
  auto refused = with_forged.Open("/user/alice/dt.txt");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message().find(forged_url), std::string::npos);
  std::cerr << "forged token: " << refused.status().ToString() << "\n";
}

}  // namespace
}  // namespace tony::hadoop::ipc
