#include "portal/pages.h"

#include <nlohmann/json.hpp>

#include "common/task_state.h"
#include "portal/charts.h"
#include "portal/html.h"

namespace tony::portal {
namespace {

std::string JobLink(const std::string& route, const std::string& id, const std::string& text) {
  return "<a href=\"/" + route + "/" + Escape(UrlEncode(id)) + "\">" + Escape(text) + "</a>";
}

std::string LogLink(const std::string& id, const std::string& task, int attempt,
                    const std::string& stream) {
  std::string href = "/logs/" + UrlEncode(id) + "?task=" + UrlEncode(task) +
                     "&attempt=" + std::to_string(attempt) + "&stream=" + UrlEncode(stream);
  return "<a href=\"" + Escape(href) + "\">" + Escape(stream) + "</a>";
}

std::string StateCell(const std::string& state) {
  return "<td class=\"state " + StateClass(state) + "\">" + Escape(state) + "</td>";
}

std::string Cell(const std::string& text) { return "<td>" + Escape(text) + "</td>"; }

std::string JobRow(const JobSummary& j, int64_t now_ms) {
  return "<tr class=\"job\"><td>" + JobLink("jobs", j.id, j.id) + "</td>" + Cell(j.name) +
         Cell(j.user) + Cell(j.framework) + Cell(j.queue) + StateCell(j.state) +
         Cell(WallTime(j.start_ms)) + Cell(Duration(j.start_ms, j.end_ms, now_ms)) +
         Cell(j.tasks < 0 ? "-" : std::to_string(j.tasks)) + Cell(j.message) + "</tr>\n";
}

std::string ExitText(const std::optional<int>& exit_code, int signal) {
  std::string exit = core::DescribeExit(exit_code, signal);
  return exit.empty() ? "-" : exit;
}

// A task's logs: links into /logs for files on this machine, the engine's URLs otherwise.
std::string LogLinks(const std::string& id, const std::string& task, int attempt,
                     const std::string& log_dir, const std::string& log_url) {
  std::string out;
  for (const char* stream : kLogStreams) {
    if (!log_dir.empty()) {
      out += LogLink(id, task, attempt, stream) + " ";
    } else if (!log_url.empty()) {
      out += "<a href=\"" + Escape(log_url + "/" + stream) + "\">" + Escape(stream) + "</a> ";
    }
  }
  return out.empty() ? "-" : out;
}

std::string TaskRows(const std::string& id, const rpc::TaskStatus& t) {
  std::string task = t.role() + ":" + std::to_string(t.index());
  std::optional<int> exit = t.has_exit_code() ? std::optional<int>(t.exit_code()) : std::nullopt;
  std::string host = t.host().empty() ? t.node() : t.host();
  std::string rows = "<tr class=\"task\" id=\"task-" + Escape(UrlEncode(task)) + "\">" +
                     Cell(task) + StateCell(t.state()) + Cell(std::to_string(t.attempt())) +
                     Cell(host.empty() ? "-" : host) + Cell(ExitText(exit, t.signal())) +
                     Cell(t.end_reason()) + "<td>" +
                     LogLinks(id, task, t.attempt(), t.log_dir(), t.log_url()) + "</td></tr>\n";
  for (const auto& p : t.past_attempts()) {
    std::optional<int> past_exit =
        p.has_exit_code() ? std::optional<int>(p.exit_code()) : std::nullopt;
    rows += "<tr class=\"past-attempt\">" + Cell(task + " (earlier)") + StateCell(p.state()) +
            Cell(std::to_string(p.attempt())) + Cell(p.host().empty() ? "-" : p.host()) +
            Cell(ExitText(past_exit, p.signal())) + Cell(p.end_reason()) + "<td>" +
            LogLinks(id, task, p.attempt(), p.log_dir(), "") + "</td></tr>\n";
  }
  return rows;
}

std::string TasksTable(const JobRecord& job) {
  if (!job.status) {
    return "<p>No task table: this job is known only from its TonY history file " +
           Escape(job.summary.jhist) + " (its events below).</p>\n";
  }
  std::string out =
      "<h2>Tasks</h2>\n<table id=\"tasks\"><tr><th>task</th><th>state</th><th>attempt</th>"
      "<th>host</th><th>exit</th><th>why it ended</th><th>logs</th></tr>\n";
  for (const auto& t : job.status->tasks()) out += TaskRows(job.summary.id, t);
  return out + "</table>\n";
}

// An events.jsonl line's field, or "" (history/job_dir.h: TaskEventLine, JobEndLine).
std::string Field(const JobEvent& e, const std::string& key) {
  for (const auto& [k, v] : e.fields) {
    if (k == key) return v;
  }
  return "";
}

// One timeline row: which task (or the job), which attempt, the state it went to, and the rest.
std::string EventRow(const JobEvent& e) {
  bool job_line = !Field(e, "job").empty();
  std::string state = job_line ? Field(e, "job") : Field(e, "state");
  std::string detail;
  for (const auto& [key, value] : e.fields) {
    if (key == "task" || key == "attempt" || key == "state" || key == "job") continue;
    detail += "<b>" + Escape(key) + "</b> " + Escape(value) + " ";
  }
  return "<tr class=\"event\">" + Cell(WallTime(e.time_ms)) +
         Cell(job_line ? "job" : Field(e, "task")) + Cell(Field(e, "attempt")) + StateCell(state) +
         "<td>" + detail + "</td></tr>\n";
}

std::string EventsTable(const JobRecord& job) {
  if (job.events.empty()) return "";
  std::string out =
      "<h2>Events</h2>\n<table id=\"events\"><tr><th>time</th><th>task</th><th>attempt</th>"
      "<th>state</th><th>detail</th></tr>\n";
  for (const auto& e : job.events) out += EventRow(e);
  return out + "</table>\n";
}

std::string SummaryList(const JobRecord& job, int64_t now_ms) {
  const JobSummary& j = job.summary;
  std::string out = "<table id=\"summary\">";
  auto row = [&](const std::string& name, const std::string& value_html) {
    out += "<tr><th>" + name + "</th><td>" + value_html + "</td></tr>";
  };
  row("state", "<span class=\"state " + StateClass(j.state) + "\">" + Escape(j.state) + "</span>");
  row("name", Escape(j.name));
  row("user", Escape(j.user));
  row("framework", Escape(j.framework));
  row("queue", Escape(j.queue));
  row("started", Escape(WallTime(j.start_ms)));
  row("duration", Escape(Duration(j.start_ms, j.end_ms, now_ms)));
  std::string message = job.status && j.state != "UNKNOWN" ? job.status->message() : j.message;
  if (!message.empty()) row("message", "<pre>" + Escape(message) + "</pre>");
  if (job.status && !job.status->tensorboard_url().empty()) {
    const std::string& url = job.status->tensorboard_url();
    row("TensorBoard", "<a href=\"" + Escape(url) + "\">" + Escape(url) + "</a>");
  }
  row("record", Escape(j.dir));
  return out + "</table>\n<p>" + JobLink("config", j.id, "configuration") + " " +
         JobLink("logs", j.id, "logs") + "</p>\n";
}

}  // namespace

std::string JobsPage(const std::vector<JobSummary>& jobs, const std::string& query,
                     int64_t now_ms) {
  std::string body =
      "<form method=\"get\" action=\"/\"><input type=\"search\" name=\"q\" value=\"" +
      Escape(query) +
      "\" placeholder=\"filter: id, name, user, framework, queue, state\" size=\"50\"> "
      "<button type=\"submit\">filter</button></form>\n"
      "<table id=\"jobs\"><tr><th>job</th><th>name</th><th>user</th><th>framework</th>"
      "<th>queue</th><th>state</th><th>started</th><th>duration</th><th>tasks</th>"
      "<th>message</th></tr>\n";
  int shown = 0;
  bool running = false;
  for (const auto& j : jobs) {
    if (!Matches(j, query)) continue;
    body += JobRow(j, now_ms);
    running = running || j.running;
    ++shown;
  }
  body += "</table>\n<p>" + std::to_string(shown) + " of " + std::to_string(jobs.size()) +
          " jobs. <a href=\"/api/jobs\">JSON</a></p>\n";
  return Page("Jobs", body, running ? 5 : 0);
}

std::string JobsJson(const std::vector<JobSummary>& jobs, int64_t now_ms) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& j : jobs) {
    list.push_back({{"job_id", j.id},
                    {"name", j.name},
                    {"user", j.user},
                    {"framework", j.framework},
                    {"queue", j.queue},
                    {"state", j.state},
                    {"start_wall_ms", j.start_ms},
                    {"end_wall_ms", j.end_ms},
                    {"started", WallTime(j.start_ms)},
                    {"duration", Duration(j.start_ms, j.end_ms, now_ms)},
                    {"tasks", j.tasks},
                    {"message", j.message}});
  }
  return nlohmann::json{{"jobs", list}}.dump(1, ' ', false,
                                             nlohmann::json::error_handler_t::replace) +
         "\n";
}

