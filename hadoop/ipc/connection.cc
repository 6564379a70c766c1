#include "hadoop/ipc/connection.h"

#include <google/protobuf/message_lite.h>
#include <openssl/rand.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <future>

#include "IpcConnectionContext.pb.h"
#include "RpcHeader.pb.h"
#include "common/log.h"
#include "hadoop/ipc/digest_md5.h"
#include "hadoop/ipc/sasl_gssapi.h"
#include "hadoop/ipc/socket.h"
#include "hadoop/ipc/wire.h"

namespace tony::hadoop::ipc {
namespace {

using ::hadoop::common::RpcResponseHeaderProto;
using ::hadoop::common::RpcSaslProto;

constexpr std::chrono::seconds kHandshakeTimeout{30};

std::string SaslStateName(RpcSaslProto::SaslState state) {
  return RpcSaslProto::SaslState_Name(state);
}

}  // namespace

std::string DefaultUserName() {
  for (const char* var : {"HADOOP_USER_NAME", "USER"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && *v != '\0') return v;
  }
  if (const passwd* pw = ::getpwuid(::geteuid()); pw != nullptr) return pw->pw_name;
  return "unknown";
}

std::string NewClientId() {
  std::string id(16, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(id.data()), 16) != 1) {
    // Only uniqueness matters here (the server's retry cache key, §1.3), not secrecy.
    for (char& c : id) c = static_cast<char>(std::rand());
  }
  return id;
}

Result<std::unique_ptr<Connection>> Connection::Open(ConnectionOptions options) {
  if (options.client_id.empty()) options.client_id = NewClientId();
  if (options.user.empty()) options.user = DefaultUserName();
  if (options.auth == AuthMethod::kToken && !options.token) {
    return InvalidArgument("TOKEN authentication to " + options.host + " needs a token");
  }
  if (options.auth == AuthMethod::kKerberos &&
      (!options.kerberos || options.server_principal.empty())) {
    return InvalidArgument("Kerberos authentication to " + options.host +
                           " needs a login and the server's principal");
  }
  std::string where = options.host + ":" + std::to_string(options.port);
  TONY_ASSIGN_OR_RETURN(int fd, ConnectTcp(options.host, options.port, options.connect_timeout));
  std::unique_ptr<Connection> conn(new Connection(std::move(options), fd));
  if (Status s = conn->Handshake(); !s.ok()) {
    conn->Close();
    return s.WithContext("IPC handshake with " + where);
  }
  conn->reader_ = std::thread([c = conn.get()] { c->ReaderLoop(); });
  return conn;
}

Connection::Connection(ConnectionOptions options, int fd) : options_(std::move(options)), fd_(fd) {}

Connection::~Connection() {
  Close();
  if (reader_.joinable()) reader_.join();
  ::close(fd_);
}

void Connection::Close() {
  const Status why = Cancelled("connection closed");
  std::map<int32_t, Callback> calls;
  {
    std::lock_guard<std::mutex> lock(calls_mu_);
    if (closed_) return;
    closed_ = true;
    // Recorded before the socket goes down, so that the reader's EOF does not claim the calls.
    broken_ = why;
    calls.swap(calls_);
  }
  healthy_ = false;
  ::shutdown(fd_, SHUT_RDWR);  // wakes the reader thread
  for (auto& [id, cb] : calls) cb(why);
}

Status Connection::SendFrame(std::string_view frame) {
  std::lock_guard<std::mutex> lock(write_mu_);
  if (!layer_) return WriteAll(fd_, frame);
  // §1.9 step 6: the whole frame, length included, in WRAP messages no larger than the server
  // accepts; its reader reassembles frames across them.
  const size_t chunk = std::max<size_t>(1, layer_->max_wrap_input());
  for (size_t pos = 0; pos < frame.size(); pos += chunk) {
    TONY_ASSIGN_OR_RETURN(std::string token, layer_->Wrap(frame.substr(pos, chunk)));
    TONY_RETURN_IF_ERROR(WriteAll(fd_, BuildWrapFrame(token)));
  }
  return Status::Ok();
}

Result<std::string> Connection::ReadInboundFrame() {
  if (!layer_) return ReadFrameBody(std::nullopt);
  while (true) {
    TONY_ASSIGN_OR_RETURN(std::optional<std::string> frame, unwrapped_.Next());
    if (frame) return std::move(*frame);
    TONY_ASSIGN_OR_RETURN(std::string body, ReadFrameBody(std::nullopt));
    TONY_ASSIGN_OR_RETURN(std::string token, ParseWrapReply(body));
    TONY_ASSIGN_OR_RETURN(std::string plain, layer_->Unwrap(token));
    unwrapped_.Append(plain);
  }
}

