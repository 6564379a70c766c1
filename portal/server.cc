#include "portal/server.h"

#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "common/clock.h"
#include "common/files.h"
#include "common/strings.h"
#include "history/job_dir.h"
#include "portal/html.h"
#include "portal/pages.h"

namespace tony::portal {
namespace {

constexpr char kHtml[] = "text/html; charset=utf-8";

int64_t NowMs() { return SystemClock().WallMs(); }

void SendHtml(httplib::Response& res, const std::string& html, int status = 200) {
  res.status = status;
  // The pages carry no script and load nothing from elsewhere: a job's text that escaped
  // escaping still could not run.
  res.set_header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_content(html, kHtml);
}

// The job named by the route's first group, or a 404 page sent.
std::optional<JobRecord> JobOf(const PortalOptions& o, const httplib::Request& req,
                               httplib::Response& res) {
  auto job = ReadJob(o.sources, req.matches[1].str());
  if (!job.ok()) {
    SendHtml(res, NotFoundPage(job.status().message()), 404);
    return std::nullopt;
  }
  return std::move(*job);
}

void ServeLogs(const PortalOptions& o, const httplib::Request& req, httplib::Response& res) {
  auto job = JobOf(o, req, res);
  if (!job) return;
  if (!req.has_param("task")) return SendHtml(res, LogsPage(*job));
  std::string task = req.get_param_value("task");
  std::string stream = req.get_param_value("stream");
  auto attempt = ParseInt64(req.get_param_value("attempt"));
  auto file = LogFile(*job, task, attempt ? static_cast<int>(*attempt) : -1, stream);
  if (!file.ok()) return SendHtml(res, NotFoundPage(file.status().message()), 404);
  std::string content = Join(TailOfFile(*file, SIZE_MAX, o.max_log_bytes), "\n");
  SendHtml(res, LogPage(*job, task, attempt.value_or(0), stream, ToValidUtf8(content)));
}

// A job's status.json as `tony status --json <id>` prints it (docs/status-json.md), or a JSON
// error: no such job, or one known only from its TonY history.
void ServeJobJson(const PortalOptions& o, const httplib::Request& req, httplib::Response& res) {
  auto job = ReadJob(o.sources, req.matches[1].str());
  Result<std::string> json =
      NotFound("job " + req.matches[1].str() + " is known only from its TonY history");
  if (!job.ok()) {
    json = job.status();
  } else if (job->status) {
    json = history::JobStatusJson(*job->status);
  }
  if (json.ok()) return res.set_content(*json, "application/json");
  res.status = json.status().code() == StatusCode::kNotFound ? 404 : 500;
  res.set_content(nlohmann::json{{"error", json.status().message()}}.dump() + "\n",
                  "application/json");
}

void AddRoutes(httplib::Server& server, const PortalOptions& o) {
  server.Get("/", [&o](const httplib::Request& req, httplib::Response& res) {
    SendHtml(res, JobsPage(ListJobs(o.sources), req.get_param_value("q"), NowMs()));
  });
  server.Get("/api/jobs", [&o](const httplib::Request& req, httplib::Response& res) {
    std::vector<JobSummary> jobs;
    for (auto& j : ListJobs(o.sources)) {
      if (Matches(j, req.get_param_value("q"))) jobs.push_back(std::move(j));
    }
    res.set_content(JobsJson(jobs, NowMs()), "application/json");
  });
  server.Get(R"(/api/jobs/([^/]+))", [&o](const httplib::Request& req, httplib::Response& res) {
    ServeJobJson(o, req, res);
  });
  server.Get(R"(/jobs/([^/]+))", [&o](const httplib::Request& req, httplib::Response& res) {
    if (auto job = JobOf(o, req, res)) SendHtml(res, JobPage(*job, NowMs(), o.refresh_s));
  });
  server.Get(R"(/config/([^/]+))", [&o](const httplib::Request& req, httplib::Response& res) {
    if (auto job = JobOf(o, req, res)) SendHtml(res, ConfigPage(*job));
  });
  server.Get(R"(/logs/([^/]+))",
             [&o](const httplib::Request& req, httplib::Response& res) { ServeLogs(o, req, res); });
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 404 && res.body.empty()) SendHtml(res, NotFoundPage(req.path), 404);
  });
}

std::string UrlOf(const std::string& bind, int port) {
  std::string host = bind == "0.0.0.0" || bind == "::" ? "localhost" : bind;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return "http://" + host + ":" + std::to_string(port) + "/";
}

}  // namespace

Status RunPortal(const PortalOptions& options,
                 const std::function<void(const std::string& url)>& on_listening) {
  if (!options.sources.history.empty() && !IsDirectory(options.sources.history)) {
    return InvalidArgument("--history " + options.sources.history + ": not a directory");
  }
  // SIGINT and SIGTERM are taken by sigwait below, not by the server's threads.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  httplib::Server server;
  // httplib's default adds SO_REUSEPORT, with which a second portal would share a port in use
  // instead of failing; SO_REUSEADDR alone still allows a restart while old connections linger.
  server.set_socket_options([](int sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  AddRoutes(server, options);
  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.bind);
  } else if (!server.bind_to_port(options.bind, port)) {
    port = -1;
  }
  if (port <= 0) {
    return Unavailable("cannot listen on " + options.bind + ":" + std::to_string(options.port) +
                       " (--bind, --port): the port is in use or the address is not this "
                       "machine's");
  }
  on_listening(UrlOf(options.bind, port));
  bool served = true;
  std::thread serving([&] {
    served = server.listen_after_bind();
    if (!served) ::kill(::getpid(), SIGTERM);  // ends the sigwait below
  });
  int signal = 0;
  sigwait(&stop_signals, &signal);
  server.stop();
  serving.join();
  return served ? Status() : Internal("the portal's server stopped with an error");
}

}  // namespace tony::portal
