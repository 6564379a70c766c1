// Integration test (label "yarn"): hadoop/ipc against a real MiniYARNCluster with 2 NodeManagers.
//
// Client side over SIMPLE auth (docs/hadoop-ipc.md §2.1): cluster metrics, new application ids,
// many calls multiplexed on one connection, a remote exception. AM side over SASL TOKEN/DIGEST-MD5
// (§1.9, §2.2): an unmanaged AM's AMRMToken registers with the scheduler; a forged token and
// SIMPLE auth are refused there.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>
#include <thread>

#include "applicationclient_protocol.pb.h"
#include "applicationmaster_protocol.pb.h"
#include "common/log.h"
#include "hadoop/hdfs/webhdfs.h"
#include "hadoop/ipc/client.h"
#include "hadoop/yarn/clients.h"
#include "tests/hadoop/minicluster.h"
#include "yarn_security_token.pb.h"
#include "yarn_service_protos.pb.h"

namespace tony::hadoop::ipc {
namespace {

using namespace std::chrono_literals;
namespace yarn_pb = ::hadoop::yarn;
namespace yarn = ::tony::hadoop::yarn;
namespace hdfs = ::tony::hadoop::hdfs;

// §4.1: protocol names, version 1.
constexpr char kClientProtocol[] = "org.apache.hadoop.yarn.api.ApplicationClientProtocolPB";
constexpr char kMasterProtocol[] = "org.apache.hadoop.yarn.api.ApplicationMasterProtocolPB";
constexpr auto kCallTimeout = 30s;

class YarnIpcTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const char* script = std::getenv("TONY_MINICLUSTER_START");
    ASSERT_NE(script, nullptr) << "TONY_MINICLUSTER_START must name tests/minicluster/start.sh";
    auto mc = testing::MiniCluster::Start({.start_script = script, .node_managers = 2});
    ASSERT_TRUE(mc.ok()) << mc.status().ToString();
    cluster_ = std::move(mc).value().release();
    std::cerr << "minicluster ready in " << cluster_->start_duration().count() << " ms at "
              << cluster_->conf_dir() << "\n";
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }

  void SetUp() override { ASSERT_NE(cluster_, nullptr); }

  ConnectionOptions Options(const std::string& key, const char* protocol) {
    auto addr = cluster_->Address("yarn-site.xml", key);
    EXPECT_TRUE(addr.ok()) << addr.status().ToString();
    ConnectionOptions o;
    if (addr.ok()) std::tie(o.host, o.port) = *addr;
    o.protocol = protocol;
    return o;
  }
  ConnectionOptions ClientOptions() {
    return Options("yarn.resourcemanager.address", kClientProtocol);
  }
  ConnectionOptions SchedulerOptions() {
    return Options("yarn.resourcemanager.scheduler.address", kMasterProtocol);
  }

  static testing::MiniCluster* cluster_;
};

testing::MiniCluster* YarnIpcTest::cluster_ = nullptr;

TEST_F(YarnIpcTest, ClusterMetricsCountTwoNodeManagers) {
  RpcClient client(ClientOptions());
  yarn_pb::GetClusterMetricsRequestProto request;
  yarn_pb::GetClusterMetricsResponseProto response;
  // The harness waits for both NodeManagers to be active; poll briefly all the same.
  auto deadline = std::chrono::steady_clock::now() + 20s;
  do {
    Status s = client.Call("getClusterMetrics", request, &response, kCallTimeout);
    ASSERT_TRUE(s.ok()) << s.ToString();
    if (response.cluster_metrics().num_node_managers() == 2) break;
    std::this_thread::sleep_for(200ms);
  } while (std::chrono::steady_clock::now() < deadline);
  EXPECT_EQ(response.cluster_metrics().num_node_managers(), 2);
  EXPECT_EQ(response.cluster_metrics().num_active_nms(), 2);
}

TEST_F(YarnIpcTest, NewApplicationIdsOverOneMultiplexedConnection) {
  RpcClient client(ClientOptions());
  yarn_pb::GetNewApplicationRequestProto request;
  yarn_pb::GetNewApplicationResponseProto first;
  Status s = client.Call("getNewApplication", request, &first, kCallTimeout);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_GT(first.application_id().id(), 0);
  EXPECT_GT(first.application_id().cluster_timestamp(), 0);
  EXPECT_GT(first.maximumcapability().memory(), 0);

  // Eight threads share the one connection; every reply must reach its own caller (§1.2).
  constexpr int kThreads = 8;
  std::vector<int> ids(kThreads, -1);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      yarn_pb::GetNewApplicationResponseProto r;
      if (client.Call("getNewApplication", request, &r, kCallTimeout).ok()) {
        ids[i] = r.application_id().id();
      }
    });
  }
  for (auto& t : threads) t.join();
  std::set<int> distinct(ids.begin(), ids.end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kThreads));
  EXPECT_FALSE(distinct.contains(-1));
}