Result<std::string> Connection::ReadFrameBody(Deadline deadline) {
  std::string len_bytes;
  TONY_RETURN_IF_ERROR(ReadExactly(fd_, 4, &len_bytes, deadline));
  TONY_ASSIGN_OR_RETURN(uint32_t len, FrameBodyLength(len_bytes));
  std::string body;
  TONY_RETURN_IF_ERROR(ReadExactly(fd_, len, &body, deadline));
  return body;
}

Status Connection::Handshake() {
  bool sasl = options_.auth != AuthMethod::kSimple;
  // §1.1: preamble; §1.9: SASL for TOKEN and KERBEROS.
  TONY_RETURN_IF_ERROR(SendFrame(Preamble(sasl ? AuthProtocol::kSasl : AuthProtocol::kNone)));
  bool simple = !sasl;
  if (sasl) TONY_RETURN_IF_ERROR(SaslHandshake(&simple));
  return SendConnectionContext(simple);
}

Status Connection::SendSasl(const RpcSaslProto& message) {
  auto header = MakeRequestHeader(kSaslCallId, -1, "");  // §1.8: empty clientId
  return SendFrame(BuildFrame({&header, &message}));
}

// The next SASL reply; a FATAL header (call id −1) is an authentication failure.
Result<RpcSaslProto> Connection::ReceiveSasl(Clock::time_point deadline) {
  TONY_ASSIGN_OR_RETURN(std::string body, ReadFrameBody(deadline));
  return ParseSaslReply(body);
}

Status Connection::SaslHandshake(bool* use_simple) {
  auto deadline = Clock::now() + kHandshakeTimeout;
  RpcSaslProto negotiate;
  negotiate.set_state(RpcSaslProto::NEGOTIATE);  // §1.9 step 1
  TONY_RETURN_IF_ERROR(SendSasl(negotiate));
  TONY_ASSIGN_OR_RETURN(RpcSaslProto offer, ReceiveSasl(deadline));
  if (offer.state() == RpcSaslProto::SUCCESS) {  // §1.9 step 2: a SIMPLE-only server
    *use_simple = true;
    return Status::Ok();
  }
  if (offer.state() != RpcSaslProto::NEGOTIATE) {
    return Internal("SASL: expected NEGOTIATE, got " + SaslStateName(offer.state()));
  }
  if (options_.auth == AuthMethod::kKerberos) return GssapiHandshake(offer, deadline);
  return DigestHandshake(offer, deadline);
}

Status Connection::DigestHandshake(const RpcSaslProto& offer, Clock::time_point deadline) {
  TONY_ASSIGN_OR_RETURN(const RpcSaslProto::SaslAuth* chosen, FindTokenDigestAuth(offer));
  // §2.2: user name and password are the base64 of the token's identifier and password.
  DigestMd5Client digest(Base64Encode(options_.token->identifier),
                         Base64Encode(options_.token->password), chosen->protocol(),
                         chosen->serverid(), options_.protection);
  // §1.9 step 2: the TOKEN entry already carries the first challenge.
  TONY_ASSIGN_OR_RETURN(std::string answer, digest.EvaluateChallenge(chosen->challenge()));
  RpcSaslProto initiate;
  initiate.set_state(RpcSaslProto::INITIATE);
  auto* auth = initiate.add_auths();
  *auth = *chosen;
  auth->clear_challenge();  // §1.9 step 3: the server compares the entry without it
  initiate.set_token(answer);
  TONY_RETURN_IF_ERROR(SendSasl(initiate));

  while (true) {
    Result<RpcSaslProto> next = ReceiveSasl(deadline);
    if (!next.ok() && next.status().code() == StatusCode::kUnavailable) {
      // A server that cannot make sense of the token identifier drops the connection without a
      // FATAL reply; reconnecting with the same token would not help.
      return Unauthenticated("SASL: the server closed the connection after our " +
                             std::string(options_.token->kind) +
                             " token was sent (token not accepted?): " + next.status().message());
    }
    if (!next.ok()) return next.status();
    RpcSaslProto reply = std::move(next).value();
    if (reply.state() == RpcSaslProto::SUCCESS) {
      TONY_RETURN_IF_ERROR(digest.VerifyServerFinal(reply.token()));  // §1.9 step 5
      TONY_ASSIGN_OR_RETURN(layer_, digest.TakeSecurityLayer());
      return Status::Ok();
    }
    if (reply.state() != RpcSaslProto::CHALLENGE) {
      return Internal("SASL: unexpected " + SaslStateName(reply.state()));
    }
    // DIGEST-MD5 has one round only (§1.9 step 4); a second challenge is refused by the client.
    TONY_ASSIGN_OR_RETURN(std::string more, digest.EvaluateChallenge(reply.token()));
    RpcSaslProto response;
    response.set_state(RpcSaslProto::RESPONSE);
    response.set_token(more);
    TONY_RETURN_IF_ERROR(SendSasl(response));
  }
}

