#include "client/render.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <utility>
#include <vector>

namespace tony::client {

namespace {

// A table column; an optional one is left out when all its cells are empty, and an empty cell
// of a shown column reads "-".
struct Column {
  explicit Column(std::string h, bool opt = false) : header(std::move(h)), optional(opt) {}
  std::string header;
  bool optional;
  std::vector<std::string> cells;
  bool Shown() const {
    return !optional ||
           std::any_of(cells.begin(), cells.end(), [](const auto& c) { return !c.empty(); });
  }
};

std::string Layout(const std::vector<Column>& all) {
  std::vector<const Column*> columns;
  for (const auto& c : all) {
    if (c.Shown()) columns.push_back(&c);
  }
  size_t rows = columns[0]->cells.size();
  std::vector<size_t> widths;
  for (const auto* c : columns) {
    size_t w = c->header.size();
    for (const auto& cell : c->cells) w = std::max(w, cell.size());
    widths.push_back(w);
  }
  std::string out;
  for (size_t r = 0; r <= rows; ++r) {
    std::string line;
    for (size_t i = 0; i < columns.size(); ++i) {
      const std::string& cell = r == 0 ? columns[i]->header : columns[i]->cells[r - 1];
      std::string text = cell.empty() ? "-" : cell;
      line += text;
      if (i + 1 < columns.size()) line += std::string(widths[i] - text.size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string Printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20) {
      out += '^';
      out.push_back(static_cast<char>(c + 0x40));
    } else if (c == 0x7f) {
      out += "^?";
    } else if (c == 0xc2 && i + 1 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      char hex[16];
      std::snprintf(hex, sizeof(hex), "<U+%04X>", static_cast<unsigned char>(text[i + 1]));
      out += hex;
      ++i;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

std::string RenderTaskTable(const rpc::JobStatus& status) {
  std::vector<const rpc::TaskStatus*> tasks;
  for (const auto& t : status.tasks()) tasks.push_back(&t);
  std::stable_sort(tasks.begin(), tasks.end(), [](const auto* a, const auto* b) {
    return std::make_pair(a->role(), a->index()) < std::make_pair(b->role(), b->index());
  });
  // NODE and LOG URL show on engines with cluster nodes (YARN); the LOG dir only for tasks
  // without a URL, as on YARN it is a path inside the AM's container.
  std::vector<Column> columns = {Column("ROLE"),          Column("INDEX"),     Column("STATE"),
                                 Column("NODE", true),    Column("HOST:PORT"), Column("EXIT"),
                                 Column("LOG URL", true), Column("LOG", true)};
  for (const auto* t : tasks) {
    std::string address = t->port() == 0 ? "" : t->host() + ":" + std::to_string(t->port());
    std::vector<std::string> row = {
        t->role(),    std::to_string(t->index()),
        t->state(),   t->node(),
        address,      t->has_exit_code() ? std::to_string(t->exit_code()) : "",
        t->log_url(), t->log_url().empty() ? t->log_dir() : ""};
    for (size_t i = 0; i < row.size(); ++i) columns[i].cells.push_back(Printable(row[i]));
  }
  return Layout(columns);
}

bool IsFinished(const rpc::JobStatus& status) { return status.phase() == rpc::FINISHED; }
bool Succeeded(const rpc::JobStatus& status) { return status.final_status() == rpc::SUCCEEDED; }

std::string RenderSummary(const rpc::JobStatus& status) {
  std::string out = "job " + status.job_id() + " " + rpc::FinalStatus_Name(status.final_status());
  if (status.end_wall_ms() > 0 && status.start_wall_ms() > 0) {
    char took[64];
    std::snprintf(took, sizeof(took), " after %.1f s",
                  static_cast<double>(status.end_wall_ms() - status.start_wall_ms()) / 1000.0);
    out += took;
  }
  if (!status.message().empty()) out += ": " + Printable(status.message());
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
        std::cout << "  " << Printable(task) << " " << Printable(row) << "\n";
    }
  }
  std::cout << std::flush;
  last_rows_ = std::move(rows);
}

}  // namespace tony::client
