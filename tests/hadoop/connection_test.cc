// Connection and RpcClient against a scripted fake server on loopback: handshakes (SIMPLE and
// SASL TOKEN/DIGEST-MD5), multiplexed out-of-order replies, errors, timeouts, retries.
#include "hadoop/ipc/connection.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <future>
#include <thread>

#include "IpcConnectionContext.pb.h"
#include "ProtobufRpcEngine.pb.h"
#include "RpcHeader.pb.h"
#include "hadoop/ipc/client.h"
#include "hadoop/ipc/digest_md5.h"
#include "hadoop/ipc/socket.h"
#include "hadoop/ipc/wire.h"
#include "yarn_service_protos.pb.h"

namespace tony::hadoop::ipc {
namespace {

using namespace std::chrono_literals;
using ::hadoop::common::RpcRequestHeaderProto;
using ::hadoop::common::RpcResponseHeaderProto;
using ::hadoop::common::RpcSaslProto;

constexpr char kProtocol[] = "org.apache.hadoop.yarn.api.ApplicationClientProtocolPB";

// The server side of one accepted connection, for scripts.
class Peer {
 public:
  explicit Peer(int fd) : fd_(fd) {}
  ~Peer() { ::close(fd_); }

  std::string ReadBytes(size_t n) {
    std::string out;
    EXPECT_TRUE(ReadExactly(fd_, n, &out, std::chrono::steady_clock::now() + 10s).ok());
    return out;
  }
  // Blocks until the client closes the connection.
  void WaitForClose() {
    char buf[256];
    while (::recv(fd_, buf, sizeof(buf), 0) > 0) {
    }
  }
  // One frame, split into its delimited messages.
  std::vector<std::string> ReadFrame() {
    std::string len = ReadBytes(4);
    if (len.size() != 4) return {};
    std::string body = ReadBytes(ReadBigEndian32(len.data()));
    std::vector<std::string> parts;
    size_t pos = 0;
    while (pos < body.size()) {
      uint32_t n = 0;
      if (!ReadVarint32(body, &pos, &n) || n > body.size() - pos) return {};
      parts.push_back(body.substr(pos, n));
      pos += n;
    }
    return parts;
  }
  void Reply(int32_t call_id, RpcResponseHeaderProto::RpcStatusProto status,
             const google::protobuf::MessageLite* payload, std::string java_class = "",
             std::string error = "") {
    RpcResponseHeaderProto header;
    header.set_callid(static_cast<uint32_t>(call_id));
    header.set_status(status);
    if (!java_class.empty()) header.set_exceptionclassname(java_class);
    if (!error.empty()) header.set_errormsg(error);
    std::vector<const google::protobuf::MessageLite*> parts = {&header};
    if (payload != nullptr) parts.push_back(payload);
    EXPECT_TRUE(WriteAll(fd_, BuildFrame(parts)).ok());
  }

 private:
  int fd_;
};

// Listens on 127.0.0.1:0 and runs `script` on the first accepted connection.
class FakeServer {
 public:
  explicit FakeServer(std::function<void(Peer&)> script) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(::listen(listen_fd_, 4), 0);
    socklen_t len = sizeof(addr);
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this, script = std::move(script)] {
      int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) return;
      Peer peer(fd);
      script(peer);
    });
  }
  ~FakeServer() {
    ::shutdown(listen_fd_, SHUT_RDWR);
    thread_.join();
    ::close(listen_fd_);
  }
  uint16_t port() const { return port_; }

 private:
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
};

ConnectionOptions Options(uint16_t port) {
  ConnectionOptions o;
  o.host = "127.0.0.1";
  o.port = port;
  o.protocol = kProtocol;
  o.user = "alice";
  return o;
}

::hadoop::yarn::GetNewApplicationResponseProto AppResponse(int id) {
  ::hadoop::yarn::GetNewApplicationResponseProto r;
  r.mutable_application_id()->set_id(id);
  r.mutable_application_id()->set_cluster_timestamp(42);
  return r;
}

