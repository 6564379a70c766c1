// The YARN AM's read-only status endpoint: the request-head parser (common/http_request.h), the
// answers (coordinator/status_http.h), and the server over a real socket.
#include "coordinator/status_http.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <asio.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/http_request.h"

namespace tony {
namespace {

TEST(HttpRequestTest, FindsTheEndOfTheHead) {
  EXPECT_EQ(HttpHeadLength("GET / HTTP/1.1\r\nHost: a\r\n"), 0u);
  std::string crlf = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
  EXPECT_EQ(HttpHeadLength(crlf + "extra"), crlf.size());
  std::string lf = "GET / HTTP/1.0\n\n";
  EXPECT_EQ(HttpHeadLength(lf), lf.size());
}

TEST(HttpRequestTest, ParsesAGetWithQueryAndHeaders) {
  auto req = ParseHttpRequestHead(
      "GET /status.json?pretty=1 HTTP/1.1\r\nHost: nm1:8042\r\nAccept: */*\r\n\r\n");
  ASSERT_TRUE(req.ok()) << req.status().message();
  EXPECT_EQ(req->method, "GET");
  EXPECT_EQ(req->path, "/status.json");
  EXPECT_EQ(req->version, "HTTP/1.1");
}

TEST(HttpRequestTest, RefusesMalformedHeadsWithTheReason) {
  struct Case {
    std::string head, why;
  };
  for (const Case& c : std::vector<Case>{
           {"\r\n", "empty request"},
           {"GET /\r\n\r\n", "request line is not"},
           {"GET  / HTTP/1.1\r\n\r\n", "request line is not"},
           {"GET / HTTP/2\r\n\r\n", "unsupported version HTTP/2"},
           {"GET http://h/ HTTP/1.1\r\n\r\n", "not an absolute path"},
           {"G(T / HTTP/1.1\r\n\r\n", "bad method"},
           {"GET / HTTP/1.1\r\nno colon\r\n\r\n", "header line without a name"},
           {"GET / HTTP/1.1\r\nA: b\r\n continued\r\n\r\n", "folded header"},
           {std::string("GET / HTTP/1.1\r\nA: b\0c\r\n\r\n", 27), "control bytes in a header"},
           {"GET /" + std::string(kMaxHttpRequestHead, 'a') + " HTTP/1.1\r\n\r\n", "at most 8192"},
       }) {
    auto req = ParseHttpRequestHead(c.head);
    ASSERT_FALSE(req.ok()) << c.head;
    EXPECT_NE(req.status().message().find(c.why), std::string::npos)
        << c.head << ": " << req.status().message();
  }
  auto empty_body = ParseHttpRequestHead("GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
  ASSERT_TRUE(empty_body.ok());
  EXPECT_FALSE(empty_body->has_body);
  for (const char* with_body : {"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n",
                                "GET / HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n"}) {
    auto req = ParseHttpRequestHead(with_body);
    ASSERT_TRUE(req.ok()) << with_body;
    EXPECT_TRUE(req->has_body) << with_body;
  }
}

TEST(StatusHttpTest, AnswersGetOnlyWithTheStatus) {
  const std::string json = R"({"job_id": "application_1_0001"})";
  std::string ok = StatusHttpServer::Respond("GET / HTTP/1.1\r\n\r\n", json, true);
  EXPECT_EQ(ok.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << ok;
  EXPECT_NE(ok.find("Content-Type: application/json\r\n"), std::string::npos);
  EXPECT_NE(ok.find("Content-Length: " + std::to_string(json.size()) + "\r\n"), std::string::npos);
  EXPECT_EQ(ok.substr(ok.size() - json.size()), json);
  std::string head = StatusHttpServer::Respond("HEAD /status.json HTTP/1.1\r\n\r\n", json, true);
  EXPECT_EQ(head.find(json), std::string::npos) << head;
  std::string post = StatusHttpServer::Respond("POST / HTTP/1.1\r\n\r\n", json, true);
  EXPECT_EQ(post.rfind("HTTP/1.1 405 ", 0), 0u) << post;
  EXPECT_NE(post.find("Allow: GET, HEAD\r\n"), std::string::npos) << post;
  EXPECT_EQ(post.find(json), std::string::npos);
  EXPECT_EQ(
      StatusHttpServer::Respond("GET /etc HTTP/1.1\r\n\r\n", json, true).rfind("HTTP/1.1 404 ", 0),
      0u);
  std::string post_body =
      StatusHttpServer::Respond("POST / HTTP/1.1\r\nContent-Length: 1\r\n\r\n", json, true);
  EXPECT_EQ(post_body.rfind("HTTP/1.1 405 ", 0), 0u) << post_body;
  std::string get_body =
      StatusHttpServer::Respond("GET / HTTP/1.1\r\nContent-Length: 1\r\n\r\n", json, true);
  EXPECT_EQ(get_body.rfind("HTTP/1.1 400 ", 0), 0u) << get_body;
  EXPECT_EQ(get_body.find(json), std::string::npos);
  std::string bad = StatusHttpServer::Respond("GET x HTTP/1.1\r\n\r\n", json, true);
  EXPECT_EQ(bad.rfind("HTTP/1.1 400 ", 0), 0u) << bad;
  EXPECT_NE(bad.find("not an absolute path"), std::string::npos) << bad;
}

TEST(StatusHttpTest, TaskSummaryNamesEveryTaskByStateWithItsExitCode) {
  rpc::JobStatus status;
  auto add = [&status](const char* role, int index, const char* state, std::optional<int> exit) {
    rpc::TaskStatus* t = status.add_tasks();
    t->set_role(role);
    t->set_index(index);
    t->set_state(state);
    if (exit) t->set_exit_code(*exit);
  };
  EXPECT_EQ(TaskSummaryLine(status), "tasks: none");
  add("worker", 0, "SUCCEEDED", 0);
  add("ps", 0, "FAILED", 3);
  add("worker", 1, "SUCCEEDED", 0);
  add("chief", 0, "LOST", std::nullopt);
  add("evaluator", 0, "FAILED", std::nullopt);
  status.mutable_tasks()->rbegin()->set_signal(9);
  EXPECT_EQ(TaskSummaryLine(status),
            "tasks: SUCCEEDED worker:0 worker:1; FAILED ps:0 (exit 3) evaluator:0 (signal 9 "
            "(SIGKILL)); LOST chief:0");
}

// Sends `request` to the server on `port` from `source` (Linux routes all of 127/8 to lo, so a
// test can play another host) and reads until it closes the connection.
std::string Exchange(int port, const std::string& request, const char* source = "127.0.0.1") {
  asio::io_context io;
  asio::ip::tcp::socket s(io);
  s.open(asio::ip::tcp::v4());
  s.bind({asio::ip::make_address(source), 0});
  s.connect({asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)});
  std::error_code ec;
  asio::write(s, asio::buffer(request), ec);
  std::string out;
  std::array<char, 4096> buf{};
  for (;;) {
    size_t n = s.read_some(asio::buffer(buf), ec);
    out.append(buf.data(), n);
    if (ec) break;
  }
  return out;
}

TEST(StatusHttpTest, ServesOverASocketAndRefusesAnOversizedHead) {
  asio::io_context io;
  int calls = 0;
  StatusHttpServer server(io, [&calls]() -> Result<std::string> {
    ++calls;
    return std::string(R"({"phase": "RUNNING"})");
  });
  auto port = server.Start("127.0.0.1");
  ASSERT_TRUE(port.ok()) << port.status().message();
  auto guard = asio::make_work_guard(io);
  std::thread loop([&io] { io.run(); });
  std::string ok = Exchange(*port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(ok.rfind("HTTP/1.1 200 OK", 0), 0u) << ok;
  EXPECT_NE(ok.find(R"({"phase": "RUNNING"})"), std::string::npos) << ok;
  // Just over the bound, and no more: the server reads all of it, so its close sends no RST.
  std::string big = Exchange(*port, "GET /" + std::string(kMaxHttpRequestHead + 10, 'a'));
  EXPECT_EQ(big.rfind("HTTP/1.1 431 ", 0), 0u) << big.substr(0, 100);
  asio::post(io, [&] {
    server.Stop();
    guard.reset();
  });
  loop.join();
  EXPECT_EQ(calls, 1);  // the refused request never asked for the status
}

// README: a request head "not sent within 5 s, is refused". The server's bound is injected (a
// fifth of a second here), so the test shows the timer closes a slow client without waiting 5 s.
TEST(StatusHttpTest, ClosesAConnectionWhoseHeadIsNotSentInTime) {
  static_assert(StatusHttpServer::kRequestTimeout == std::chrono::seconds(5));
  asio::io_context io;
  int calls = 0;
  constexpr auto kTimeout = std::chrono::milliseconds(200);
  StatusHttpServer server(
      io,
      [&calls]() -> Result<std::string> {
        ++calls;
        return std::string("{}");
      },
      kTimeout);
  auto port = server.Start("127.0.0.1");
  ASSERT_TRUE(port.ok()) << port.status().message();
  auto guard = asio::make_work_guard(io);
  std::thread loop([&io] { io.run(); });
  auto sent = std::chrono::steady_clock::now();
  // A head without its closing empty line: the server waits for the rest, then gives up.
  std::string answer = Exchange(*port, "GET / HTTP/1.1\r\nHost: x\r\n");
  auto took = std::chrono::steady_clock::now() - sent;
  EXPECT_EQ(answer, "");  // closed unanswered
  EXPECT_GE(took, kTimeout);
  EXPECT_LT(took, StatusHttpServer::kRequestTimeout);
  // The rest of the server is unaffected: the next client is answered.
  std::string ok = Exchange(*port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(ok.rfind("HTTP/1.1 200 OK", 0), 0u) << ok;
  asio::post(io, [&] {
    server.Stop();
    guard.reset();
  });
  loop.join();
  EXPECT_EQ(calls, 1);
}

TEST(PeerConnectionLimitsTest, BoundsEachAddressAndAllButTheProxyTogether) {
  PeerConnectionLimits limits;
  auto a = asio::ip::make_address("10.0.0.1");
  auto proxy = asio::ip::make_address("10.0.0.9");
  for (int i = 0; i < PeerConnectionLimits::kPerPeer; ++i) EXPECT_TRUE(limits.TryOpen(a, false));
  EXPECT_FALSE(limits.TryOpen(a, false));  // one address: kPerPeer at once
  EXPECT_EQ(limits.Open(a), PeerConnectionLimits::kPerPeer);
  limits.Close(a, false);
  EXPECT_TRUE(limits.TryOpen(a, false));  // a closed one makes room
  // Every other address together: kOthers; the proxy still gets in.
  for (int host = 2;
       limits.TryOpen(asio::ip::make_address("10.0.1." + std::to_string(host)), false); ++host) {
    ASSERT_LT(host, 100);
  }
  EXPECT_FALSE(limits.TryOpen(asio::ip::make_address("10.0.2.1"), false));
  for (int i = 0; i < PeerConnectionLimits::kPerProxy; ++i) {
    EXPECT_TRUE(limits.TryOpen(proxy, true));
  }
  EXPECT_FALSE(limits.TryOpen(proxy, true));
  EXPECT_EQ(limits.Open(asio::ip::make_address("10.0.2.1")), 0);  // a refusal holds nothing
}

TEST(StatusHttpTest, ResolvesTheProxyHostsToAddresses) {
  std::vector<std::string> unresolved;
  auto addresses = ResolveProxyHosts(
      {"127.0.0.2:8088", "localhost:8088", "no-such-host.invalid:8088"}, &unresolved);
  EXPECT_NE(std::find(addresses.begin(), addresses.end(), asio::ip::make_address("127.0.0.2")),
            addresses.end());
  EXPECT_NE(std::find(addresses.begin(), addresses.end(), asio::ip::make_address("127.0.0.1")),
            addresses.end());
  EXPECT_EQ(unresolved, std::vector<std::string>{"no-such-host.invalid:8088"});
  EXPECT_EQ(PlainAddress(asio::ip::make_address("::ffff:10.1.2.3")),
            asio::ip::make_address("10.1.2.3"));
}

// The endpoint a port scan finds: only the RM's web proxy (here 127.0.0.2) reads the job; any
// other peer gets 403 and no byte of the status, whatever it asks.
TEST(StatusHttpTest, AnswersTheJobToTheProxyOnlyAndForbidsEveryoneElse) {
  asio::io_context io;
  int calls = 0;
  const std::string job = R"({"tasks": [{"host": "nm1", "port": 2222, "diagnostics": "x"}]})";
  StatusHttpServer server(io, [&]() -> Result<std::string> {
    ++calls;
    return job;
  });
  server.AllowOnly({asio::ip::make_address("127.0.0.2")});
  auto port = server.Start("127.0.0.1");
  ASSERT_TRUE(port.ok()) << port.status().message();
  auto guard = asio::make_work_guard(io);
  std::thread loop([&io] { io.run(); });
  for (const char* request : {"GET / HTTP/1.1\r\n\r\n", "GET /status.json HTTP/1.0\r\n\r\n",
                              "HEAD / HTTP/1.1\r\n\r\n", "GET x HTTP/1.1\r\n\r\n"}) {
    std::string refused = Exchange(*port, request, "127.0.0.3");
    EXPECT_EQ(refused.rfind("HTTP/1.1 403 Forbidden\r\n", 0), 0u) << refused;
    EXPECT_EQ(refused.find("nm1"), std::string::npos) << refused;
    EXPECT_NE(refused.find("web proxy"), std::string::npos) << refused;
  }
  std::string proxied = Exchange(*port, "GET / HTTP/1.1\r\n\r\n", "127.0.0.2");
  EXPECT_EQ(proxied.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << proxied;
  EXPECT_NE(proxied.find(job), std::string::npos) << proxied;
  asio::post(io, [&] {
    server.Stop();
    guard.reset();
  });
  loop.join();
  EXPECT_EQ(calls, 1);  // refused peers never had the status built for them
}

// Issue 28: 16 idle connections from one address used to block the endpoint for everyone.
// Now one address holds kPerPeer at most; the proxy, and other clients, are still answered.
TEST(StatusHttpTest, IdleConnectionsFromOneAddressDoNotBlockOthers) {
  asio::io_context io;
  StatusHttpServer server(
      io, []() -> Result<std::string> { return std::string("{}"); }, std::chrono::minutes(5));
  server.AllowOnly({asio::ip::make_address("127.0.0.2")});
  auto port = server.Start("127.0.0.1");
  ASSERT_TRUE(port.ok()) << port.status().message();
  auto guard = asio::make_work_guard(io);
  std::thread loop([&io] { io.run(); });
  asio::io_context client;
  std::vector<asio::ip::tcp::socket> idle;
  for (int i = 0; i < 16; ++i) {
    idle.emplace_back(client);
    idle.back().connect({asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(*port)});
  }
  // The 16 connections are held or closed by the server; either way the others get through.
  std::string proxied = Exchange(*port, "GET / HTTP/1.1\r\n\r\n", "127.0.0.2");
  EXPECT_EQ(proxied.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << proxied;
  std::string other = Exchange(*port, "GET / HTTP/1.1\r\n\r\n", "127.0.0.4");
  EXPECT_EQ(other.rfind("HTTP/1.1 403 ", 0), 0u) << other;
  // Past the fourth, the flooding address's connections were closed unanswered.
  int closed = 0;
  for (auto& s : idle) {
    std::array<char, 16> buf{};
    std::error_code ec;
    s.non_blocking(false);
    asio::write(s, asio::buffer(std::string("GET / HTTP/1.1\r\n\r\n")), ec);
    size_t n = ec ? 0 : s.read_some(asio::buffer(buf), ec);
    if (n == 0) ++closed;
  }
  EXPECT_EQ(closed, 16 - PeerConnectionLimits::kPerPeer);
  asio::post(io, [&] {
    server.Stop();
    guard.reset();
  });
  loop.join();
}

}  // namespace
}  // namespace tony
