// RpcClient: a Connection that reopens itself, with bounded, backed-off connection retries.
//
// Connecting is retried (exponential backoff) while the server cannot be reached; a call that was
// sent is never re-sent, because YARN calls such as submitApplication are not all idempotent.
// When the connection broke earlier (server restart, idle close, fatal reply) the next call
// opens a new one.
// Thread-safety: every method may be called from any thread; calls share one connection.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>

#include "common/status.h"
#include "hadoop/ipc/connection.h"

namespace tony::hadoop::ipc {

struct RetryPolicy {
  int max_connect_attempts = 10;
  std::chrono::milliseconds initial_backoff{200};
  std::chrono::milliseconds max_backoff{5000};
};

// The pause before connection attempt `attempt` (1 = the first retry): doubling, capped.
std::chrono::milliseconds BackoffBeforeAttempt(const RetryPolicy& policy, int attempt);

// Whether a failed connection attempt is worth repeating: unreachable or timed out, not refused
// authentication or a protocol error.
bool IsRetriableConnectError(const Status& status);

class RpcClient {
 public:
  using Sleeper = std::function<void(std::chrono::milliseconds)>;

  explicit RpcClient(ConnectionOptions options, RetryPolicy policy = {}, Sleeper sleeper = {});

  Status Call(std::string_view method, const google::protobuf::MessageLite& request,
              google::protobuf::MessageLite* response, std::chrono::milliseconds timeout);

  // The open connection, or a new one after up to max_connect_attempts tries.
  Result<std::shared_ptr<Connection>> GetConnection();

  // Replaces the token for later connections (e.g. a rolled AMRMToken, docs/hadoop-ipc.md §4.4);
  // the open connection stays authenticated.
  void SetToken(security::Token token);

  // Closes the open connection (calls in flight on it fail with kCancelled), so that the next
  // call connects, and authenticates, anew: with the token of the last SetToken.
  void CloseConnection();

 private:
  std::mutex mu_;
  ConnectionOptions options_;  // guarded by mu_
  RetryPolicy policy_;
  Sleeper sleeper_;
  std::shared_ptr<Connection> connection_;  // guarded by mu_
};

}  // namespace tony::hadoop::ipc
