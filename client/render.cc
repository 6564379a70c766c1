#include "client/render.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <vector>

namespace tony::client {

std::string RenderTaskTable(const rpc::JobStatus& status) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"ROLE", "INDEX", "STATE", "HOST:PORT", "EXIT", "LOG"});
  std::vector<const rpc::TaskStatus*> tasks;
  for (const auto& t : status.tasks()) tasks.push_back(&t);
  std::stable_sort(tasks.begin(), tasks.end(), [](const auto* a, const auto* b) {
    return std::make_pair(a->role(), a->index()) < std::make_pair(b->role(), b->index());
  });
  for (const auto* t : tasks) {
    std::string address = t->port() == 0 ? "-" : t->host() + ":" + std::to_string(t->port());
    std::string exit = t->has_exit_code() ? std::to_string(t->exit_code()) : "-";
    rows.push_back(
        {t->role(), std::to_string(t->index()), t->state(), address, exit, t->log_dir()});
  }
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) widths[i] = std::max(widths[i], r[i].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(widths[i] - r[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

bool IsFinished(const rpc::JobStatus& status) { return status.phase() == "FINISHED"; }
bool Succeeded(const rpc::JobStatus& status) { return status.final_status() == "SUCCEEDED"; }

std::string RenderSummary(const rpc::JobStatus& status) {
  std::string out = "job " + status.job_id() + " " + status.final_status();
  if (status.end_wall_ms() > 0 && status.start_wall_ms() > 0) {
    char took[64];
    std::snprintf(took, sizeof(took), " after %.1f s",
                  static_cast<double>(status.end_wall_ms() - status.start_wall_ms()) / 1000.0);
    out += took;
  }
  if (!status.message().empty()) out += ": " + status.message();
  out += "\n";
  return out;
}

void StatusPrinter::Show(const rpc::JobStatus& status) {
  std::string table = RenderTaskTable(status);
  if (table == last_table_) return;
  bool first = last_table_.empty();
  last_table_ = table;
  if (tty_) {
    if (lines_ > 0) std::cout << "\033[" << lines_ << "F\033[J";
    std::cout << table << std::flush;
    lines_ = static_cast<int>(std::count(table.begin(), table.end(), '\n'));
    return;
  }
  std::map<std::string, std::string> rows;
  for (const auto& t : status.tasks()) {
    std::string row = t.state();
    if (t.port() != 0) row += " " + t.host() + ":" + std::to_string(t.port());
    if (t.has_exit_code()) row += " exit " + std::to_string(t.exit_code());
    rows[t.role() + ":" + std::to_string(t.index())] = row;
  }
  if (first || IsFinished(status)) {
    std::cout << table;
  } else {
    for (const auto& [task, row] : rows) {
      auto it = last_rows_.find(task);
      if (it == last_rows_.end() || it->second != row)
        std::cout << "  " << task << " " << row << "\n";
    }
  }
  std::cout << std::flush;
  last_rows_ = std::move(rows);
}

}  // namespace tony::client
