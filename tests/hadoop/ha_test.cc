// High availability: the RM ids and NameNode nameservices read from Hadoop's site files
// (hadoop/yarn/cluster_conf), and the failover order and backoff of ipc::FailoverRpcClient.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "RpcHeader.pb.h"
#include "hadoop/hdfs/webhdfs.h"
#include "hadoop/ipc/failover.h"
#include "hadoop/ipc/wire.h"
#include "hadoop/yarn/cluster_conf.h"
#include "tests/hadoop/http_stub.h"
#include "yarn_service_protos.pb.h"

namespace tony::hadoop {
namespace {

using namespace std::chrono_literals;
using ipc::FailoverPolicy;
using ipc::FailureAction;

// Site XML from key/value pairs; `source` plays the file's path in errors.
Configuration Site(const std::vector<std::pair<std::string, std::string>>& props,
                   const std::string& source = "/etc/hadoop/yarn-site.xml") {
  std::string xml = "<configuration>";
  for (const auto& [k, v] : props) {
    xml += "<property><name>" + k + "</name><value>" + v + "</value></property>";
  }
  xml += "</configuration>";
  Configuration c;
  EXPECT_TRUE(c.AddXml(xml, source).ok());
  return c;
}

TEST(ClusterConfTest, WithoutHaOneResourceManagerFromTheHostnameAndDefaultPorts) {
  auto c = ParseClusterConf(Site({{"yarn.resourcemanager.hostname", "rm.example.com"},
                                  {"fs.defaultFS", "hdfs://nn.example.com"}}),
                            "/etc/hadoop");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE(c->rm_ha);
  ASSERT_EQ(c->resource_managers.size(), 1u);
  EXPECT_EQ(c->resource_managers[0].address, "rm.example.com:8032");
  EXPECT_EQ(c->resource_managers[0].scheduler_address, "rm.example.com:8030");
  EXPECT_EQ(c->resource_managers[0].webapp_address, "rm.example.com:8088");
  // hdfs://host without a port: 8020; the wildcard HTTP address takes the RPC host (DFSUtil).
  EXPECT_EQ(c->fs_host, "nn.example.com");
  EXPECT_EQ(c->fs_port, 8020);
  ASSERT_EQ(c->namenodes.size(), 1u);
  EXPECT_EQ(c->namenodes[0].http_address, "nn.example.com:9870");
  // Hadoop's defaults for the failover policy: 900000 / 30000 failovers, 30 s pauses.
  EXPECT_EQ(c->rm_failover.max_failovers, 30);
  EXPECT_EQ(c->rm_failover.sleep_base, 30000ms);
  EXPECT_EQ(c->rm_failover.connect_retries, 0);
}

// The hosts whose requests the AM's status endpoint answers (coordinator/status_http.h), as
// YARN's AmIpFilter finds them: yarn.web-proxy.address, else every RM's web app address.
TEST(ClusterConfTest, WebProxyAddressesAreTheProxyElseEveryResourceManagersWebApp) {
  auto plain = ParseClusterConf(Site({{"yarn.resourcemanager.hostname", "rm.example.com"}}), "/c");
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->WebProxyAddresses(), std::vector<std::string>{"rm.example.com:8088"});

  auto https = ParseClusterConf(Site({{"yarn.resourcemanager.hostname", "rm.example.com"},
                                      {"yarn.http.policy", "HTTPS_ONLY"}}),
                                "/c");
  ASSERT_TRUE(https.ok()) << https.status().ToString();
  EXPECT_EQ(https->WebProxyAddresses(), std::vector<std::string>{"rm.example.com:8090"});

  auto ha =
      ParseClusterConf(Site({{"yarn.resourcemanager.ha.enabled", "true"},
                             {"yarn.resourcemanager.ha.rm-ids", "rm1,rm2"},
                             {"yarn.resourcemanager.hostname.rm1", "master1"},
                             {"yarn.resourcemanager.hostname.rm2", "master2"},
                             {"yarn.resourcemanager.webapp.address.rm2", "web2:18088"},
                             {"yarn.resourcemanager.webapp.https.address.rm1", "web1:18090"}}),
                       "/c");
  ASSERT_TRUE(ha.ok()) << ha.status().ToString();
  EXPECT_EQ(ha->WebProxyAddresses(), (std::vector<std::string>{"master1:8088", "web2:18088"}));
  ha->web_https = true;
  EXPECT_EQ(ha->WebProxyAddresses(), (std::vector<std::string>{"web1:18090", "master2:8090"}));

