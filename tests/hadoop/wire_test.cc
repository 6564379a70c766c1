// Byte-level checks of the IPC wire format against docs/hadoop-ipc.md §1.
#include "hadoop/ipc/wire.h"

#include <gtest/gtest.h>

#include "ProtobufRpcEngine.pb.h"
#include "yarn_service_protos.pb.h"

namespace tony::hadoop::ipc {
namespace {

using ::hadoop::common::RpcResponseHeaderProto;

std::string WireBytes(std::initializer_list<int> v) {
  std::string out;
  for (int b : v) out.push_back(static_cast<char>(b));
  return out;
}

std::string ClientId() {
  std::string id;
  for (int i = 0; i < 16; ++i) id.push_back(static_cast<char>(i));
  return id;
}

// Hand-encodes a length-delimited field (tag, varint length < 128, bytes).
std::string Field(int tag, std::string_view value) {
  std::string out = WireBytes({tag, static_cast<int>(value.size())});
  out += value;
  return out;
}

TEST(HadoopWireTest, PreambleBytes) {
  // §1.1: "hrpc", version 9, service class 0, auth protocol.
  EXPECT_EQ(Preamble(AuthProtocol::kNone), WireBytes({0x68, 0x72, 0x70, 0x63, 0x09, 0x00, 0x00}));
  EXPECT_EQ(Preamble(AuthProtocol::kSasl), WireBytes({0x68, 0x72, 0x70, 0x63, 0x09, 0x00, 0xDF}));
}

TEST(HadoopWireTest, Varint32RoundTrip) {
  for (uint32_t v : {0u, 1u, 127u, 128u, 300u, 16383u, 16384u, 0xFFFFFFFFu}) {
    std::string buf;
    AppendVarint32(v, &buf);
    size_t pos = 0;
    uint32_t back = 0;
    ASSERT_TRUE(ReadVarint32(buf, &pos, &back)) << v;
    EXPECT_EQ(back, v);
    EXPECT_EQ(pos, buf.size());
  }
  std::string buf;
  AppendVarint32(300, &buf);
  EXPECT_EQ(buf, WireBytes({0xAC, 0x02}));
}

TEST(HadoopWireTest, Varint32RejectsTruncatedAndOverlong) {
  size_t pos = 0;
  uint32_t v = 0;
  EXPECT_FALSE(ReadVarint32(WireBytes({0x80}), &pos, &v));
  pos = 0;
  EXPECT_FALSE(ReadVarint32(WireBytes({0x80, 0x80, 0x80, 0x80, 0x80, 0x01}), &pos, &v));
  pos = 0;
  EXPECT_FALSE(ReadVarint32("", &pos, &v));
}

TEST(HadoopWireTest, ZigZagOfSpecialCallIds) {
  // §1.3: callId 0 → 00, −3 → 05, −33 → 41; retryCount −1 → 01.
  EXPECT_EQ(ZigZagEncode32(0), 0u);
  EXPECT_EQ(ZigZagEncode32(kConnectionContextCallId), 5u);
  EXPECT_EQ(ZigZagEncode32(kSaslCallId), 0x41u);
  EXPECT_EQ(ZigZagEncode32(-1), 1u);
  EXPECT_EQ(ZigZagEncode32(kPingCallId), 7u);
  for (int32_t v : {0, 1, -1, -33, 2147483647, -2147483647 - 1}) {
    EXPECT_EQ(ZigZagDecode32(ZigZagEncode32(v)), v);
  }
}

TEST(HadoopWireTest, SpecialHeadersUseZigZag) {
  auto header = MakeRequestHeader(kConnectionContextCallId, -1, "");
  // rpcKind 2, rpcOp 0, callId −3 (18 05), empty clientId (22 00), retryCount −1 (28 01).
  EXPECT_EQ(header.SerializeAsString(),
            WireBytes({0x08, 0x02, 0x10, 0x00, 0x18, 0x05, 0x22, 0x00, 0x28, 0x01}));
  auto sasl = MakeRequestHeader(kSaslCallId, -1, "");
  EXPECT_EQ(sasl.SerializeAsString(),
            WireBytes({0x08, 0x02, 0x10, 0x00, 0x18, 0x41, 0x22, 0x00, 0x28, 0x01}));
}

TEST(HadoopWireTest, RequestFrameByteForByte) {
  std::string client_id = ClientId();
  CallSpec spec;
  spec.call_id = 0;
  spec.retry_count = 0;
  spec.client_id = client_id;
  spec.method = "getNewApplication";
  spec.protocol = "org.apache.hadoop.yarn.api.ApplicationClientProtocolPB";
  spec.protocol_version = 1;
  ::hadoop::yarn::GetNewApplicationRequestProto request;
  std::string frame = BuildCallFrame(spec, request);

  // RpcRequestHeaderProto: rpcKind=2, rpcOp=0, callId=0, clientId (16 bytes), retryCount=0.
  std::string rpc_header = WireBytes({0x08, 0x02, 0x10, 0x00, 0x18, 0x00}) +
                           Field(0x22, client_id) + WireBytes({0x28, 0x00});
  // RequestHeaderProto: methodName, declaringClassProtocolName, clientProtocolVersion=1.
  std::string request_header =
      Field(0x0A, "getNewApplication") +
      Field(0x12, "org.apache.hadoop.yarn.api.ApplicationClientProtocolPB") +
      WireBytes({0x18, 0x01});
  ASSERT_EQ(rpc_header.size(), 26u);
  ASSERT_EQ(request_header.size(), 77u);
  // Each message varint-delimited; the empty request is a single 00 (§1.2).
  std::string body =
      WireBytes({26}) + rpc_header + WireBytes({77}) + request_header + WireBytes({0x00});
  std::string expected = WireBytes({0x00, 0x00, 0x00, 0x6A}) + body;
  EXPECT_EQ(frame, expected);
}

TEST(HadoopWireTest, ParsesSuccessReply) {
  // Header {callId 5, SUCCESS, serverIpcVersionNum 9}; payload GetNewApplicationResponseProto
  // {application_id {id 1, cluster_timestamp 2}}.
  std::string body = WireBytes({0x06, 0x08, 0x05, 0x10, 0x00, 0x18, 0x09}) +
                     WireBytes({0x06, 0x0A, 0x04, 0x08, 0x01, 0x10, 0x02});
  auto frame = ParseResponseFrame(body);
  ASSERT_TRUE(frame.ok()) << frame.status().ToString();
  EXPECT_EQ(frame->call_id(), 5);
  EXPECT_EQ(frame->header.status(), RpcResponseHeaderProto::SUCCESS);
  EXPECT_EQ(frame->header.serveripcversionnum(), 9u);
  ::hadoop::yarn::GetNewApplicationResponseProto response;
  ASSERT_TRUE(response.ParseFromString(frame->payload));
  EXPECT_EQ(response.application_id().id(), 1);
  EXPECT_EQ(response.application_id().cluster_timestamp(), 2);
}

TEST(HadoopWireTest, NegativeCallIdArrivesAsLargeUnsigned) {
  // §1.7: callId is uint32; −33 is DF FF FF FF 0F on the wire.
  std::string header = WireBytes({0x08, 0xDF, 0xFF, 0xFF, 0xFF, 0x0F, 0x10, 0x00});
  std::string body =
      WireBytes({static_cast<int>(header.size())}) + header + WireBytes({0x02, 0x10, 0x01});
  auto frame = ParseResponseFrame(body);
  ASSERT_TRUE(frame.ok()) << frame.status().ToString();
  EXPECT_EQ(frame->call_id(), kSaslCallId);
  EXPECT_EQ(frame->payload, WireBytes({0x10, 0x01}));
}

TEST(HadoopWireTest, ParsesExceptionReply) {
  const std::string java_class = "org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException";
  const std::string msg = java_class +
                          ": Application with id 'application_1_0001' doesn't exist in RM.\n"
                          "\tat org.apache.hadoop.yarn.server.resourcemanager.ClientRMService"
                          ".getApplicationReport(ClientRMService.java:123)\n";
  // callId 7, status ERROR, exceptionClassName, errorMsg, errorDetail ERROR_APPLICATION.
  std::string header = WireBytes({0x08, 0x07, 0x10, 0x01}) + Field(0x22, java_class);
  header += WireBytes(
      {0x2A, static_cast<int>(msg.size() & 0x7F) | 0x80, static_cast<int>(msg.size() >> 7)});
  header += msg;
  header += WireBytes({0x30, 0x01});
  std::string body;
  AppendVarint32(static_cast<uint32_t>(header.size()), &body);
  body += header;

  auto frame = ParseResponseFrame(body);
  ASSERT_TRUE(frame.ok()) << frame.status().ToString();
  EXPECT_EQ(frame->call_id(), 7);
  EXPECT_EQ(frame->header.status(), RpcResponseHeaderProto::ERROR);
  EXPECT_TRUE(frame->payload.empty());
  Status s = RemoteErrorStatus(frame->header);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), java_class +
                             ": Application with id 'application_1_0001' doesn't exist in RM. "
                             "[ERROR_APPLICATION]");
}