TEST_F(YarnIpcTest, UnknownApplicationIsNotFound) {
  RpcClient client(ClientOptions());
  yarn_pb::GetApplicationReportRequestProto request;
  request.mutable_application_id()->set_id(9999);
  request.mutable_application_id()->set_cluster_timestamp(1);
  yarn_pb::GetApplicationReportResponseProto response;
  Status s = client.Call("getApplicationReport", request, &response, kCallTimeout);
  EXPECT_EQ(s.code(), StatusCode::kNotFound) << s.ToString();
  EXPECT_NE(s.message().find("ApplicationNotFoundException"), std::string::npos) << s.ToString();
  // The connection survives an ERROR reply (§1.7).
  yarn_pb::GetClusterMetricsResponseProto metrics;
  EXPECT_TRUE(client
                  .Call("getClusterMetrics", yarn_pb::GetClusterMetricsRequestProto(), &metrics,
                        kCallTimeout)
                  .ok());
}

TEST_F(YarnIpcTest, SchedulerRefusesSimpleAuth) {
  // §1.1: the AM service has SIMPLE disabled; the FATAL reply fails the first call.
  RpcClient client(SchedulerOptions(), RetryPolicy{.max_connect_attempts = 1});
  yarn_pb::RegisterApplicationMasterRequestProto request;
  yarn_pb::RegisterApplicationMasterResponseProto response;
  Status s = client.Call("registerApplicationMaster", request, &response, kCallTimeout);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("AccessControlException"), std::string::npos) << s.ToString();
}

TEST_F(YarnIpcTest, SchedulerRefusesForgedToken) {
  // A well-formed AMRMTokenIdentifierProto with a made-up password, and plain garbage.
  yarn_pb::AMRMTokenIdentifierProto id;
  id.mutable_appattemptid()->mutable_application_id()->set_id(1);
  id.mutable_appattemptid()->mutable_application_id()->set_cluster_timestamp(1);
  id.mutable_appattemptid()->set_attemptid(1);
  id.set_keyid(1);
  for (const std::string& identifier : {id.SerializeAsString(), std::string("garbage")}) {
    ConnectionOptions o = SchedulerOptions();
    o.auth = AuthMethod::kToken;
    o.token = security::Token{identifier, "not the password", "YARN_AM_RM_TOKEN", ""};
    auto conn = Connection::Open(o);
    ASSERT_FALSE(conn.ok());
    EXPECT_EQ(conn.status().code(), StatusCode::kUnauthenticated) << conn.status().ToString();
    std::cerr << "forged token refused: " << conn.status().ToString() << "\n";
  }
}

// An unmanaged AM (§4.3): submit, wait for the AMRMToken in the report, then register and
// unregister over SASL TOKEN/DIGEST-MD5.
TEST_F(YarnIpcTest, UnmanagedAmRegistersWithItsAmRmToken) {
  RpcClient client(ClientOptions());
  yarn_pb::GetNewApplicationResponseProto app;
  ASSERT_TRUE(
      client.Call("getNewApplication", yarn_pb::GetNewApplicationRequestProto(), &app, kCallTimeout)
          .ok());
  yarn_pb::SubmitApplicationRequestProto submit;
  auto* ctx = submit.mutable_application_submission_context();
  *ctx->mutable_application_id() = app.application_id();
  ctx->set_application_name("tony-ipc-it");
  ctx->set_unmanaged_am(true);
  ctx->mutable_am_container_spec();
  ctx->mutable_resource()->set_memory(128);
  ctx->mutable_resource()->set_virtual_cores(1);
  yarn_pb::SubmitApplicationResponseProto submitted;
  Status s = client.Call("submitApplication", submit, &submitted, kCallTimeout);
  ASSERT_TRUE(s.ok()) << s.ToString();

  yarn_pb::GetApplicationReportRequestProto report_request;
  *report_request.mutable_application_id() = app.application_id();
  yarn_pb::GetApplicationReportResponseProto report;
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    s = client.Call("getApplicationReport", report_request, &report, kCallTimeout);
    ASSERT_TRUE(s.ok()) << s.ToString();
    if (report.application_report().has_am_rm_token()) break;
    std::this_thread::sleep_for(200ms);
  }
  ASSERT_TRUE(report.application_report().has_am_rm_token())
      << "no AMRMToken; state " << report.application_report().yarn_application_state();
  const auto& tp = report.application_report().am_rm_token();

  ConnectionOptions o = SchedulerOptions();
  o.auth = AuthMethod::kToken;
  o.token = security::Token{tp.identifier(), tp.password(), tp.kind(), tp.service()};
  RpcClient am(o);
  yarn_pb::RegisterApplicationMasterRequestProto reg;
  reg.set_host("localhost");
  reg.set_rpc_port(-1);
  reg.set_tracking_url("");
  yarn_pb::RegisterApplicationMasterResponseProto registered;
  s = am.Call("registerApplicationMaster", reg, &registered, kCallTimeout);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_GT(registered.maximumcapability().memory(), 0);

  yarn_pb::FinishApplicationMasterRequestProto finish;
  finish.set_final_application_status(yarn_pb::APP_SUCCEEDED);
  finish.set_diagnostics("tony ipc integration test");
  yarn_pb::FinishApplicationMasterResponseProto finished;
  deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline) {
    s = am.Call("finishApplicationMaster", finish, &finished, kCallTimeout);
    ASSERT_TRUE(s.ok()) << s.ToString();
    if (finished.isunregistered()) break;
    std::this_thread::sleep_for(100ms);  // §4.4: may answer false first
  }
  EXPECT_TRUE(finished.isunregistered());
}

