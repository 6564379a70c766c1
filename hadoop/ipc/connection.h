// One Hadoop IPC connection to one server for one protocol (docs/hadoop-ipc.md §1).
//
// Open() connects, sends the preamble, runs SASL when asked for TOKEN auth (§1.9, §2.2) or
// KERBEROS auth (SASL GSSAPI, sasl_gssapi.h), and sends the connection context (§1.6). When the
// negotiated protection is integrity or privacy, every later frame both ways travels wrapped in
// SASL WRAP messages (sasl_layer.h). After that any number of threads may call Call() or
// AsyncCall() at once: calls are multiplexed on the one socket and a reader thread matches
// replies to calls by call id (§1.2), so replies may arrive in any order.
//
// Ownership: the caller owns the Connection; destroying it closes the socket, joins the reader
// thread and fails the calls still in flight with kCancelled.
// Thread-safety: every public method may be called from any thread. AsyncCall callbacks run on
// the reader thread (or on the calling thread when the call fails before it is sent) and must
// not block or call back into this connection's Close()/destructor.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/status.h"
#include "hadoop/ipc/sasl_layer.h"
#include "hadoop/security/credentials.h"
#include "hadoop/security/kerberos.h"

namespace google::protobuf {
class MessageLite;
}
namespace hadoop::common {
class RpcSaslProto;
}

namespace tony::hadoop::ipc {

enum class AuthMethod {
  kSimple,    // preamble NONE, user name in the connection context (§2.1)
  kToken,     // preamble SASL, TOKEN / DIGEST-MD5 with `token` (§1.9, §2.2)
  kKerberos,  // preamble SASL, KERBEROS / GSSAPI with `kerberos` to `server_principal`
};

struct ConnectionOptions {
  std::string host;
  uint16_t port = 0;
  // Protocol name for the connection context and every call (§1.5, §4.1).
  std::string protocol;
  uint64_t protocol_version = 1;
  AuthMethod auth = AuthMethod::kSimple;
  // SIMPLE: the effective user; empty means DefaultUserName().
  std::string user;
  // TOKEN: the token whose identifier/password authenticate us.
  std::optional<security::Token> token;
  // KERBEROS: our login, and the principal the server must have (e.g.
  // yarn.resourcemanager.principal with _HOST replaced); a server that names another is refused.
  std::shared_ptr<security::KerberosCredentials> kerberos;
  std::string server_principal;
  // KERBEROS: when set, the user the calls run as (a proxy user, §1.6: effectiveUser is it and
  // realUser our principal); the server refuses the connection unless its
  // hadoop.proxyuser.<our short name>.* settings allow us to impersonate it.
  std::string proxy_user;
  // hadoop.rpc.protection: the levels we accept, preferred first. The default takes whatever
  // the server asks for, strongest first: the AM's token connections have no cluster config,
  // and the server decides the minimum anyway. The client passes the configured value.
  std::vector<Qop> protection{Qop::kPrivacy, Qop::kIntegrity, Qop::kAuthentication};
  // 16 bytes identifying this client (§1.3); empty means a fresh random id.
  std::string client_id;
  std::chrono::milliseconds connect_timeout{20000};
};

// $HADOOP_USER_NAME, else $USER, else the name of the effective uid (§2.1, SIMPLE).
std::string DefaultUserName();
// 16 random bytes (§1.3: anything but 16 bytes breaks the server's retry cache).
std::string NewClientId();

class Connection {
 public:
  using Clock = std::chrono::steady_clock;
  using Callback = std::function<void(Result<std::string> response_bytes)>;

  static Result<std::unique_ptr<Connection>> Open(ConnectionOptions options);

  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Sends `method` with `request` and blocks until the reply is parsed into `response`, the
  // server answers with an exception (Status mapped from the Java class, §1.7), the connection
  // breaks (kUnavailable) or `timeout` passes (kDeadlineExceeded; the late reply is dropped).
  Status Call(std::string_view method, const google::protobuf::MessageLite& request,
              google::protobuf::MessageLite* response, std::chrono::milliseconds timeout);

  // Sends the call and returns at once; `done` gets the raw response message bytes or the error.
  // Returns the call id, which Cancel() takes.
  int32_t AsyncCall(std::string_view method, const google::protobuf::MessageLite& request,
                    Callback done);
  // Forgets a call still in flight; its callback runs with kCancelled. No-op if already done.
  void Cancel(int32_t call_id);

  // False once the server closed the connection or a fatal reply arrived; make a new one then.
  bool healthy() const { return healthy_.load(); }
  const std::string& client_id() const { return options_.client_id; }
  const ConnectionOptions& options() const { return options_; }
  // The protection the handshake settled on (authentication unless a layer wraps frames).
  Qop protection() const { return layer_ ? layer_->qop() : Qop::kAuthentication; }

  // Fails the calls in flight with kCancelled and closes the socket. Idempotent.
  void Close();

 private:
  Connection(ConnectionOptions options, int fd);

  Status Handshake();
  Status SaslHandshake(bool* use_simple);
  Status DigestHandshake(const ::hadoop::common::RpcSaslProto& offer, Clock::time_point deadline);
  Status GssapiHandshake(const ::hadoop::common::RpcSaslProto& offer, Clock::time_point deadline);
  Status SendSasl(const ::hadoop::common::RpcSaslProto& message);
  Result<::hadoop::common::RpcSaslProto> ReceiveSasl(Clock::time_point deadline);
  Status SendConnectionContext(bool simple);
  // Reads one frame during the handshake (before the reader thread exists).
  Result<std::string> ReadFrameBody(std::optional<std::chrono::steady_clock::time_point> deadline);
  Status SendFrame(std::string_view frame);
  // The reader's next frame body: straight off the socket, or out of WRAP messages.
  Result<std::string> ReadInboundFrame();

  void ReaderLoop();
  void FailAll(const Status& status);

  ConnectionOptions options_;
  int fd_;
  std::atomic<bool> healthy_{true};
  std::atomic<int32_t> next_call_id_{0};

  // Set by the handshake for integrity/privacy, before the reader starts; never changed after.
  std::unique_ptr<SecurityLayer> layer_;
  UnwrappedFrames unwrapped_;  // reader thread only

  std::mutex write_mu_;  // one frame at a time on the socket
  std::mutex calls_mu_;
  std::map<int32_t, Callback> calls_;  // guarded by calls_mu_
  bool closed_ = false;                // guarded by calls_mu_
  Status broken_;                      // guarded by calls_mu_: why the connection died
  std::condition_variable closed_cv_;  // notified when closed_ turns true

  std::thread reader_;
};

}  // namespace tony::hadoop::ipc
