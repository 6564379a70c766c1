#include "coordinator/status_http.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>

#include "common/http_request.h"
#include "common/log.h"
#include "common/net.h"
#include "common/task_state.h"

namespace tony {
namespace {

std::string Response(int code, const char* reason, const std::string& content_type,
                     const std::string& body, bool head_only) {
  std::string out = "HTTP/1.1 " + std::to_string(code) + " " + reason + "\r\n";
  out += "Content-Type: " + content_type + "\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  out += "Cache-Control: no-store\r\nConnection: close\r\n\r\n";
  if (!head_only) out += body;
  return out;
}

std::string Plain(int code, const char* reason, const std::string& why) {
  return Response(code, reason, "text/plain; charset=utf-8", why + "\n", false);
}

}  // namespace

bool PeerConnectionLimits::TryOpen(const asio::ip::address& peer, bool proxy) {
  int& from_peer = open_[peer];
  if (from_peer >= (proxy ? kPerProxy : kPerPeer) || (!proxy && others_ >= kOthers)) {
    if (from_peer == 0) open_.erase(peer);
    return false;
  }
  ++from_peer;
  if (!proxy) ++others_;
  return true;
}

void PeerConnectionLimits::Close(const asio::ip::address& peer, bool proxy) {
  auto it = open_.find(peer);
  if (it == open_.end()) return;
  if (--it->second == 0) open_.erase(it);
  if (!proxy) --others_;
}

int PeerConnectionLimits::Open(const asio::ip::address& peer) const {
  auto it = open_.find(peer);
  return it == open_.end() ? 0 : it->second;
}

asio::ip::address PlainAddress(const asio::ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6());
  }
  return address;
}

std::vector<asio::ip::address> ResolveProxyHosts(const std::vector<std::string>& host_ports,
                                                 std::vector<std::string>* unresolved) {
  std::vector<asio::ip::address> out;
  asio::io_context io;
  asio::ip::tcp::resolver resolver(io);
  for (const std::string& host_port : host_ports) {
    // The client checked these (hadoop/yarn/cluster_conf.h); one that is not host:port after all
    // resolves to nothing.
    auto address = ParseHostPort(host_port, "the RM's web proxy");
    if (!address.ok()) {
      if (unresolved != nullptr) unresolved->push_back(host_port);
      continue;
    }
    std::string host = address->host;
    if (host == "0.0.0.0" || host == "::") {
      std::array<char, 256> name{};
      if (::gethostname(name.data(), name.size() - 1) == 0) host = name.data();
    }
    std::error_code ec;
    auto results = resolver.resolve(host, "", ec);
    if (ec || results.empty()) {
      if (unresolved != nullptr) unresolved->push_back(host_port);
      continue;
    }
    for (const auto& r : results) {
      asio::ip::address a = PlainAddress(r.endpoint().address());
      if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
    }
  }
  return out;
}

std::string StatusHttpServer::Forbidden() {
  return Plain(403, "Forbidden",
               "forbidden: this endpoint answers the ResourceManager's web proxy only; read the "
               "job at its tracking URL (the ResourceManager's /proxy/<application id>/) or with "
               "`tony status <application id>`");
}

std::string StatusHttpServer::Respond(std::string_view head, const std::string& status_json,
                                      bool ok) {
  auto req = ParseHttpRequestHead(head);
  if (!req.ok()) return Plain(400, "Bad Request", "bad request: " + req.status().message());
  if (req->method != "GET" && req->method != "HEAD") {
    std::string r = Plain(405, "Method Not Allowed", "read-only: GET only");
    return r.insert(r.find("\r\n") + 2, "Allow: GET, HEAD\r\n");
  }
  if (req->has_body) return Plain(400, "Bad Request", "bad request: a GET with a body");
  // A proxy in front (the RM's) may double the leading slash.
  std::string_view path = req->path;
  while (path.size() > 1 && path[1] == '/') path.remove_prefix(1);
  if (path != "/" && path != "/status.json") {
    return Plain(404, "Not Found", "no such path; GET / for the job's status");
  }
  if (!ok) return Plain(500, "Internal Server Error", status_json);
  return Response(200, "OK", "application/json", status_json, req->method == "HEAD");
}

// One connection: read the head (bounded in size and time), answer, close.
class StatusHttpServer::Session : public std::enable_shared_from_this<Session> {
 public:
  // `peer` was counted in the server's limits (TryOpen, as the proxy or not); `allowed`: it may
  // read the job.
  Session(asio::ip::tcp::socket socket, StatusHttpServer* server, const asio::ip::address& peer,
          bool proxy, bool allowed)
      : socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        timeout_(server->request_timeout_),
        status_json_(server->status_json_),
        limits_(server->limits_),
        peer_(peer),
        proxy_(proxy),
        allowed_(allowed) {}
  ~Session() { limits_->Close(peer_, proxy_); }

  void Start() {
    timer_.expires_after(timeout_);
    timer_.async_wait([self = shared_from_this()](const std::error_code& ec) {
      if (!ec) self->Close();
    });
    Read();
  }