  auto proxy = ParseClusterConf(Site({{"yarn.resourcemanager.ha.enabled", "true"},
                                      {"yarn.resourcemanager.ha.rm-ids", "rm1,rm2"},
                                      {"yarn.resourcemanager.hostname.rm1", "master1"},
                                      {"yarn.resourcemanager.hostname.rm2", "master2"},
                                      {"yarn.web-proxy.address", " proxy.example.com:9046 "}}),
                                "/c");
  ASSERT_TRUE(proxy.ok()) << proxy.status().ToString();
  EXPECT_EQ(proxy->WebProxyAddresses(), std::vector<std::string>{"proxy.example.com:9046"});

  // An RM configured by its RPC addresses alone (no hostname, no web address) is no reason to
  // refuse the cluster: it is only left out of the proxy hosts.
  auto partial =
      ParseClusterConf(Site({{"yarn.resourcemanager.ha.enabled", "true"},
                             {"yarn.resourcemanager.ha.rm-ids", "rm1,rm2"},
                             {"yarn.resourcemanager.hostname.rm1", "master1"},
                             {"yarn.resourcemanager.address.rm2", "other:8032"},
                             {"yarn.resourcemanager.scheduler.address.rm2", "other:8030"},
                             {"yarn.resourcemanager.webapp.address.rm2", "other:8088"}}),
                       "/c");
  ASSERT_TRUE(partial.ok()) << partial.status().ToString();
  EXPECT_EQ(partial->WebProxyAddresses(), (std::vector<std::string>{"master1:8088", "other:8088"}));
  partial->web_https = true;
  EXPECT_EQ(partial->WebProxyAddresses(), std::vector<std::string>{"master1:8090"});

  auto bad = ParseClusterConf(Site({{"yarn.web-proxy.address", "proxy.example.com"}}), "/c");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("yarn.web-proxy.address"), std::string::npos)
      << bad.status().message();
}

TEST(ClusterConfTest, HaResourceManagersInRmIdsOrderFromAddressesOrHostnames) {
  auto c = ParseClusterConf(Site({{"yarn.resourcemanager.ha.enabled", "true"},
                                  {"yarn.resourcemanager.ha.rm-ids", " rm2 , rm1 "},
                                  {"yarn.resourcemanager.hostname.rm1", "master1"},
                                  {"yarn.resourcemanager.hostname.rm2", "master2"},
                                  {"yarn.resourcemanager.address.rm2", "10.0.0.2:18032"},
                                  {"yarn.client.failover-max-attempts", "7"},
                                  {"yarn.resourcemanager.connect.retry-interval.ms", "250"},
                                  {"yarn.client.failover-sleep-max-ms", "4000"},
                                  {"fs.defaultFS", "hdfs://nn:9000"}}),
                            "/etc/hadoop");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->rm_ha);
  ASSERT_EQ(c->resource_managers.size(), 2u);
  EXPECT_EQ(c->resource_managers[0].id, "rm2");
  EXPECT_EQ(c->resource_managers[0].address, "10.0.0.2:18032");  // <key>.<id> wins
  EXPECT_EQ(c->resource_managers[0].scheduler_address, "master2:8030");
  EXPECT_EQ(c->resource_managers[1].id, "rm1");
  EXPECT_EQ(c->resource_managers[1].address, "master1:8032");
  EXPECT_EQ(c->resource_managers[1].webapp_address, "master1:8088");
  EXPECT_EQ(c->SchedulerAddresses(), (std::vector<std::string>{"master2:8030", "master1:8030"}));
  EXPECT_EQ(c->rm_failover.max_failovers, 7);
  EXPECT_EQ(c->rm_failover.sleep_base, 250ms);  // from connect.retry-interval.ms
  EXPECT_EQ(c->rm_failover.sleep_max, 4000ms);
}