std::string JobPage(const JobRecord& job, int64_t now_ms, int refresh_s) {
  std::string body = SummaryList(job, now_ms) + TasksTable(job) + StartupChart(job) +
                     MemoryChart(job) + EventsTable(job);
  return Page("Job " + job.summary.id, body, job.summary.running ? refresh_s : 0);
}

std::string ConfigPage(const JobRecord& job) {
  std::string body = "<p>" + JobLink("jobs", job.summary.id, job.summary.id) + ": " +
                     Escape(job.config_file) + "</p>\n";
  if (job.config.empty()) return Page("Configuration of " + job.summary.id, body + "<p>none</p>");
  body += "<table id=\"config\"><tr><th>key</th><th>value</th></tr>\n";
  for (const auto& [key, value] : job.config) body += "<tr>" + Cell(key) + Cell(value) + "</tr>\n";
  return Page("Configuration of " + job.summary.id, body + "</table>\n");
}

std::string LogsPage(const JobRecord& job) {
  const std::string& id = job.summary.id;
  std::string body = "<p>" + JobLink("jobs", id, id) + "</p>\n<ul id=\"logs\">\n";
  if (!job.am_log.empty()) body += "<li>coordinator: " + LogLink(id, "am", 0, "am.log") + "</li>\n";
  if (job.status) {
    for (const auto& t : job.status->tasks()) {
      std::string task = t.role() + ":" + std::to_string(t.index());
      for (const auto& p : t.past_attempts()) {
        body += "<li>" + Escape(task) + " attempt " + std::to_string(p.attempt()) + ": " +
                LogLinks(id, task, p.attempt(), p.log_dir(), "") + "</li>\n";
      }
      body += "<li>" + Escape(task) + " attempt " + std::to_string(t.attempt()) + ": " +
              LogLinks(id, task, t.attempt(), t.log_dir(), t.log_url()) + "</li>\n";
    }
  }
  return Page("Logs of " + id, body + "</ul>\n");
}

std::string LogPage(const JobRecord& job, const std::string& task, int attempt,
                    const std::string& stream, const std::string& content) {
  const std::string& id = job.summary.id;
  std::string body = "<p>" + JobLink("jobs", id, id) + " " + JobLink("logs", id, "all logs") +
                     "</p>\n<pre id=\"log\">" + Escape(content) + "</pre>\n";
  std::string what = task == "am" ? "the coordinator's log"
                                  : task + " attempt " + std::to_string(attempt) + " " + stream;
  return Page(what + " of " + id, body, job.summary.running ? 5 : 0);
}

std::string NotFoundPage(const std::string& what) {
  return Page("Not found", "<p>" + Escape(what) + "</p>\n");
}

}  // namespace tony::portal
