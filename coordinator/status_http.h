// The YARN AM's read-only status endpoint: a tiny HTTP/1.1 server on the coordinator's loop that
// answers GET / (and /status.json) with the job's status as status.json holds it (the task table,
// states, exit codes, hosts and ports, log URLs, the diagnostics' tail). Registered as the
// application's tracking URL; `tony status <appId>` reads it through the RM's web proxy (README
// "A YARN job seen from anywhere").
//
// Who is answered (YARN's AmIpFilter way): with AllowOnly, only the RM's web proxy, recognised by
// its IP address (the proxy connects from its configured host, WebAppProxyServlet.proxyLink); the
// proxy in turn enforces the RM's authentication and the application's view ACL. Anyone else
// gets 403 and nothing of the job. Without AllowOnly (tests), every peer is answered.
//
// Bounded: a request head of at most kMaxHttpRequestHead bytes, read within kRequestTimeout (a
// connection that has not sent its whole head by then is closed unanswered); no body; one request
// per connection; PeerConnectionLimits on the connections served at once (more are closed
// unanswered), so that idle connections from one address cannot block the endpoint for others.
// Threading: every call and handler runs on the loop given to the constructor.
#pragma once

#include <asio.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "rpc/tony.pb.h"

namespace tony {

// The connections the endpoint serves at once, by the peer's address: at most kPerPeer from one
// address (kPerProxy from one of the web proxy's, which carries every user's requests), and at
// most kOthers from all but the proxy's together, so that neither one client nor all of them can
// crowd the proxy out. A plain value, owned by the server's loop.
class PeerConnectionLimits {
 public:
  static constexpr int kPerPeer = 4;
  static constexpr int kPerProxy = 16;
  static constexpr int kOthers = 16;

  // Counts a new connection from `peer` and returns true, or returns false when it is over a
  // limit (the connection is to be closed unanswered).
  bool TryOpen(const asio::ip::address& peer, bool proxy);
  // The end of a connection TryOpen counted.
  void Close(const asio::ip::address& peer, bool proxy);
  int Open(const asio::ip::address& peer) const;

 private:
  std::map<asio::ip::address, int> open_;
  int others_ = 0;
};

// An IPv4 peer of a dual-stack socket is an IPv4 address, not ::ffff:a.b.c.d.
asio::ip::address PlainAddress(const asio::ip::address& address);

// The IP addresses of `host_ports` ("host:port", the RM's web proxy), resolved now; a wildcard
// host (0.0.0.0) is this machine's name, as Hadoop's WebAppUtils.getResolvedAddress takes it.
// Hosts that do not resolve are named in `unresolved`.
std::vector<asio::ip::address> ResolveProxyHosts(const std::vector<std::string>& host_ports,
                                                 std::vector<std::string>* unresolved);

class StatusHttpServer {
 public:
  static constexpr std::chrono::milliseconds kRequestTimeout = std::chrono::seconds(5);

  // `status_json` is called on the loop for each GET. `request_timeout`: how long a client may
  // take to send its request head (kRequestTimeout; tests shorten it).
  StatusHttpServer(asio::io_context& io, std::function<Result<std::string>()> status_json,
                   std::chrono::milliseconds request_timeout = kRequestTimeout);
  ~StatusHttpServer();

  // Answers the job's status to these peers only (the RM's web proxy); others get 403. Call
  // before Start. An empty list answers nobody.
  void AllowOnly(const std::vector<asio::ip::address>& peers);

  // Listens on `bind_host`, an ephemeral port; returns the port.
  Result<int> Start(const std::string& bind_host);
  void Stop();

  // The response to one request head (HttpHeadLength bytes of it), status line to body: 200
  // with the status for GET/HEAD of / or /status.json, else 400 (malformed, or a GET with a
  // body), 404 or 405 (any other method). For tests.
  static std::string Respond(std::string_view head, const std::string& status_json, bool ok);
  // The answer to a peer that is not the web proxy: 403, nothing of the job.
  static std::string Forbidden();

 private:
  class Session;
  void Accept();

  std::function<Result<std::string>()> status_json_;
  std::chrono::milliseconds request_timeout_;
  asio::ip::tcp::acceptor acceptor_;
  std::optional<std::set<asio::ip::address>> allowed_;  // unset: every peer
  // Shared with the sessions, which may outlive the server by a write.
  std::shared_ptr<PeerConnectionLimits> limits_ = std::make_shared<PeerConnectionLimits>();
};

// One line naming every task's end, by state ("tasks: SUCCEEDED worker:0 worker:1; FAILED
// worker:2 (exit 3)"), for the RM's diagnostics: after the AM is gone, the application report is
// all that tells another client what happened (README "A YARN job seen from anywhere").
std::string TaskSummaryLine(const rpc::JobStatus& status);

}  // namespace tony