TEST(ClusterConfTest, ValuesExpandVariablesAsHadoopDoes) {
  auto c = ParseClusterConf(Site({{"yarn.resourcemanager.ha.enabled", "true"},
                                  {"yarn.resourcemanager.ha.rm-ids", "a,b"},
                                  {"rm.base", "master"},
                                  {"yarn.resourcemanager.hostname.a", "${rm.base}1"},
                                  {"yarn.resourcemanager.hostname.b", "${rm.base}2"}}),
                            "/etc/hadoop");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->RmAddresses(), (std::vector<std::string>{"master1:8032", "master2:8032"}));
}

TEST(ClusterConfTest, HaErrorsNameTheKeyAndTheFile) {
  auto empty = ParseClusterConf(
      Site({{"yarn.resourcemanager.ha.enabled", "true"}}, "/conf/yarn-site.xml"), "/conf");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(),
            "yarn.resourcemanager.ha.rm-ids is empty while yarn.resourcemanager.ha.enabled is "
            "true in /conf/yarn-site.xml; list the ResourceManager ids, e.g. rm1,rm2");

  auto no_host = ParseClusterConf(Site({{"yarn.resourcemanager.ha.enabled", "true"},
                                        {"yarn.resourcemanager.ha.rm-ids", "rm1,rm2"},
                                        {"yarn.resourcemanager.hostname.rm1", "m1"}}),
                                  "/conf");
  ASSERT_FALSE(no_host.ok());
  EXPECT_NE(no_host.status().message().find("neither yarn.resourcemanager.address.rm2 nor "
                                            "yarn.resourcemanager.hostname.rm2 is set in "
                                            "/conf/yarn-site.xml"),
            std::string::npos)
      << no_host.status().message();

  auto bad_bool = ParseClusterConf(Site({{"yarn.resourcemanager.ha.enabled", "yes"}}), "/conf");
  ASSERT_FALSE(bad_bool.ok());
  EXPECT_NE(bad_bool.status().message().find("yarn.resourcemanager.ha.enabled is \"yes\" in "
                                             "/etc/hadoop/yarn-site.xml; expected true or false"),
            std::string::npos)
      << bad_bool.status().message();

  auto bad_port = ParseClusterConf(Site({{"yarn.resourcemanager.ha.enabled", "true"},
                                         {"yarn.resourcemanager.ha.rm-ids", "rm1"},
                                         {"yarn.resourcemanager.address.rm1", "m1:http"}}),
                                   "/conf");
  ASSERT_FALSE(bad_port.ok());
  EXPECT_NE(bad_port.status().message().find("yarn.resourcemanager.address.rm1"), std::string::npos)
      << bad_port.status().message();
}

TEST(ClusterConfTest, HostPlaceholderInAnAddressIsAnErrorThatNamesTheKey) {
  auto c = ParseClusterConf(Site({{"yarn.resourcemanager.address", "_HOST:8032"}}), "/conf");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("yarn.resourcemanager.address is _HOST:8032 in "
                                      "/etc/hadoop/yarn-site.xml"),
            std::string::npos)
      << c.status().message();
}

TEST(ClusterConfTest, AnIpv6NameNodeInBracketsAndABadPortThatNamesTheFile) {
  auto c = ParseClusterConf(
      Site({{"fs.defaultFS", "hdfs://[::1]:9000"}, {"dfs.namenode.http-address", "0.0.0.0:9870"}}),
      "/conf");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->fs_host, "::1");
  EXPECT_EQ(c->fs_port, 9000);
  ASSERT_EQ(c->namenodes.size(), 1u);
  EXPECT_EQ(c->namenodes[0].rpc_address, "[::1]:9000");
  EXPECT_EQ(c->namenodes[0].http_address, "[::1]:9870");  // the wildcard is the RPC host

  auto bad =
      ParseClusterConf(Site({{"fs.defaultFS", "hdfs://nn:http"}}, "/conf/core-site.xml"), "/conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "fs.defaultFS in /conf/core-site.xml: expected host[:port], got \"nn:http\": the port "
            "\"http\" is not a number");
}