TEST(HadoopWireTest, FatalUnauthorizedMapsToUnauthenticatedOrPermission) {
  RpcResponseHeaderProto header;
  header.set_callid(static_cast<uint32_t>(kAuthorizationFailedCallId));
  header.set_status(RpcResponseHeaderProto::FATAL);
  header.set_exceptionclassname("org.apache.hadoop.security.AccessControlException");
  header.set_errormsg("SIMPLE authentication is not enabled.  Available:[TOKEN]");
  header.set_errordetail(RpcResponseHeaderProto::FATAL_UNAUTHORIZED);
  Status s = RemoteErrorStatus(header);
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_NE(s.message().find("AccessControlException: SIMPLE authentication is not enabled"),
            std::string::npos);

  header.set_exceptionclassname("javax.security.sasl.SaslException");
  EXPECT_EQ(RemoteErrorStatus(header).code(), StatusCode::kUnauthenticated);
  header.set_exceptionclassname("org.apache.hadoop.security.token.SecretManager$InvalidToken");
  EXPECT_EQ(RemoteErrorStatus(header).code(), StatusCode::kUnauthenticated);
}

// `tony kill` by a user without the modify ACL: the RM's YarnException wraps the
// AccessControlException, which decides the code; the stack trace stays out of the message.
TEST(HadoopWireTest, AYarnExceptionTakesItsCausesCode) {
  RpcResponseHeaderProto header;
  header.set_status(RpcResponseHeaderProto::ERROR);
  header.set_exceptionclassname("org.apache.hadoop.yarn.exceptions.YarnException");
  header.set_errormsg(
      "org.apache.hadoop.security.AccessControlException: User mallory cannot perform operation "
      "MODIFY_APP on application_1_0001\n\tat org.apache.hadoop.yarn.ipc.RPCUtil."
      "getRemoteException(RPCUtil.java:38)\n");
  Status s = RemoteErrorStatus(header);
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(s.message(),
            "org.apache.hadoop.security.AccessControlException: User mallory cannot perform "
            "operation MODIFY_APP on application_1_0001");
  // A cause we do not know keeps the wrapper's class and code.
  header.set_errormsg("java.io.IOException: disk full");
  EXPECT_EQ(RemoteErrorStatus(header).code(), StatusCode::kInternal);
  EXPECT_EQ(RemoteErrorStatus(header).message(),
            "org.apache.hadoop.yarn.exceptions.YarnException: java.io.IOException: disk full");
}

TEST(HadoopWireTest, RejectsTruncatedReplies) {
  EXPECT_FALSE(ParseResponseFrame(WireBytes({0x06, 0x08, 0x05})).ok());
  EXPECT_FALSE(ParseResponseFrame(WireBytes({0x02, 0x08, 0x05, 0x09, 0x01})).ok());
  EXPECT_FALSE(ParseResponseFrame("").ok());
}

}  // namespace
}  // namespace tony::hadoop::ipc