// Reads the connection context and checks it (docs/hadoop-ipc.md §1.6); returns its user.
std::string ExpectContext(Peer& peer, std::string_view client_id) {
  auto parts = peer.ReadFrame();
  EXPECT_EQ(parts.size(), 2u);
  if (parts.size() != 2) return "";
  RpcRequestHeaderProto header;
  EXPECT_TRUE(header.ParseFromString(parts[0]));
  EXPECT_EQ(header.callid(), kConnectionContextCallId);
  EXPECT_EQ(header.retrycount(), -1);
  EXPECT_EQ(header.clientid(), client_id);
  ::hadoop::common::IpcConnectionContextProto context;
  EXPECT_TRUE(context.ParseFromString(parts[1]));
  EXPECT_EQ(context.protocol(), kProtocol);
  EXPECT_TRUE(context.has_userinfo());
  return context.userinfo().effectiveuser();
}

// Reads one call frame; returns its call id and checks the method.
int32_t ExpectCall(Peer& peer, std::string_view method) {
  auto parts = peer.ReadFrame();
  EXPECT_EQ(parts.size(), 3u);
  if (parts.size() != 3) return -100;
  RpcRequestHeaderProto header;
  EXPECT_TRUE(header.ParseFromString(parts[0]));
  ::hadoop::common::RequestHeaderProto request_header;
  EXPECT_TRUE(request_header.ParseFromString(parts[1]));
  EXPECT_EQ(request_header.methodname(), method);
  EXPECT_EQ(request_header.declaringclassprotocolname(), kProtocol);
  EXPECT_EQ(request_header.clientprotocolversion(), 1u);
  return header.callid();
}

TEST(HadoopConnectionTest, SimpleHandshakeAndOutOfOrderReplies) {
  std::string client_id(16, 'c');
  FakeServer server([&](Peer& peer) {
    EXPECT_EQ(peer.ReadBytes(7), Preamble(AuthProtocol::kNone));
    EXPECT_EQ(ExpectContext(peer, client_id), "alice");
    int32_t first = ExpectCall(peer, "getNewApplication");
    int32_t second = ExpectCall(peer, "getNewApplication");
    EXPECT_EQ(first, 0);
    EXPECT_EQ(second, 1);
    auto second_reply = AppResponse(2);
    peer.Reply(second, RpcResponseHeaderProto::SUCCESS, &second_reply);  // out of order
    peer.Reply(first, RpcResponseHeaderProto::ERROR, nullptr,
               "org.apache.hadoop.yarn.exceptions.YarnException", "queue is full");
    peer.WaitForClose();
  });
  ConnectionOptions o = Options(server.port());
  o.client_id = client_id;
  auto conn = Connection::Open(o);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();

  std::promise<Result<std::string>> first, second;
  ::hadoop::yarn::GetNewApplicationRequestProto request;
  (*conn)->AsyncCall("getNewApplication", request,
                     [&](Result<std::string> r) { first.set_value(std::move(r)); });
  (*conn)->AsyncCall("getNewApplication", request,
                     [&](Result<std::string> r) { second.set_value(std::move(r)); });
  Result<std::string> second_result = second.get_future().get();
  ASSERT_TRUE(second_result.ok()) << second_result.status().ToString();
  ::hadoop::yarn::GetNewApplicationResponseProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(*second_result));
  EXPECT_EQ(parsed.application_id().id(), 2);
  Result<std::string> first_result = first.get_future().get();
  EXPECT_EQ(first_result.status().code(), StatusCode::kInternal);
  EXPECT_EQ(first_result.status().message(),
            "org.apache.hadoop.yarn.exceptions.YarnException: queue is full");
  EXPECT_TRUE((*conn)->healthy());
}

