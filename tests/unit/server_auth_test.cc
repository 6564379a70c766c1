// The control plane's limits (rpc/server_auth.h, issue 28): the secret compared on a call's
// headers, a call without it refused before any handler runs, a request over kMaxRequestBytes
// refused, and the largest legitimate messages within the limits.
#include "rpc/server_auth.h"

#include <grpc/slice.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "rpc/client.h"
#include "tests/unit/counting_service.h"

namespace tony::rpc {
namespace {

TEST(SecretMatches, OnlyTheWholeSecret) {
  EXPECT_TRUE(SecretMatches("s3cret", "s3cret"));
  EXPECT_FALSE(SecretMatches("s3cre", "s3cret"));
  EXPECT_FALSE(SecretMatches("s3cret!", "s3cret"));
  EXPECT_FALSE(SecretMatches("S3cret", "s3cret"));
  EXPECT_FALSE(SecretMatches("", "s3cret"));
  EXPECT_FALSE(SecretMatches("", ""));
}

grpc_metadata Entry(const char* key, const char* value) {
  grpc_metadata entry{};
  entry.key = grpc_slice_from_static_string(key);
  entry.value = grpc_slice_from_static_string(value);
  return entry;
}

TEST(SecretInMetadata, FindsTheSecretAmongOtherHeaders) {
  std::vector<grpc_metadata> headers = {Entry("user-agent", "s3cret"),
                                        Entry(kSecretMetadataKey, "s3cret")};
  EXPECT_TRUE(SecretInMetadata(headers.data(), headers.size(), "s3cret"));
  EXPECT_FALSE(SecretInMetadata(headers.data(), headers.size(), "other"));
  EXPECT_FALSE(SecretInMetadata(headers.data(), 1, "s3cret"));  // only under its own key
  EXPECT_FALSE(SecretInMetadata(nullptr, 0, "s3cret"));
}

class SecretCheckingServer : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", SecretCheckingServerCredentials("s3cret"), &port_);
    builder.RegisterService(&service_);
    builder.SetMaxReceiveMessageSize(kMaxRequestBytes);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ASSERT_NE(port_, 0);
    grpc::ChannelArguments args;
    args.SetMaxSendMessageSize(-1);  // as a peer flooding the port would
    stub_ = Coordinator::NewStub(grpc::CreateCustomChannel(
        "127.0.0.1:" + std::to_string(port_), grpc::InsecureChannelCredentials(), args));
  }
  void TearDown() override { server_->Shutdown(); }

  grpc::Status Call(const char* secret, size_t pad_bytes) {
    GetJobStatusRequest req;
    if (pad_bytes > 0) {
      req.GetReflection()->MutableUnknownFields(&req)->AddLengthDelimited(
          1000, std::string(pad_bytes, 'x'));
    }
    grpc::ClientContext ctx;
    if (secret != nullptr) ctx.AddMetadata(kSecretMetadataKey, secret);
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    JobStatus resp;
    return stub_->GetJobStatus(&ctx, req, &resp);
  }

  CountingService service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<Coordinator::Stub> stub_;
};

TEST_F(SecretCheckingServer, RefusesCallsWithoutTheSecretBeforeTheHandler) {
  EXPECT_EQ(Call(nullptr, 0).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Call("wrong!", 0).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Call(nullptr, 32 << 20).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(service_.handled.load(), 0);
  EXPECT_TRUE(Call("s3cret", 0).ok());
  EXPECT_EQ(service_.handled.load(), 1);
}

TEST_F(SecretCheckingServer, RefusesARequestOverTheLimitEvenWithTheSecret) {
  EXPECT_EQ(Call("s3cret", kMaxRequestBytes + 1).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(Call("s3cret", kMaxRequestBytes / 2).ok());
  EXPECT_EQ(service_.handled.load(), 1);
}

// The limits' reasons, measured: the largest requests an executor sends (1 MiB of model
// parameters or of a stall's stacks, executor/report.cc and executor/stall_watch.cc) fit the
// request limit three times over, and a status of a 10,000-task job with every field filled fits
// the response limit.
TEST(MessageLimits, HoldTheLargestLegitimateMessages) {
  ReportResultRequest report;
  report.mutable_task()->set_role("worker");
  report.set_diagnostics(std::string(8 << 10, 'e'));
  report.set_model_params(std::string(1 << 20, 'p'));
  EXPECT_LT(report.ByteSizeLong() * 3, static_cast<size_t>(kMaxRequestBytes));
  HeartbeatRequest heartbeat;
  heartbeat.set_stall(std::string((1 << 20) + 512, 's'));
  EXPECT_LT(heartbeat.ByteSizeLong() * 3, static_cast<size_t>(kMaxRequestBytes));

  JobStatus status;
  status.set_job_id("application_1700000000000_0001");
  for (int i = 0; i < 10000; ++i) {
    TaskStatus* task = status.add_tasks();
    task->set_role("worker");
    task->set_index(i);
    task->set_state("SUCCEEDED");
    task->set_host("node-" + std::to_string(i) + ".cluster.example.com");
    task->set_port(40000 + i);
    task->set_exit_code(0);
    task->set_container_id("container_1700000000000_0001_01_" + std::to_string(100000 + i));
    task->set_log_dir("/var/log/hadoop-yarn/containers/application_1700000000000_0001/x");
    task->set_log_url("http://node.cluster.example.com:8042/node/containerlogs/container_x/");
    task->set_node("node-" + std::to_string(i) + ".cluster.example.com:45454");
    task->set_end_reason("the user process exited 0");
  }
  EXPECT_LT(status.ByteSizeLong(), 4u << 20);  // about 3 MiB: rpc/client.h
  EXPECT_LT(status.ByteSizeLong() * 16, static_cast<size_t>(kMaxResponseBytes));
}

}  // namespace
}  // namespace tony::rpc
