#include "hadoop/ipc/wire.h"

#include <google/protobuf/message_lite.h>

#include <array>

#include "ProtobufRpcEngine.pb.h"

namespace tony::hadoop::ipc {
namespace {

using ::hadoop::common::RpcResponseHeaderProto;
using ::hadoop::common::RpcSaslProto;

// The last component of a Java class name, with any nested-class prefix ("SecretManager$").
std::string_view SimpleClassName(std::string_view java_class) {
  size_t dot = java_class.find_last_of(".$");
  return dot == std::string_view::npos ? java_class : java_class.substr(dot + 1);
}

// Java exception classes we expect from YARN and the IPC layer (§1.7), by simple name.
StatusCode CodeForException(std::string_view java_class) {
  struct Entry {
    std::string_view simple_name;
    StatusCode code;
  };
  static constexpr std::array<Entry, 14> kTable = {{
      {"ApplicationNotFoundException", StatusCode::kNotFound},
      {"ApplicationAttemptNotFoundException", StatusCode::kNotFound},
      {"ContainerNotFoundException", StatusCode::kNotFound},
      {"FileNotFoundException", StatusCode::kNotFound},
      {"InvalidResourceRequestException", StatusCode::kInvalidArgument},
      {"InvalidApplicationMasterRequestException", StatusCode::kFailedPrecondition},
      {"ApplicationMasterNotRegisteredException", StatusCode::kFailedPrecondition},
      {"InvalidToken", StatusCode::kUnauthenticated},
      {"SaslException", StatusCode::kUnauthenticated},
      {"AccessControlException", StatusCode::kPermissionDenied},
      {"AuthorizationException", StatusCode::kPermissionDenied},
      {"StandbyException", StatusCode::kUnavailable},
      {"RetriableException", StatusCode::kUnavailable},
      {"ServerTooBusyException", StatusCode::kUnavailable},
  }};
  std::string_view simple = SimpleClassName(java_class);
  for (const Entry& e : kTable) {
    if (e.simple_name == simple) return e.code;
  }
  return StatusCode::kInternal;
}

}  // namespace

std::string Preamble(AuthProtocol auth) {
  std::string out(kRpcMagic);
  out.push_back(static_cast<char>(kIpcVersion));
  out.push_back(static_cast<char>(kServiceClass));
  out.push_back(static_cast<char>(auth));
  return out;
}

void AppendVarint32(uint32_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

bool ReadVarint32(std::string_view data, size_t* pos, uint32_t* value) {
  uint32_t result = 0;
  for (int i = 0; i < 5; ++i) {
    if (*pos >= data.size()) return false;
    auto byte = static_cast<uint8_t>(data[(*pos)++]);
    result |= static_cast<uint32_t>(byte & 0x7F) << (7 * i);
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

void AppendBigEndian32(uint32_t value, std::string* out) {
  out->push_back(static_cast<char>(value >> 24));
  out->push_back(static_cast<char>(value >> 16));
  out->push_back(static_cast<char>(value >> 8));
  out->push_back(static_cast<char>(value));
}

uint32_t ReadBigEndian32(const char* p) {
  auto b = [p](int i) { return static_cast<uint32_t>(static_cast<uint8_t>(p[i])); };
  return (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3);
}

void AppendDelimited(const google::protobuf::MessageLite& message, std::string* out) {
  AppendVarint32(static_cast<uint32_t>(message.ByteSizeLong()), out);
  message.AppendToString(out);
}

std::string BuildFrame(const std::vector<const google::protobuf::MessageLite*>& messages) {
  std::string body;
  for (const auto* m : messages) AppendDelimited(*m, &body);
  std::string frame;
  frame.reserve(4 + body.size());
  AppendBigEndian32(static_cast<uint32_t>(body.size()), &frame);
  frame += body;
  return frame;
}

::hadoop::common::RpcRequestHeaderProto MakeRequestHeader(int32_t call_id, int32_t retry_count,
                                                          std::string_view client_id) {
  ::hadoop::common::RpcRequestHeaderProto header;
  header.set_rpckind(::hadoop::common::RPC_PROTOCOL_BUFFER);
  header.set_rpcop(::hadoop::common::RpcRequestHeaderProto::RPC_FINAL_PACKET);
  header.set_callid(call_id);
  header.set_clientid(std::string(client_id));
  header.set_retrycount(retry_count);
  return header;
}

std::string BuildCallFrame(const CallSpec& spec, const google::protobuf::MessageLite& request) {
  auto header = MakeRequestHeader(spec.call_id, spec.retry_count, spec.client_id);
  ::hadoop::common::RequestHeaderProto request_header;
  request_header.set_methodname(std::string(spec.method));
  request_header.set_declaringclassprotocolname(std::string(spec.protocol));
  request_header.set_clientprotocolversion(spec.protocol_version);
  return BuildFrame({&header, &request_header, &request});
}

Result<ResponseFrame> ParseResponseFrame(std::string_view body) {
  size_t pos = 0;
  uint32_t header_len = 0;
  if (!ReadVarint32(body, &pos, &header_len) || header_len > body.size() - pos) {
    return Internal("malformed IPC reply: truncated response header");
  }
  ResponseFrame frame;
  if (!frame.header.ParseFromArray(body.data() + pos, static_cast<int>(header_len))) {
    return Internal("malformed IPC reply: cannot parse RpcResponseHeaderProto");
  }
  pos += header_len;
  if (pos == body.size()) return frame;  // error replies are the header alone (§1.2)
  uint32_t payload_len = 0;
  if (!ReadVarint32(body, &pos, &payload_len) || payload_len > body.size() - pos) {
    return Internal("malformed IPC reply: truncated response message");
  }
  frame.payload.assign(body.data() + pos, payload_len);
  return frame;
}

Result<uint32_t> FrameBodyLength(std::string_view prefix) {
  if (prefix.size() != 4) return Internal("malformed IPC reply: truncated frame length");
  uint32_t len = ReadBigEndian32(prefix.data());
  if (len > kMaxFrameBytes) {
    return Internal("IPC reply of " + std::to_string(len) + " bytes exceeds the limit of " +
                    std::to_string(kMaxFrameBytes));
  }
  return len;
}

Result<RpcSaslProto> ParseSaslReply(std::string_view body) {
  TONY_ASSIGN_OR_RETURN(ResponseFrame frame, ParseResponseFrame(body));
  if (frame.header.status() != RpcResponseHeaderProto::SUCCESS) {
    return RemoteErrorStatus(frame.header);
  }
  if (frame.call_id() != kSaslCallId) {
    return Internal("SASL: reply with call id " + std::to_string(frame.call_id()));
  }
  RpcSaslProto msg;
  if (!msg.ParseFromString(frame.payload)) return Internal("SASL: cannot parse RpcSaslProto");
  return msg;
}

Result<const RpcSaslProto::SaslAuth*> FindTokenDigestAuth(const RpcSaslProto& offer) {
  std::string offered;
  for (const auto& auth : offer.auths()) {
    if (auth.method() == "TOKEN" && auth.mechanism() == "DIGEST-MD5") return &auth;
    offered += (offered.empty() ? "" : ", ") + auth.method() + "/" + auth.mechanism();
  }
  return Unauthenticated("SASL: the server offers [" + offered + "], not TOKEN/DIGEST-MD5");
}

Status RemoteErrorStatus(const RpcResponseHeaderProto& header) {
  const std::string& java_class = header.exceptionclassname();
  std::string_view text = header.errormsg();
  // Server.java sends StringUtils.stringifyException for most exceptions: "<class>: <msg>\n\tat …".
  if (size_t at = text.find("\n\tat "); at != std::string_view::npos) text = text.substr(0, at);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  if (!java_class.empty() && text.starts_with(java_class) &&
      text.substr(java_class.size()).starts_with(": ")) {
    text.remove_prefix(java_class.size() + 2);
  }
  std::string outer = java_class.empty() ? std::string("remote error") : java_class;
  StatusCode code = CodeForException(java_class);
  // YARN wraps what it refuses in a YarnException whose message is the cause's toString()
  // (RPCUtil.getRemoteException): "org.apache.hadoop.security.AccessControlException: User x
  // cannot perform operation MODIFY_APP on application_...". The cause decides the code.
  if (size_t colon = text.find(": "); code == StatusCode::kInternal &&
                                      colon != std::string_view::npos &&
                                      text.substr(0, colon).find(' ') == std::string_view::npos &&
                                      text.substr(0, colon).find('.') != std::string_view::npos) {
    if (StatusCode inner = CodeForException(text.substr(0, colon));
        inner != StatusCode::kInternal) {
      code = inner;
      outer = std::string(text.substr(0, colon));
      text.remove_prefix(colon + 2);
    }
  }
  std::string message = outer;
  if (!text.empty()) message += ": " + std::string(text);
  if (header.has_errordetail()) {
    message += " [" + RpcResponseHeaderProto::RpcErrorCodeProto_Name(header.errordetail()) + "]";
  }
  if (code == StatusCode::kInternal &&
      header.errordetail() == RpcResponseHeaderProto::FATAL_UNAUTHORIZED) {
    code = StatusCode::kUnauthenticated;
  }
  return Status(code, std::move(message));
}

}  // namespace tony::hadoop::ipc