TEST(HadoopConnectionTest, SaslTokenDigestMd5Handshake) {
  security::Token token{std::string("\x01\x02ident", 7), "secret-bytes", "YARN_AM_RM_TOKEN", ""};
  std::string client_id(16, 'd');
  FakeServer server([&](Peer& peer) {
    EXPECT_EQ(peer.ReadBytes(7), Preamble(AuthProtocol::kSasl));
    auto negotiate = peer.ReadFrame();
    ASSERT_EQ(negotiate.size(), 2u);
    RpcRequestHeaderProto header;
    ASSERT_TRUE(header.ParseFromString(negotiate[0]));
    EXPECT_EQ(header.callid(), kSaslCallId);
    EXPECT_EQ(header.clientid(), "");                     // §1.8
    EXPECT_EQ(negotiate[1], std::string("\x10\x01", 2));  // §1.9: state NEGOTIATE only

    RpcSaslProto offer;
    offer.set_state(RpcSaslProto::NEGOTIATE);
    auto* auth = offer.add_auths();
    auth->set_method("TOKEN");
    auth->set_mechanism("DIGEST-MD5");
    auth->set_protocol("");
    auth->set_serverid("default");
    auth->set_challenge(
        "realm=\"default\",nonce=\"n0nce\",qop=\"auth\",charset=utf-8,algorithm=md5-sess");
    offer.add_auths()->set_method("SIMPLE");
    offer.mutable_auths(1)->set_mechanism("");
    peer.Reply(kSaslCallId, RpcResponseHeaderProto::SUCCESS, &offer);

    auto initiate_frame = peer.ReadFrame();
    ASSERT_EQ(initiate_frame.size(), 2u);
    RpcSaslProto initiate;
    ASSERT_TRUE(initiate.ParseFromString(initiate_frame[1]));
    EXPECT_EQ(initiate.state(), RpcSaslProto::INITIATE);
    ASSERT_EQ(initiate.auths_size(), 1);
    EXPECT_EQ(initiate.auths(0).method(), "TOKEN");
    EXPECT_EQ(initiate.auths(0).serverid(), "default");
    EXPECT_FALSE(initiate.auths(0).has_challenge());  // §1.9 step 3

    auto fields = ParseDigestDirectives(initiate.token());
    ASSERT_TRUE(fields.ok());
    DigestInputs in;
    in.username = Base64Encode(token.identifier);  // §2.2
    in.password = Base64Encode(token.password);
    in.realm = "default";
    in.nonce = "n0nce";
    in.cnonce = (*fields)["cnonce"];
    in.digest_uri = "/default";
    EXPECT_EQ((*fields)["username"], in.username);
    EXPECT_EQ((*fields)["response"], DigestResponseValue(in, "AUTHENTICATE"));

    RpcSaslProto success;
    success.set_state(RpcSaslProto::SUCCESS);
    success.set_token("rspauth=" + DigestResponseValue(in, ""));
    peer.Reply(kSaslCallId, RpcResponseHeaderProto::SUCCESS, &success);

    EXPECT_EQ(ExpectContext(peer, client_id), "");  // TOKEN: empty userInfo (§1.6)
    int32_t id = ExpectCall(peer, "getNewApplication");
    auto reply = AppResponse(7);
    peer.Reply(id, RpcResponseHeaderProto::SUCCESS, &reply);
    peer.WaitForClose();
  });
  ConnectionOptions o = Options(server.port());
  o.auth = AuthMethod::kToken;
  o.token = token;
  o.client_id = client_id;
  auto conn = Connection::Open(o);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  ::hadoop::yarn::GetNewApplicationResponseProto response;
  Status s = (*conn)->Call("getNewApplication", ::hadoop::yarn::GetNewApplicationRequestProto(),
                           &response, 5s);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(response.application_id().id(), 7);
}

TEST(HadoopConnectionTest, FatalReplyFailsTheCallAndTheConnection) {
  FakeServer server([&](Peer& peer) {
    peer.ReadBytes(7);
    peer.ReadFrame();
    ExpectCall(peer, "getNewApplication");
    peer.Reply(kAuthorizationFailedCallId, RpcResponseHeaderProto::FATAL, nullptr,
               "org.apache.hadoop.security.AccessControlException",
               "SIMPLE authentication is not enabled.  Available:[TOKEN]");
  });
  auto conn = Connection::Open(Options(server.port()));
  ASSERT_TRUE(conn.ok());
  ::hadoop::yarn::GetNewApplicationResponseProto response;
  Status s = (*conn)->Call("getNewApplication", ::hadoop::yarn::GetNewApplicationRequestProto(),
                           &response, 5s);
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_NE(s.message().find("AccessControlException: SIMPLE authentication is not enabled"),
            std::string::npos);
  EXPECT_FALSE((*conn)->healthy());
  s = (*conn)->Call("getNewApplication", ::hadoop::yarn::GetNewApplicationRequestProto(), &response,
                    5s);
  EXPECT_FALSE(s.ok());
}