Status Connection::GssapiHandshake(const RpcSaslProto& offer, Clock::time_point deadline) {
  const RpcSaslProto::SaslAuth* chosen = nullptr;
  std::string offered;
  for (const auto& auth : offer.auths()) {
    if (auth.method() == "KERBEROS" && auth.mechanism() == "GSSAPI") chosen = &auth;
    offered += (offered.empty() ? "" : ", ") + auth.method() + "/" + auth.mechanism();
  }
  if (chosen == nullptr) {
    return Unauthenticated("SASL: the server offers [" + offered +
                           "], not KERBEROS/GSSAPI (is hadoop.security.authentication=kerberos "
                           "on the cluster?)");
  }
  // §1.9 step 2: the entry names the server's principal as protocol/serverId; it must be the one
  // we were told to expect, or a man in the middle could pick its own.
  std::string advertised = chosen->protocol() + "/" + chosen->serverid();
  if (advertised != PrincipalWithoutRealm(options_.server_principal)) {
    return Unauthenticated("SASL: the server says it is " + advertised +
                           ", but the configured server principal is '" +
                           options_.server_principal + "'");
  }
  GssapiSaslClient gss(options_.kerberos, options_.server_principal, options_.protection);
  TONY_ASSIGN_OR_RETURN(std::string first, gss.Start());
  RpcSaslProto initiate;
  initiate.set_state(RpcSaslProto::INITIATE);
  auto* auth = initiate.add_auths();
  *auth = *chosen;
  auth->clear_challenge();
  initiate.set_token(first);
  TONY_RETURN_IF_ERROR(SendSasl(initiate));
  while (true) {
    TONY_ASSIGN_OR_RETURN(RpcSaslProto reply, ReceiveSasl(deadline));
    if (reply.state() == RpcSaslProto::SUCCESS) {
      if (!gss.complete()) {
        return Unauthenticated("SASL GSSAPI: the server ended before a security layer was chosen");
      }
      layer_ = gss.TakeSecurityLayer();
      TONY_LOG(kDebug) << "IPC: Kerberos authentication as " << options_.kerberos->principal()
                       << ", protection " << QopName(gss.qop());
      return Status::Ok();
    }
    if (reply.state() != RpcSaslProto::CHALLENGE) {
      return Internal("SASL: unexpected " + SaslStateName(reply.state()));
    }
    TONY_ASSIGN_OR_RETURN(std::string answer, gss.EvaluateChallenge(reply.token()));
    RpcSaslProto response;
    response.set_state(RpcSaslProto::RESPONSE);
    response.set_token(answer);
    TONY_RETURN_IF_ERROR(SendSasl(response));
  }
}

Status Connection::SendConnectionContext(bool simple) {
  // §1.6: call id −3, retry −1, our clientId; the server does not reply.
  auto header = MakeRequestHeader(kConnectionContextCallId, -1, options_.client_id);
  ::hadoop::common::IpcConnectionContextProto context;
  context.set_protocol(options_.protocol);
  auto* user_info = context.mutable_userinfo();  // always present; empty for TOKEN (§1.6)
  if (simple) user_info->set_effectiveuser(options_.user);
  if (!simple && options_.auth == AuthMethod::kKerberos) {
    if (options_.proxy_user.empty()) {
      user_info->set_effectiveuser(options_.kerberos->principal());  // §1.6: the full principal
    } else {
      user_info->set_effectiveuser(options_.proxy_user);
      user_info->set_realuser(options_.kerberos->principal());
    }
  }
  return SendFrame(BuildFrame({&header, &context}));
}