 private:
  void Read() {
    socket_.async_read_some(
        asio::buffer(chunk_), [self = shared_from_this()](const std::error_code& ec, size_t n) {
          if (ec) return self->Close();
          self->buffer_.append(self->chunk_.data(), n);
          size_t head = HttpHeadLength(self->buffer_);
          if (head > 0) return self->Answer(std::string_view(self->buffer_).substr(0, head));
          if (self->buffer_.size() > kMaxHttpRequestHead) {
            self->Write(Plain(
                431, "Request Header Fields Too Large",
                "the request head is over " + std::to_string(kMaxHttpRequestHead) + " bytes"));
            return;
          }
          self->Read();
        });
  }

  void Answer(std::string_view head) {
    if (!allowed_) return Write(Forbidden());
    Result<std::string> json = status_json_();
    Write(Respond(head, json.ok() ? *json : json.status().message(), json.ok()));
  }

  void Write(std::string response) {
    response_ = std::move(response);
    asio::async_write(socket_, asio::buffer(response_),
                      [self = shared_from_this()](const std::error_code&, size_t) {
                        std::error_code ignored;
                        self->socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
                        self->Close();
                      });
  }

  void Close() {
    std::error_code ignored;
    timer_.cancel();
    socket_.close(ignored);
  }

  asio::ip::tcp::socket socket_;
  asio::steady_timer timer_;
  std::chrono::milliseconds timeout_;
  std::function<Result<std::string>()> status_json_;
  std::shared_ptr<PeerConnectionLimits> limits_;
  asio::ip::address peer_;
  bool proxy_;
  bool allowed_;
  std::array<char, 1024> chunk_{};
  std::string buffer_;
  std::string response_;
};

StatusHttpServer::StatusHttpServer(asio::io_context& io,
                                   std::function<Result<std::string>()> status_json,
                                   std::chrono::milliseconds request_timeout)
    : status_json_(std::move(status_json)), request_timeout_(request_timeout), acceptor_(io) {}

StatusHttpServer::~StatusHttpServer() { Stop(); }

void StatusHttpServer::AllowOnly(const std::vector<asio::ip::address>& peers) {
  allowed_.emplace();
  for (const auto& p : peers) allowed_->insert(PlainAddress(p));
}

Result<int> StatusHttpServer::Start(const std::string& bind_host) {
  std::error_code ec;
  asio::ip::address address = asio::ip::make_address(bind_host, ec);
  if (ec) return InvalidArgument("status endpoint: bad bind address " + bind_host);
  asio::ip::tcp::endpoint endpoint(address, 0);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Unavailable("status endpoint on " + bind_host + ": " + ec.message());
  Accept();
  return static_cast<int>(acceptor_.local_endpoint().port());
}

void StatusHttpServer::Stop() {
  std::error_code ignored;
  acceptor_.close(ignored);
}

void StatusHttpServer::Accept() {
  acceptor_.async_accept([this](const std::error_code& ec, asio::ip::tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
    std::error_code peer_ec;
    asio::ip::tcp::endpoint remote =
        ec ? asio::ip::tcp::endpoint() : socket.remote_endpoint(peer_ec);
    if (!ec && !peer_ec) {
      asio::ip::address peer = PlainAddress(remote.address());
      // Without an allow-list every peer is answered, and every peer is held to kPerPeer.
      bool allowed = !allowed_ || allowed_->count(peer) > 0;
      bool proxy = allowed_ && allowed;
      if (limits_->TryOpen(peer, proxy)) {
        std::make_shared<Session>(std::move(socket), this, peer, proxy, allowed)->Start();
      } else {
        std::error_code ignored;
        socket.close(ignored);
      }
    }
    Accept();
  });
}

std::string TaskSummaryLine(const rpc::JobStatus& status) {
  std::vector<std::pair<std::string, std::string>> by_state;  // state -> tasks, first seen first
  for (const auto& t : status.tasks()) {
    std::string name = t.role() + ":" + std::to_string(t.index());
    if (t.signal() != 0 || (t.has_exit_code() && t.exit_code() != 0)) {
      name +=
          " (" +
          core::DescribeExit(t.has_exit_code() ? std::optional<int>(t.exit_code()) : std::nullopt,
                             t.signal()) +
          ")";
    }
    auto it = std::find_if(by_state.begin(), by_state.end(),
                           [&](const auto& e) { return e.first == t.state(); });
    if (it == by_state.end()) {
      by_state.emplace_back(t.state(), name);
    } else {
      it->second += " " + name;
    }
  }
  std::string line = "tasks:";
  for (size_t i = 0; i < by_state.size(); ++i) {
    line += (i == 0 ? " " : "; ") + by_state[i].first + " " + by_state[i].second;
  }
  if (by_state.empty()) line += " none";
  return line.size() > 2000 ? line.substr(0, 1997) + "..." : line;
}

}  // namespace tony