TEST(HadoopConnectionTest, TimedOutCallIsForgottenAndTheConnectionGoesOn) {
  FakeServer server([&](Peer& peer) {
    peer.ReadBytes(7);
    peer.ReadFrame();
    int32_t slow = ExpectCall(peer, "getNewApplication");
    int32_t fast = ExpectCall(peer, "getNewApplication");  // sent after `slow` timed out
    auto late = AppResponse(1);
    auto reply = AppResponse(2);
    peer.Reply(slow, RpcResponseHeaderProto::SUCCESS, &late);  // dropped by the client
    peer.Reply(fast, RpcResponseHeaderProto::SUCCESS, &reply);
    peer.WaitForClose();
  });
  auto conn = Connection::Open(Options(server.port()));
  ASSERT_TRUE(conn.ok());
  ::hadoop::yarn::GetNewApplicationResponseProto response;
  Status s = (*conn)->Call("getNewApplication", ::hadoop::yarn::GetNewApplicationRequestProto(),
                           &response, 100ms);
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  s = (*conn)->Call("getNewApplication", ::hadoop::yarn::GetNewApplicationRequestProto(), &response,
                    5s);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(response.application_id().id(), 2);
}

TEST(HadoopConnectionTest, ClosingFailsCallsInFlight) {
  std::promise<void> done;
  FakeServer server([&](Peer& peer) {
    peer.ReadBytes(7);
    peer.ReadFrame();
    ExpectCall(peer, "getNewApplication");
    done.get_future().wait();
  });
  auto conn = Connection::Open(Options(server.port()));
  ASSERT_TRUE(conn.ok());
  std::promise<Result<std::string>> result;
  (*conn)->AsyncCall("getNewApplication", ::hadoop::yarn::GetNewApplicationRequestProto(),
                     [&](Result<std::string> r) { result.set_value(std::move(r)); });
  (*conn)->Close();
  EXPECT_EQ(result.get_future().get().status().code(), StatusCode::kCancelled);
  done.set_value();
}

TEST(HadoopRpcClientTest, BackoffDoublesUpToTheCap) {
  RetryPolicy p{.max_connect_attempts = 10, .initial_backoff = 100ms, .max_backoff = 500ms};
  EXPECT_EQ(BackoffBeforeAttempt(p, 1), 100ms);
  EXPECT_EQ(BackoffBeforeAttempt(p, 2), 200ms);
  EXPECT_EQ(BackoffBeforeAttempt(p, 3), 400ms);
  EXPECT_EQ(BackoffBeforeAttempt(p, 4), 500ms);
  EXPECT_EQ(BackoffBeforeAttempt(p, 30), 500ms);
}

TEST(HadoopRpcClientTest, RetriesUnreachableServerThenGivesUp) {
  // A port that was just free: nothing listens there.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);

  std::vector<std::chrono::milliseconds> pauses;
  RpcClient client(Options(ntohs(addr.sin_port)),
                   RetryPolicy{.max_connect_attempts = 3, .initial_backoff = 10ms},
                   [&](std::chrono::milliseconds d) { pauses.push_back(d); });
  ::hadoop::yarn::GetNewApplicationResponseProto response;
  Status s = client.Call("getNewApplication", ::hadoop::yarn::GetNewApplicationRequestProto(),
                         &response, 1s);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_NE(s.message().find("giving up after 3 connection attempts"), std::string::npos);
  EXPECT_EQ(pauses, (std::vector<std::chrono::milliseconds>{10ms, 20ms}));
}

TEST(HadoopRpcClientTest, DefaultUserComesFromHadoopUserName) {
  ::setenv("HADOOP_USER_NAME", "hdfs-user", 1);
  EXPECT_EQ(DefaultUserName(), "hdfs-user");
  ::unsetenv("HADOOP_USER_NAME");
  EXPECT_FALSE(DefaultUserName().empty());
  EXPECT_EQ(NewClientId().size(), 16u);
  EXPECT_NE(NewClientId(), NewClientId());
}

}  // namespace
}  // namespace tony::hadoop::ipc