// --- hadoop/yarn typed clients and hadoop/hdfs, on the same minicluster ---------------------

TEST_F(YarnIpcTest, TypedClientSeesBothNodeManagers) {
  auto addr = cluster_->Address("yarn-site.xml", "yarn.resourcemanager.address");
  ASSERT_TRUE(addr.ok());
  yarn::ApplicationClient rm(addr->first, addr->second);
  auto nodes = rm.GetClusterNodes();
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  EXPECT_EQ(nodes->size(), 2u);
  for (const auto& n : *nodes) EXPECT_GT(n.capability().memory(), 0);
  auto metrics = rm.GetClusterMetrics();
  ASSERT_TRUE(metrics.ok()) << metrics.status().ToString();
  EXPECT_EQ(metrics->num_node_managers(), 2);
  auto report = rm.GetApplicationReport(*yarn::ParseApplicationId("application_1_9999"));
  EXPECT_EQ(report.status().code(), StatusCode::kNotFound);
}

// getQueueInfo (§4.3): what tony's pre-submit fit check reads of a queue. The minicluster's
// CapacityScheduler has one queue, default, at 100% of the cluster; shares are fractions, and the
// default partition's absolute ones are in queueConfigurationsMap. An unknown queue is no error:
// the RM answers an empty QueueInfo.
TEST_F(YarnIpcTest, TypedClientReportsTheDefaultQueuesCapacity) {
  auto addr = cluster_->Address("yarn-site.xml", "yarn.resourcemanager.address");
  ASSERT_TRUE(addr.ok());
  yarn::ApplicationClient rm(addr->first, addr->second);
  auto queue = rm.GetQueueInfo("default");
  ASSERT_TRUE(queue.ok()) << queue.status().ToString();
  EXPECT_EQ(queue->queuename(), "default");
  EXPECT_FLOAT_EQ(queue->maximumcapacity(), 1.0f);
  EXPECT_EQ(queue->schedulertype(), "CapacityScheduler");
  bool default_partition = false;
  for (const auto& entry : queue->queueconfigurationsmap()) {
    if (!entry.partitionname().empty()) continue;
    default_partition = true;
    EXPECT_FLOAT_EQ(entry.queueconfigurations().absolutemaxcapacity(), 1.0f);
    EXPECT_FLOAT_EQ(entry.queueconfigurations().maxampercentage(), 1.0f);
  }
  EXPECT_TRUE(default_partition) << queue->DebugString();
  auto unknown = rm.GetQueueInfo("no-such-queue");
  ASSERT_TRUE(unknown.ok()) << unknown.status().ToString();
  EXPECT_FALSE(unknown->has_queuename());
  EXPECT_FALSE(unknown->has_maximumcapacity());
}

