#include "hadoop/ipc/failover.h"

#include <algorithm>
#include <cctype>
#include <thread>

#include "common/log.h"

namespace tony::hadoop::ipc {

std::chrono::milliseconds FailoverPause(const FailoverPolicy& policy, int failover, int servers) {
  int after_first_round = failover - std::max(servers - 1, 0);
  if (after_first_round < 0) return std::chrono::milliseconds(0);
  auto pause = policy.sleep_base;
  for (int i = 0; i < after_first_round && pause < policy.sleep_max; ++i) pause *= 2;
  return std::min(pause, policy.sleep_max);
}

FailureAction ClassifyFailure(const Status& status) {
  // Remote exceptions keep their Java class in the message (wire.cc; the connection puts the
  // method before it); of those only the ipc ones below map to kUnavailable, the rest mean the
  // active server answered.
  const std::string& m = status.message();
  if (m.find("org.apache.hadoop.ipc.RetriableException") != std::string::npos ||
      m.find("org.apache.hadoop.ipc.ServerTooBusyException") != std::string::npos) {
    return FailureAction::kRetrySame;
  }
  if (status.code() == StatusCode::kUnavailable || status.code() == StatusCode::kDeadlineExceeded) {
    return FailureAction::kFailover;  // transport failures and StandbyException
  }
  return FailureAction::kFail;
}

std::string ServerAddress::ToString() const {
  std::string address = host + ":" + std::to_string(port);
  return name.empty() || name == address ? address : name + " (" + address + ")";
}

std::string ReplaceHostPattern(const std::string& principal, const std::string& host) {
  // SecurityUtil.replacePattern: only a host component that is exactly _HOST, in lower case.
  size_t slash = principal.find('/');
  size_t at = principal.find('@');
  if (slash == std::string::npos || principal.compare(slash + 1, at - slash - 1, "_HOST") != 0) {
    return principal;
  }
  std::string lower = host;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return principal.substr(0, slash + 1) + lower +
         (at == std::string::npos ? "" : principal.substr(at));
}

FailoverRpcClient::FailoverRpcClient(std::vector<ServerAddress> servers, ConnectionOptions options,
                                     std::string what, FailoverPolicy policy, RetryPolicy single,
                                     Sleeper sleeper)
    : servers_(std::move(servers)),
      what_(std::move(what)),
      policy_(policy),
      sleeper_(std::move(sleeper)) {
  if (!sleeper_) sleeper_ = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
  // One client id across the servers, as Java's failover proxy keeps one (§1.3, retry cache).
  if (options.client_id.empty()) options.client_id = NewClientId();
  RetryPolicy per_server = single;
  if (servers_.size() > 1) {
    per_server.max_connect_attempts = 1 + std::max(policy_.connect_retries, 0);
  }
  for (const auto& s : servers_) {
    ConnectionOptions o = options;
    o.host = s.host;
    o.port = s.port;
    o.server_principal = ReplaceHostPattern(o.server_principal, s.host);
    clients_.push_back(std::make_unique<RpcClient>(o, per_server, sleeper_));
  }
}

ServerAddress FailoverRpcClient::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return servers_.empty() ? ServerAddress{} : servers_[current_];
}

void FailoverRpcClient::SetToken(const security::Token& token) {
  for (auto& c : clients_) c->SetToken(token);
}

void FailoverRpcClient::CloseConnection() {
  size_t index;
  {
    std::lock_guard<std::mutex> lock(mu_);
    index = current_;
  }
  if (index < clients_.size()) clients_[index]->CloseConnection();
}

Status FailoverRpcClient::Call(std::string_view method,
                               const google::protobuf::MessageLite& request,
                               google::protobuf::MessageLite* response,
                               std::chrono::milliseconds timeout) {
  if (clients_.empty()) return FailedPrecondition("no " + what_ + " address configured");
  size_t index;
  {
    std::lock_guard<std::mutex> lock(mu_);
    index = current_;
  }
  if (clients_.size() == 1) return clients_[0]->Call(method, request, response, timeout);
  int failovers = 0;
  while (true) {
    Status s = clients_[index]->Call(method, request, response, timeout);
    if (s.ok()) {
      if (failovers > 0) {
        TONY_LOG(kInfo) << "the active " << what_ << " is " << servers_[index].ToString();
      }
      return s;
    }
    FailureAction action = ClassifyFailure(s);
    if (action == FailureAction::kFail) return s;
    if (failovers >= policy_.max_failovers) {
      return s.WithContext(what_ + " " + servers_[index].ToString() + ", after " +
                           std::to_string(failovers) + " failovers (yarn.client.failover-max-" +
                           "attempts is " + std::to_string(policy_.max_failovers) + ")");
    }
    auto pause = FailoverPause(policy_, failovers, static_cast<int>(clients_.size()));
    size_t next = action == FailureAction::kRetrySame ? index : (index + 1) % clients_.size();
    TONY_LOG(kWarning) << method << " on " << what_ << " " << servers_[index].ToString()
                       << " failed (" << s.message() << "); "
                       << (next == index ? "retrying it"
                                         : "failing over to " + servers_[next].ToString())
                       << (pause.count() > 0 ? " in " + std::to_string(pause.count()) + " ms" : "");
    if (pause.count() > 0) sleeper_(pause);
    ++failovers;
    index = next;
    std::lock_guard<std::mutex> lock(mu_);
    current_ = index;
  }
}

}  // namespace tony::hadoop::ipc
