#include "portal/charts.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

#include "config/job_spec.h"
#include "config/key_names.h"
#include "portal/html.h"

namespace tony::portal {
namespace {

constexpr int kLabelWidth = 110;
constexpr int kBarsWidth = 520;
constexpr int kRowHeight = 34;

struct TaskMemory {
  std::string task;
  double max_bytes = 0;
  double avg_bytes = 0;
  std::optional<double> limit_bytes;  // the role's tony.<role>.memory
};

std::string Mib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.0f MiB", bytes / (1 << 20));
  return text;
}

std::string Num(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f", v);
  return text;
}

std::optional<double> RoleLimitBytes(const JobRecord& job, const std::string& role) {
  std::string key = keys::ForRole(keys::kRoleMemory, role);
  for (const auto& [k, value] : job.config) {
    if (k != key) continue;
    auto mb = ParseMemoryMb(value);
    if (mb.ok()) return static_cast<double>(*mb) * (1 << 20);
  }
  return std::nullopt;
}

std::vector<TaskMemory> TasksWithMemory(const JobRecord& job) {
  std::vector<TaskMemory> out;
  if (!job.status) return out;
  for (const auto& t : job.status->tasks()) {
    TaskMemory m;
    m.task = t.role() + ":" + std::to_string(t.index());
    bool any = false;
    for (const auto& metric : t.metrics()) {
      if (metric.name() == "MAX_MEMORY_BYTES") {
        m.max_bytes = metric.value();
        any = true;
      } else if (metric.name() == "AVG_MEMORY_BYTES") {
        m.avg_bytes = metric.value();
        any = true;
      }
    }
    if (!any) continue;
    m.limit_bytes = RoleLimitBytes(job, t.role());
    out.push_back(m);
  }
  return out;
}

// A bar of `bytes` at row `row`, `scale` pixels per byte.
std::string Bar(const TaskMemory& m, const char* kind, double bytes, int row, double scale,
                int y_offset, int height) {
  double y = row * kRowHeight + y_offset;
  return "<rect class=\"metric " + std::string(kind) + "\" data-task=\"" + Escape(m.task) +
         "\" data-value=\"" + Num(bytes) + "\" x=\"" + std::to_string(kLabelWidth) + "\" y=\"" +
         Num(y) + "\" width=\"" + Num(std::max(bytes * scale, 1.0)) + "\" height=\"" +
         std::to_string(height) + "\"><title>" + Escape(m.task) + " " + kind + " " + Mib(bytes) +
         "</title></rect>";
}

std::string Row(const TaskMemory& m, int row, double scale) {
  double y = row * kRowHeight;
  std::string out = "<text x=\"0\" y=\"" + Num(y + 20) + "\">" + Escape(m.task) + "</text>";
  out += Bar(m, "max", m.max_bytes, row, scale, 4, 12);
  out += Bar(m, "avg", m.avg_bytes, row, scale, 18, 8);
  if (m.limit_bytes) {
    double x = kLabelWidth + *m.limit_bytes * scale;
    out += "<line class=\"limit\" data-task=\"" + Escape(m.task) + "\" data-value=\"" +
           Num(*m.limit_bytes) + "\" x1=\"" + Num(x) + "\" x2=\"" + Num(x) + "\" y1=\"" +
           Num(y + 2) + "\" y2=\"" + Num(y + 28) + "\"><title>" + Escape(m.task) + " limit " +
           Mib(*m.limit_bytes) + "</title></line>";
  }
  std::string peak = Mib(m.max_bytes) + (m.limit_bytes ? " of " + Mib(*m.limit_bytes) : "");
  out += "<text class=\"value\" x=\"" + std::to_string(kLabelWidth + kBarsWidth + 10) + "\" y=\"" +
         Num(y + 20) + "\">" + Escape(peak) + "</text>";
  return out;
}

constexpr const char* kStartupStates[] = {"ALLOCATED", "REGISTERED", "RUNNING"};
constexpr const char* kStartupStages[] = {"containers allocated", "executors registered",
                                          "user processes running"};
constexpr const char* kStartupColors[] = {"#9cc0e6", "#3b6ea8", "#176f2c"};

std::string EventField(const JobEvent& e, const std::string& key) {
  for (const auto& [k, v] : e.fields) {
    if (k == key) return v;
  }
  return "";
}

// When every task's first attempt had reached each of kStartupStates (the last task to reach it);
// none from the first state some task has not reached.
std::vector<int64_t> StartupTimes(const JobRecord& job) {
  std::vector<int64_t> times;
  for (const char* state : kStartupStates) {
    int64_t last = 0;
    for (const auto& t : job.status->tasks()) {
      std::string task = t.role() + ":" + std::to_string(t.index());
      int64_t reached = 0;
      for (const auto& e : job.events) {
        if (EventField(e, "task") == task && EventField(e, "attempt") == "0" &&
            EventField(e, "state") == state) {
          reached = e.time_ms;
        }
      }
      if (reached == 0) return times;
      last = std::max(last, reached);
    }
    times.push_back(last);
  }
  return times;
}

}  // namespace

