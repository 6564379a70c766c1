#include "hadoop/ipc/client.h"

#include <algorithm>
#include <thread>

#include "common/log.h"

namespace tony::hadoop::ipc {

std::chrono::milliseconds BackoffBeforeAttempt(const RetryPolicy& policy, int attempt) {
  auto backoff = policy.initial_backoff;
  for (int i = 1; i < attempt && backoff < policy.max_backoff; ++i) backoff *= 2;
  return std::min(backoff, policy.max_backoff);
}

bool IsRetriableConnectError(const Status& status) {
  return status.code() == StatusCode::kUnavailable ||
         status.code() == StatusCode::kDeadlineExceeded;
}

RpcClient::RpcClient(ConnectionOptions options, RetryPolicy policy, Sleeper sleeper)
    : options_(std::move(options)), policy_(policy), sleeper_(std::move(sleeper)) {
  if (!sleeper_) sleeper_ = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
  // One client id for every connection this client opens, as Java's Client does (§1.3).
  if (options_.client_id.empty()) options_.client_id = NewClientId();
}

void RpcClient::SetToken(security::Token token) {
  std::lock_guard<std::mutex> lock(mu_);
  options_.token = std::move(token);
}

void RpcClient::CloseConnection() {
  std::shared_ptr<Connection> open;
  {
    std::lock_guard<std::mutex> lock(mu_);
    open.swap(connection_);
  }
  if (open) open->Close();
}

Result<std::shared_ptr<Connection>> RpcClient::GetConnection() {
  std::lock_guard<std::mutex> lock(mu_);
  if (connection_ && connection_->healthy()) return connection_;
  connection_.reset();
  const int attempts = std::max(1, policy_.max_connect_attempts);
  Status last;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    if (attempt > 0) {
      auto pause = BackoffBeforeAttempt(policy_, attempt);
      TONY_LOG(kInfo) << "IPC: retrying " << options_.host << ":" << options_.port << " in "
                      << pause.count() << " ms (attempt " << attempt + 1 << " of " << attempts
                      << "): " << last.message();
      sleeper_(pause);
    }
    auto conn = Connection::Open(options_);
    if (conn.ok()) {
      connection_ = std::move(conn).value();
      return connection_;
    }
    last = conn.status();
    if (!IsRetriableConnectError(last)) return last;
  }
  return last.WithContext("giving up after " + std::to_string(attempts) + " connection attempts");
}

Status RpcClient::Call(std::string_view method, const google::protobuf::MessageLite& request,
                       google::protobuf::MessageLite* response, std::chrono::milliseconds timeout) {
  TONY_ASSIGN_OR_RETURN(std::shared_ptr<Connection> conn, GetConnection());
  return conn->Call(method, request, response, timeout);
}

}  // namespace tony::hadoop::ipc