// An unmanaged AM through the typed clients: asks for 2 containers (one priority), gets them with
// their NMTokens, starts one that exits 7 and one that sleeps, stops the sleeper (-105, §4.5),
// and unregisters; the ask total is not re-sent (no excess containers).
TEST_F(YarnIpcTest, TypedAmAllocatesStartsAndStopsContainers) {
  auto addr = cluster_->Address("yarn-site.xml", "yarn.resourcemanager.address");
  auto sched = cluster_->Address("yarn-site.xml", "yarn.resourcemanager.scheduler.address");
  ASSERT_TRUE(addr.ok() && sched.ok());
  yarn::ApplicationClient rm(addr->first, addr->second);
  auto app = rm.GetNewApplication();
  ASSERT_TRUE(app.ok()) << app.status().ToString();
  yarn::Submission sub;
  sub.application_id = app->application_id();
  sub.name = "tony-typed-it";
  sub.tags = {"tony-it"};
  sub.am_resource = {128, 1, 0};
  auto ctx = yarn::BuildSubmissionContext(sub);
  ctx.set_unmanaged_am(true);
  ASSERT_TRUE(rm.SubmitApplication(ctx).ok());
  yarn::pb::ApplicationReportProto report;
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = rm.GetApplicationReport(app->application_id());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    report = *r;
    if (report.has_am_rm_token()) break;
    std::this_thread::sleep_for(200ms);
  }
  ASSERT_TRUE(report.has_am_rm_token());
  EXPECT_EQ(report.applicationtype(), "TONY");

  yarn::AmRmClient am(sched->first, sched->second, yarn::FromProto(report.am_rm_token()));
  ASSERT_TRUE(am.Register("localhost", -1, "").ok());
  am.AddContainerRequest(1, {128, 1, 0}, "", 2);
  std::vector<yarn::pb::ContainerProto> got;
  deadline = std::chrono::steady_clock::now() + 60s;
  while (got.size() < 2 && std::chrono::steady_clock::now() < deadline) {
    auto r = am.Allocate(0.1f);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (const auto& c : r->allocated_containers()) {
      EXPECT_TRUE(am.OnContainerAllocated(c.priority().priority()));
      got.push_back(c);
    }
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(am.Outstanding(), 0);

  yarn::NmClient nm;
  std::map<std::string, int> expected;
  for (size_t i = 0; i < got.size(); ++i) {
    const auto& c = got[i];
    std::optional<security::Token> token =
        am.NmToken(c.nodeid().host() + ":" + std::to_string(c.nodeid().port()));
    ASSERT_TRUE(token.has_value()) << "no NMToken for " << c.nodeid().host();
    yarn::pb::ContainerLaunchContextProto launch;
    yarn::AddEnvironment(&launch, "TONY_IT", "1");
    launch.add_command(i == 0 ? "exit 7" : "sleep 60");
    Status s = nm.StartContainer(c, launch, *token);
    ASSERT_TRUE(s.ok()) << s.ToString();
    expected[yarn::ContainerIdString(c.id())] = i == 0 ? 7 : -105;
  }
  std::this_thread::sleep_for(1s);
  const auto& sleeper = got[1];
  std::optional<security::Token> token =
      am.NmToken(sleeper.nodeid().host() + ":" + std::to_string(sleeper.nodeid().port()));
  ASSERT_TRUE(token.has_value());
  auto st = nm.GetContainerStatus(sleeper.id(), sleeper.nodeid(), *token);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  ASSERT_TRUE(nm.StopContainer(sleeper.id(), sleeper.nodeid(), *token).ok());

  std::map<std::string, int> completed;
  deadline = std::chrono::steady_clock::now() + 60s;
  while (completed.size() < 2 && std::chrono::steady_clock::now() < deadline) {
    auto r = am.Allocate(0.5f);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->allocated_containers_size(), 0) << "excess allocation";
    for (const auto& c : r->completed_container_statuses()) {
      completed[yarn::ContainerIdString(c.container_id())] = c.exit_status();
    }
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_EQ(completed, expected);
  Status s = am.Finish(yarn::pb::APP_SUCCEEDED, "typed it", "", 30s);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(YarnIpcTest, WebHdfsCreateStatusOpenDelete) {
  auto http = cluster_->Property("hdfs-site.xml", "dfs.namenode.http-address");
  ASSERT_TRUE(http.ok()) << http.status().ToString();
  hdfs::WebHdfs fs(*http, DefaultUserName());
  std::string dir = "/user/" + DefaultUserName() + "/.tony/it";
  ASSERT_TRUE(fs.Mkdirs(dir, "700").ok());
  std::string data(100000, 'x');
  Status s = fs.Create(dir + "/a.bin", data);
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto st = fs.GetFileStatus(dir + "/a.bin");
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->length, 100000);
  EXPECT_GT(st->modification_time, 0);
  EXPECT_EQ(st->type, "FILE");
  auto back = fs.Open(dir + "/a.bin");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, data);
  EXPECT_EQ(fs.GetFileStatus(dir + "/missing").status().code(), StatusCode::kNotFound);
  auto deleted = fs.Delete(dir);
  ASSERT_TRUE(deleted.ok());
  EXPECT_TRUE(*deleted);
  EXPECT_EQ(fs.GetFileStatus(dir).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace tony::hadoop::ipc