std::string StartupChart(const JobRecord& job) {
  if (!job.status || job.status->tasks_size() == 0 || job.status->start_wall_ms() <= 0) return "";
  std::vector<int64_t> times = StartupTimes(job);
  if (times.empty()) return "";
  int64_t start = job.status->start_wall_ms();
  double total = static_cast<double>(std::max<int64_t>(times.back() - start, 1));
  double scale = kBarsWidth / total;
  std::string bars, legend;
  int64_t from = start;
  for (size_t i = 0; i < times.size(); ++i) {
    int64_t ms = std::max<int64_t>(times[i] - from, 0);
    double x = kLabelWidth + static_cast<double>(from - start) * scale;
    bars += "<rect class=\"stage\" data-stage=\"" + std::string(kStartupStages[i]) +
            "\" data-ms=\"" + std::to_string(ms) + "\" x=\"" + Num(x) + "\" y=\"4\" width=\"" +
            Num(std::max(static_cast<double>(ms) * scale, 1.0)) + "\" height=\"16\" fill=\"" +
            kStartupColors[i] + "\"><title>" + kStartupStages[i] + ": " + std::to_string(ms) +
            " ms</title></rect>";
    legend += "<li><span style=\"color:" + std::string(kStartupColors[i]) + "\">&#9632;</span> " +
              kStartupStages[i] + ": " + std::to_string(ms) + " ms</li>";
    from = std::max(from, times[i]);
  }
  return "<h2>Start-up</h2>\n<svg id=\"startup\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
         std::to_string(kLabelWidth + kBarsWidth + 10) +
         "\" height=\"24\"><text x=\"0\" y=\"16\">" + std::to_string(times.back() - start) +
         " ms</text>" + bars + "</svg>\n<ul class=\"legend\">" + legend +
         "</ul>\n<p>From the coordinator's start until every task's first attempt had its "
         "container, its executor registered and its process running (events.jsonl).</p>\n";
}

std::string MemoryChart(const JobRecord& job) {
  std::vector<TaskMemory> tasks = TasksWithMemory(job);
  if (tasks.empty()) return "";
  double top = 1;
  for (const auto& m : tasks) top = std::max({top, m.max_bytes, m.limit_bytes.value_or(0)});
  double scale = kBarsWidth / top;
  int width = kLabelWidth + kBarsWidth + 160;
  int height = static_cast<int>(tasks.size()) * kRowHeight + 4;
  std::string svg = "<svg id=\"memory\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    std::to_string(width) + "\" height=\"" + std::to_string(height) +
                    "\" role=\"img\" aria-label=\"each task's memory\">";
  for (size_t i = 0; i < tasks.size(); ++i) svg += Row(tasks[i], static_cast<int>(i), scale);
  return "<h2>Memory</h2>\n<p>Each task's resident memory: the peak (dark), the mean (light) and "
         "its role's limit (red line).</p>\n" +
         svg + "</svg>\n";
}

}  // namespace tony::portal