int32_t Connection::AsyncCall(std::string_view method, const google::protobuf::MessageLite& request,
                              Callback done) {
  // Java's Client: ids count up from 0 and wrap within the non-negative range (§1.4).
  int32_t call_id = next_call_id_.fetch_add(1) & 0x7FFFFFFF;
  CallSpec spec;
  spec.call_id = call_id;
  spec.client_id = options_.client_id;
  spec.method = method;
  spec.protocol = options_.protocol;
  spec.protocol_version = options_.protocol_version;
  std::string frame = BuildCallFrame(spec, request);
  {
    std::lock_guard<std::mutex> lock(calls_mu_);
    if (closed_) {
      Status why = broken_.ok() ? Unavailable("connection is closed") : broken_;
      done(why);
      return call_id;
    }
    calls_.emplace(call_id, std::move(done));
  }
  if (Status s = SendFrame(frame); !s.ok()) {
    healthy_ = false;
    Callback cb;
    {
      // A server that refuses the connection (a FATAL reply, e.g. "SIMPLE authentication is not
      // enabled") closes it at once, so the send can fail with EPIPE before the reader has read
      // the reason: give the reader a moment to fail the call with the server's own words.
      std::unique_lock<std::mutex> lock(calls_mu_);
      closed_cv_.wait_for(lock, std::chrono::seconds(1), [this] { return closed_; });
      auto it = calls_.find(call_id);
      if (it != calls_.end()) {
        cb = std::move(it->second);
        calls_.erase(it);
      }
    }
    if (cb) cb(s.WithContext("sending " + std::string(method)));
  }
  return call_id;
}

void Connection::Cancel(int32_t call_id) {
  Callback cb;
  {
    std::lock_guard<std::mutex> lock(calls_mu_);
    auto it = calls_.find(call_id);
    if (it == calls_.end()) return;
    cb = std::move(it->second);
    calls_.erase(it);
  }
  cb(Cancelled("call " + std::to_string(call_id) + " cancelled"));
}

Status Connection::Call(std::string_view method, const google::protobuf::MessageLite& request,
                        google::protobuf::MessageLite* response,
                        std::chrono::milliseconds timeout) {
  auto promise = std::make_shared<std::promise<Result<std::string>>>();
  auto future = promise->get_future();
  int32_t id = AsyncCall(method, request,
                         [promise](Result<std::string> r) { promise->set_value(std::move(r)); });
  if (future.wait_for(timeout) != std::future_status::ready) {
    Cancel(id);
    future.wait();  // Cancel or the reader has now completed it
    return DeadlineExceeded(std::string(method) + " to " + options_.host + ":" +
                            std::to_string(options_.port) + ": no reply within " +
                            std::to_string(timeout.count()) + " ms");
  }
  Result<std::string> bytes = future.get();
  if (!bytes.ok()) return bytes.status().WithContext(std::string(method));
  if (!response->ParseFromString(*bytes)) {
    return Internal(std::string(method) + ": cannot parse " + response->GetTypeName());
  }
  return Status::Ok();
}

void Connection::ReaderLoop() {
  while (true) {
    Result<std::string> body = ReadInboundFrame();
    if (!body.ok()) {
      FailAll(body.status());
      return;
    }
    Result<ResponseFrame> frame = ParseResponseFrame(*body);
    if (!frame.ok()) {
      FailAll(frame.status());
      return;
    }
    const auto& header = frame->header;
    if (header.status() == RpcResponseHeaderProto::FATAL) {
      // §1.7: the server closes after a FATAL reply; every call in flight is lost with it.
      FailAll(RemoteErrorStatus(header));
      return;
    }
    Callback cb;
    {
      std::lock_guard<std::mutex> lock(calls_mu_);
      auto it = calls_.find(frame->call_id());
      if (it != calls_.end()) {
        cb = std::move(it->second);
        calls_.erase(it);
      }
    }
    if (!cb) {
      // A reply for a call that timed out or was cancelled.
      TONY_LOG(kDebug) << "IPC: dropping reply for unknown call " << frame->call_id();
      continue;
    }
    if (header.status() == RpcResponseHeaderProto::SUCCESS) {
      cb(std::move(frame->payload));
    } else {
      cb(RemoteErrorStatus(header));
    }
  }
}

void Connection::FailAll(const Status& status) {
  healthy_ = false;
  std::map<int32_t, Callback> calls;
  {
    std::lock_guard<std::mutex> lock(calls_mu_);
    if (broken_.ok()) broken_ = status;
    calls.swap(calls_);
    closed_ = true;
  }
  closed_cv_.notify_all();
  for (auto& [id, cb] : calls) cb(status);
}

}  // namespace tony::hadoop::ipc
