// Hadoop IPC wire format: preamble, frames, headers and call ids (docs/hadoop-ipc.md §1).
//
// Pure functions over bytes; no I/O. The connection (connection.h) uses them, and the unit tests
// check them byte for byte.
// Thread-safety: stateless.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "RpcHeader.pb.h"
#include "common/status.h"

namespace google::protobuf {
class MessageLite;
}

namespace tony::hadoop::ipc {

// §1.1: "hrpc", version 9, service class 0, then the auth protocol byte.
inline constexpr std::string_view kRpcMagic = "hrpc";
inline constexpr uint8_t kIpcVersion = 9;
inline constexpr uint8_t kServiceClass = 0;
enum class AuthProtocol : uint8_t {
  kNone = 0x00,  // plain SIMPLE, no SASL exchange
  kSasl = 0xDF,  // (byte)-33
};

// §1.4: call ids with a meaning of their own.
inline constexpr int32_t kAuthorizationFailedCallId = -1;
inline constexpr int32_t kInvalidCallId = -2;
inline constexpr int32_t kConnectionContextCallId = -3;
inline constexpr int32_t kPingCallId = -4;
inline constexpr int32_t kSaslCallId = -33;

// §1.2: the server refuses larger frames (ipc.maximum.data.length); we refuse larger replies.
inline constexpr uint32_t kMaxFrameBytes = 128u << 20;

// The 7-byte connection preamble (§1.1).
std::string Preamble(AuthProtocol auth);

// Protobuf base-128 varints, as used for the per-message length prefix (§1.2).
void AppendVarint32(uint32_t value, std::string* out);
// Reads a varint32 at data[*pos]; advances *pos. False if truncated or longer than 5 bytes.
bool ReadVarint32(std::string_view data, size_t* pos, uint32_t* value);

// Zig-zag, as sint32 fields (callId, retryCount) are encoded (§1.3).
constexpr uint32_t ZigZagEncode32(int32_t v) {
  return (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31);
}
constexpr int32_t ZigZagDecode32(uint32_t v) {
  return static_cast<int32_t>(v >> 1) ^ -static_cast<int32_t>(v & 1);
}

void AppendBigEndian32(uint32_t value, std::string* out);
uint32_t ReadBigEndian32(const char* p);

// Appends `message` as protobuf's writeDelimitedTo does: varint length, then the bytes.
void AppendDelimited(const google::protobuf::MessageLite& message, std::string* out);

// One frame: 4-byte big-endian length of the rest, then each message delimited (§1.2).
std::string BuildFrame(const std::vector<const google::protobuf::MessageLite*>& messages);

// RpcRequestHeaderProto with rpcKind and rpcOp set explicitly (§1.3: the server rejects a header
// without them).
::hadoop::common::RpcRequestHeaderProto MakeRequestHeader(int32_t call_id, int32_t retry_count,
                                                          std::string_view client_id);

// A complete call frame: request header, RequestHeaderProto, request message (§1.2, §1.5).
struct CallSpec {
  int32_t call_id = 0;
  int32_t retry_count = 0;  // 0 for a first attempt (§1.3)
  std::string_view client_id;
  std::string_view method;    // e.g. "getNewApplication"
  std::string_view protocol;  // e.g. "org.apache.hadoop.yarn.api.ApplicationClientProtocolPB"
  uint64_t protocol_version = 1;
};
std::string BuildCallFrame(const CallSpec& spec, const google::protobuf::MessageLite& request);

// A reply frame (without its 4-byte length) split into header and payload (§1.7).
struct ResponseFrame {
  ::hadoop::common::RpcResponseHeaderProto header;
  // The response message bytes (the delimited message's content, length prefix removed); empty
  // for an error reply, which is the header alone.
  std::string payload;
  // §1.7: callId is uint32 on the wire; negative ids arrive as large values.
  int32_t call_id() const { return static_cast<int32_t>(header.callid()); }
};
Result<ResponseFrame> ParseResponseFrame(std::string_view body);

// The length of the frame body that the 4-byte big-endian prefix announces (§1.2); an error
// past kMaxFrameBytes, so that a peer cannot make us allocate what it likes.
Result<uint32_t> FrameBodyLength(std::string_view prefix);

// A reply to a SASL message (§1.8, §1.9): its RpcSaslProto, or the Status of an ERROR/FATAL
// header (an authentication failure, §1.7), or an error for a malformed frame or a reply with
// another call id.
Result<::hadoop::common::RpcSaslProto> ParseSaslReply(std::string_view body);

// The TOKEN/DIGEST-MD5 entry of the server's NEGOTIATE reply (§1.9 step 2); kUnauthenticated,
// naming what is offered, when there is none.
Result<const ::hadoop::common::RpcSaslProto::SaslAuth*> FindTokenDigestAuth(
    const ::hadoop::common::RpcSaslProto& offer);

// The Status for an ERROR or FATAL reply: the code follows the Java exception class (§1.7) and
// the message reads "<exception class>: <message>" without the Java stack trace.
Status RemoteErrorStatus(const ::hadoop::common::RpcResponseHeaderProto& header);

}  // namespace tony::hadoop::ipc