TEST(ClusterConfTest, ServerPrincipalReplacesHostOnlyInTheHostComponent) {
  EXPECT_EQ(ServerPrincipal("rm/_HOST@EXAMPLE.COM", "Master1.Example.com"),
            "rm/master1.example.com@EXAMPLE.COM");
  EXPECT_EQ(ServerPrincipal("nn/_HOST", "h"), "nn/h");
  EXPECT_EQ(ServerPrincipal("rm/fixed@EXAMPLE.COM", "h"), "rm/fixed@EXAMPLE.COM");
  EXPECT_EQ(ServerPrincipal("_HOST@EXAMPLE.COM", "h"), "_HOST@EXAMPLE.COM");
}

TEST(ClusterConfTest, NameNodeHaNameserviceListsEveryNameNodeAndHasNoPort) {
  auto c = ParseClusterConf(Site({{"fs.defaultFS", "hdfs://mycluster"},
                                  {"dfs.nameservices", "mycluster,other"},
                                  {"dfs.ha.namenodes.mycluster", "nn1, nn2"},
                                  {"dfs.namenode.rpc-address.mycluster.nn1", "m1:8020"},
                                  {"dfs.namenode.rpc-address.mycluster.nn2", "m2:8020"},
                                  {"dfs.namenode.http-address.mycluster.nn1", "m1:9870"},
                                  {"dfs.namenode.http-address.mycluster.nn2", "0.0.0.0:9871"}}),
                            "/conf");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->nameservice, "mycluster");
  EXPECT_EQ(c->fs_host, "mycluster");
  EXPECT_EQ(c->fs_port, -1);  // LocalResource URL hdfs://mycluster/path
  ASSERT_EQ(c->namenodes.size(), 2u);
  EXPECT_EQ(c->namenodes[0].id, "nn1");
  EXPECT_EQ(c->NameNodeHttpAddresses(), (std::vector<std::string>{"m1:9870", "m2:9871"}));
}

TEST(ClusterConfTest, NameserviceErrorsNameTheMissingKey) {
  auto c = ParseClusterConf(Site({{"fs.defaultFS", "hdfs://mycluster"},
                                  {"dfs.nameservices", "mycluster"},
                                  {"dfs.ha.namenodes.mycluster", "nn1,nn2"},
                                  {"dfs.namenode.http-address.mycluster.nn1", "m1:9870"}}),
                            "/conf");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("dfs.namenode.http-address.mycluster.nn2 is not set in "
                                      "/conf/hdfs-site.xml"),
            std::string::npos)
      << c.status().message();
}

TEST(FailoverPolicyTest, FirstRoundIsImmediateThenDoublingToTheCap) {
  FailoverPolicy p{.max_failovers = 10, .sleep_base = 100ms, .sleep_max = 1000ms};
  // Two RMs: the first failover (to the second RM) is immediate, then 100, 200, 400, 800, 1000.
  std::vector<int64_t> pauses;
  for (int i = 0; i < 7; ++i) pauses.push_back(ipc::FailoverPause(p, i, 2).count());
  EXPECT_EQ(pauses, (std::vector<int64_t>{0, 100, 200, 400, 800, 1000, 1000}));
  // Three RMs: both first failovers are immediate (YARN-11355).
  EXPECT_EQ(ipc::FailoverPause(p, 1, 3).count(), 0);
  EXPECT_EQ(ipc::FailoverPause(p, 2, 3).count(), 100);
}

TEST(FailoverPolicyTest, EnvironmentFormRoundTrips) {
  FailoverPolicy p{.max_failovers = 4, .sleep_base = 50ms, .sleep_max = 70ms, .connect_retries = 2};
  FailoverPolicy q = ParseFailoverPolicy(FormatFailoverPolicy(p));
  EXPECT_EQ(q.max_failovers, 4);
  EXPECT_EQ(q.sleep_base, 50ms);
  EXPECT_EQ(q.sleep_max, 70ms);
  EXPECT_EQ(q.connect_retries, 2);
  EXPECT_EQ(ParseFailoverPolicy("garbage").max_failovers, FailoverPolicy().max_failovers);
}

