// FailoverRpcClient: one protocol served by several servers of which one is active, as YARN's
// ResourceManagers are with HA on (yarn.resourcemanager.ha.rm-ids). Calls go to the server that
// answered last; when it cannot be reached, its connection breaks, or it answers
// org.apache.hadoop.ipc.StandbyException, the call goes to the next server in order, and so on
// round the list, with bounded failovers and backoff (FailoverPolicy, the yarn.client.failover-*
// keys). This is what Java's RMFailoverProxyProvider with RetryPolicies.failoverOnNetworkException
// does; like it, a call that was sent is sent again to the next server, because every YARN call
// tony makes is @Idempotent or @AtMostOnce on the RM side (submitApplication with the same id,
// allocate with the same response id, ...).
//
// With one server it behaves exactly like that server's RpcClient (connection retries, no
// re-send).
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "hadoop/ipc/client.h"

namespace tony::hadoop::ipc {

// Hadoop's names and defaults (yarn-default.xml; RMProxy.createRetryPolicy): with HA on,
//  max_failovers   yarn.client.failover-max-attempts, else connect.max-wait.ms / sleep_base
//                  (900000 / 30000 = 30)
//  sleep_base/max  yarn.client.failover-sleep-base-ms / -max-ms, else
//                  yarn.resourcemanager.connect.retry-interval.ms (30000)
//  connect_retries yarn.client.failover-retries (0): connection retries to one server before
//                  failing over from it (YARN sets ipc.client.connect.max.retries to it)
struct FailoverPolicy {
  int max_failovers = 30;
  std::chrono::milliseconds sleep_base{30000};
  std::chrono::milliseconds sleep_max{30000};
  int connect_retries = 0;
};

// The pause before failover number `failover` (0 = the first) over `servers` servers: none during
// the first round, so every server is tried at once (Java sleeps from its second failover on,
// which with three RMs delays reaching the third, YARN-11355); then sleep_base doubling per
// failover, capped at sleep_max. No jitter: tests and logs see the same numbers.
std::chrono::milliseconds FailoverPause(const FailoverPolicy& policy, int failover, int servers);

enum class FailureAction {
  kFail,       // an answer: the call failed on the server (or locally); no other server helps
  kFailover,   // unreachable, broken connection, timeout, or StandbyException: try the next
  kRetrySame,  // RetriableException / ServerTooBusyException: the active server, again, later
};
FailureAction ClassifyFailure(const Status& status);

// One server of the group: `name` for logs (the RM id, or its address when there are no ids).
struct ServerAddress {
  std::string name;
  std::string host;
  uint16_t port = 0;
  std::string ToString() const;  // "rm1 (host:port)" or "host:port"
};

// A Kerberos principal "service/_HOST@REALM" with _HOST replaced by `host` in lower case; each
// server of a FailoverRpcClient gets its own (Hadoop's SecurityUtil.getServerPrincipal).
std::string ReplaceHostPattern(const std::string& principal, const std::string& host);

class FailoverRpcClient {
 public:
  using Sleeper = RpcClient::Sleeper;

  // `options` without host/port: each server's connection gets its own. `what` names the
  // service in logs and errors ("ResourceManager"). `single` is the connection retry policy
  // when there is only one server.
  FailoverRpcClient(std::vector<ServerAddress> servers, ConnectionOptions options, std::string what,
                    FailoverPolicy policy = {}, RetryPolicy single = {}, Sleeper sleeper = {});

  Status Call(std::string_view method, const google::protobuf::MessageLite& request,
              google::protobuf::MessageLite* response, std::chrono::milliseconds timeout);

  // For every server's later connections (a rolled AMRMToken).
  void SetToken(const security::Token& token);
  // Closes the open connection to the current server.
  void CloseConnection();
  // The server calls go to now.
  ServerAddress Current() const;
  size_t size() const { return servers_.size(); }

 private:
  const std::vector<ServerAddress> servers_;
  const std::string what_;
  const FailoverPolicy policy_;
  Sleeper sleeper_;
  std::vector<std::unique_ptr<RpcClient>> clients_;  // one per server, same order
  mutable std::mutex mu_;
  size_t current_ = 0;  // guarded by mu_
};

}  // namespace tony::hadoop::ipc
