// The YARN AM's read-only status endpoint: a tiny HTTP/1.1 server on the coordinator's loop that
// answers GET / (and /status.json) with the job's status as status.json holds it (the task table,
// states, exit codes, log URLs; nothing secret: no job secret, no token). Registered as the
// application's tracking URL, so `tony status <appId>` from any machine, and the RM's web proxy,
// read the live job without the control plane's secret (README "A YARN job seen from anywhere").
//
// Bounded: a request head of at most kMaxHttpRequestHead bytes, read within kRequestTimeout (a
// connection that has not sent its whole head by then is closed unanswered); no body; one request
// per connection; at most kMaxConnections at once (more are closed unanswered).
// Threading: every call and handler runs on the loop given to the constructor.
#pragma once

#include <asio.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "common/status.h"
#include "rpc/tony.pb.h"

namespace tony {

class StatusHttpServer {
 public:
  static constexpr int kMaxConnections = 16;
  static constexpr std::chrono::milliseconds kRequestTimeout = std::chrono::seconds(5);

  // `status_json` is called on the loop for each GET. `request_timeout`: how long a client may
  // take to send its request head (kRequestTimeout; tests shorten it).
  StatusHttpServer(asio::io_context& io, std::function<Result<std::string>()> status_json,
                   std::chrono::milliseconds request_timeout = kRequestTimeout);
  ~StatusHttpServer();

  // Listens on `bind_host`, an ephemeral port; returns the port.
  Result<int> Start(const std::string& bind_host);
  void Stop();

  // The response to one request head (HttpHeadLength bytes of it), status line to body: 200
  // with the status for GET/HEAD of / or /status.json, else 400 (malformed, or a GET with a
  // body), 404 or 405 (any other method). For tests.
  static std::string Respond(std::string_view head, const std::string& status_json, bool ok);

 private:
  class Session;
  void Accept();

  asio::io_context& io_;
  std::function<Result<std::string>()> status_json_;
  std::chrono::milliseconds request_timeout_;
  asio::ip::tcp::acceptor acceptor_;
  std::shared_ptr<int> open_ = std::make_shared<int>(0);  // connections being served
};

// One line naming every task's end, by state ("tasks: SUCCEEDED worker:0 worker:1; FAILED
// worker:2 (exit 3)"), for the RM's diagnostics: after the AM is gone, the application report is
// all that tells another client what happened (README "A YARN job seen from anywhere").
std::string TaskSummaryLine(const rpc::JobStatus& status);

}  // namespace tony