TEST(FailoverPolicyTest, WhatFailsOverAndWhatDoesNot) {
  EXPECT_EQ(ipc::ClassifyFailure(Unavailable("connecting to h:1: Connection refused")),
            FailureAction::kFailover);
  EXPECT_EQ(ipc::ClassifyFailure(DeadlineExceeded("call 3 timed out")), FailureAction::kFailover);
  EXPECT_EQ(ipc::ClassifyFailure(Unavailable(
                "org.apache.hadoop.ipc.StandbyException: Operation category READ is not "
                "supported in state standby")),
            FailureAction::kFailover);
  EXPECT_EQ(ipc::ClassifyFailure(Unavailable("org.apache.hadoop.ipc.RetriableException: busy")),
            FailureAction::kRetrySame);
  EXPECT_EQ(ipc::ClassifyFailure(Unavailable(
                "allocate: org.apache.hadoop.ipc.ServerTooBusyException: queue is full")),
            FailureAction::kRetrySame);
  EXPECT_EQ(ipc::ClassifyFailure(
                NotFound("org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException: x")),
            FailureAction::kFail);
  EXPECT_EQ(ipc::ClassifyFailure(PermissionDenied("AccessControlException")), FailureAction::kFail);
}

// A loopback port nobody listens on: bound, then closed.
uint16_t DeadPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

TEST(FailoverRpcClientTest, GoesRoundTheServersWithBoundedFailoversAndBackoff) {
  std::vector<ipc::ServerAddress> servers{{"rm1", "127.0.0.1", DeadPort()},
                                          {"rm2", "127.0.0.1", DeadPort()}};
  ipc::ConnectionOptions o;
  o.protocol = "org.apache.hadoop.yarn.api.ApplicationClientProtocolPB";
  std::vector<int64_t> slept;
  ipc::FailoverRpcClient client(
      servers, o, "ResourceManager",
      FailoverPolicy{.max_failovers = 4, .sleep_base = 10ms, .sleep_max = 25ms}, {},
      [&](std::chrono::milliseconds d) { slept.push_back(d.count()); });
  ::hadoop::yarn::GetNewApplicationRequestProto req;
  ::hadoop::yarn::GetNewApplicationResponseProto resp;
  Status s = client.Call("getNewApplication", req, &resp, 2s);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  // 4 failovers: rm1 -> rm2 at once, then rm1, rm2, rm1 after 10, 20, 25 (capped) ms; no
  // connection retries within one server (yarn.client.failover-retries = 0).
  EXPECT_EQ(slept, (std::vector<int64_t>{10, 20, 25}));
  EXPECT_NE(s.message().find("after 4 failovers"), std::string::npos) << s.message();
  EXPECT_EQ(client.Current().name, "rm1");
}

// One Hadoop IPC server connection on loopback (docs/hadoop-ipc.md §1): reads the preamble, the
// connection context and one call, and answers it with StandbyException (as a standby RM or NN
// does) or with an empty GetNewApplicationResponseProto.
class IpcStub {
 public:
  explicit IpcStub(bool standby) {
    fd_ = ListenOnLoopback(1, &port_);
    thread_ = std::thread([this, standby] { Serve(standby); });
  }
  ~IpcStub() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  uint16_t port() const { return port_; }
  std::atomic<int> calls{0};

 private:
  static bool ReadN(int c, size_t n, std::string* out) {
    out->clear();
    char buf[4096];
    while (out->size() < n) {
      ssize_t r = ::recv(c, buf, std::min(sizeof(buf), n - out->size()), 0);
      if (r <= 0) return false;
      out->append(buf, static_cast<size_t>(r));
    }
    return true;
  }
  static bool ReadFrame(int c, std::string* body) {
    std::string len;
    return ReadN(c, 4, &len) && ReadN(c, ipc::ReadBigEndian32(len.data()), body);
  }

  void Serve(bool standby) {
    int c = ::accept(fd_, nullptr, nullptr);
    if (c < 0) return;
    std::string preamble, context, call;
    if (ReadN(c, 7, &preamble) && ReadFrame(c, &context) && ReadFrame(c, &call)) {
      size_t pos = 0;
      uint32_t n = 0;
      ::hadoop::common::RpcRequestHeaderProto request;
      if (ipc::ReadVarint32(call, &pos, &n) && request.ParseFromString(call.substr(pos, n))) {
        ++calls;
        ::hadoop::common::RpcResponseHeaderProto header;
        header.set_callid(static_cast<uint32_t>(request.callid()));
        std::string frame;
        if (standby) {
          header.set_status(::hadoop::common::RpcResponseHeaderProto::ERROR);
          header.set_exceptionclassname("org.apache.hadoop.ipc.StandbyException");
          header.set_errormsg("Operation category READ is not supported in state standby");
          frame = ipc::BuildFrame({&header});
        } else {
          header.set_status(::hadoop::common::RpcResponseHeaderProto::SUCCESS);
          ::hadoop::yarn::GetNewApplicationResponseProto response;
          frame = ipc::BuildFrame({&header, &response});
        }
        (void)::send(c, frame.data(), frame.size(), MSG_NOSIGNAL);
      }
    }
    char buf[256];
    while (::recv(c, buf, sizeof(buf), 0) > 0) {
    }
    ::close(c);
  }

  int fd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
};

TEST(FailoverRpcClientTest, StandbyExceptionSendsTheCallToTheNextServer) {
  IpcStub standby(/*standby=*/true);
  IpcStub active(/*standby=*/false);
  std::vector<ipc::ServerAddress> servers{{"rm1", "127.0.0.1", standby.port()},
                                          {"rm2", "127.0.0.1", active.port()}};
  ipc::ConnectionOptions o;
  o.protocol = "org.apache.hadoop.yarn.api.ApplicationClientProtocolPB";
  std::vector<int64_t> slept;
  ipc::FailoverRpcClient client(servers, o, "ResourceManager", FailoverPolicy{}, {},
                                [&](std::chrono::milliseconds d) { slept.push_back(d.count()); });
  ::hadoop::yarn::GetNewApplicationRequestProto req;
  ::hadoop::yarn::GetNewApplicationResponseProto resp;
  Status s = client.Call("getNewApplication", req, &resp, 5s);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(standby.calls.load(), 1);
  EXPECT_EQ(active.calls.load(), 1);
  EXPECT_TRUE(slept.empty());  // the first round is immediate
  EXPECT_EQ(client.Current().name, "rm2");
  client.CloseConnection();
}

TEST(WebHdfsTest, StandbyReplyIsRecognized) {
  EXPECT_TRUE(hdfs::IsStandbyReply(
      403, R"({"RemoteException":{"exception":"StandbyException","javaClassName":)"
           R"("org.apache.hadoop.ipc.StandbyException","message":"Operation category READ is not )"
           R"(supported in state standby"}})"));
  EXPECT_FALSE(
      hdfs::IsStandbyReply(403, R"({"RemoteException":{"exception":"AccessControlException"}})"));
  EXPECT_FALSE(hdfs::IsStandbyReply(200, "StandbyException"));
}

TEST(WebHdfsTest, SkipsTheStandbyNameNodeAndStaysWithTheActiveOne) {
  HttpStub standby("HTTP/1.1 403 Forbidden",
                   R"({"RemoteException":{"exception":"StandbyException","javaClassName":)"
                   R"("org.apache.hadoop.ipc.StandbyException","message":"Operation category )"
                   R"(READ is not supported in state standby"}})",
                   1);
  HttpStub active("HTTP/1.1 200 OK",
                  R"({"FileStatus":{"length":7,"modificationTime":42,"type":"FILE"}})", 2);
  hdfs::WebHdfs fs(standby.address() + "," + active.address(), "me");
  auto first = fs.GetFileStatus("/x");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->length, 7);
  auto second = fs.GetFileStatus("/x");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(standby.served.load(), 1);  // the second request went straight to the active one
  EXPECT_EQ(active.served.load(), 2);
}

TEST(WebHdfsTest, SkipsDeadNameNodesAndSaysWhichWereTried) {
  std::string dead1 = "127.0.0.1:" + std::to_string(DeadPort());
  std::string dead2 = "127.0.0.1:" + std::to_string(DeadPort());
  hdfs::WebHdfs fs(dead1 + "," + dead2, "me");
  auto st = fs.GetFileStatus("/x");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.status().message().find("no active NameNode among " + dead1 + ", " + dead2),
            std::string::npos)
      << st.status().message();
}

}  // namespace
}  // namespace tony::hadoop
