#include "client/render.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "common/task_state.h"

namespace tony::client {

namespace {

// A table column; an optional one is left out when all its cells are empty, and an empty cell
// of a shown column reads "-".
struct Column {
  explicit Column(std::string h, bool opt = false, int cut = 0, bool keep_end = false)
      : header(std::move(h)), optional(opt), cut_order(cut), keep_end(keep_end) {}
  std::string header;
  bool optional;
  int cut_order;  // 0: never cut to fit; else cut in increasing order
  bool keep_end;  // cut from the left (a path's end says the most)
  std::vector<std::string> cells;
  bool Shown() const {
    return !optional ||
           std::any_of(cells.begin(), cells.end(), [](const auto& c) { return !c.empty(); });
  }
};

constexpr size_t kMinCutWidth = 8;

// `text` cut to `width` characters, marking the cut with "...".
std::string Cut(const std::string& text, size_t width, bool keep_end) {
  if (text.size() <= width) return text;
  if (width <= 3) return text.substr(0, width);
  return keep_end ? "..." + text.substr(text.size() - (width - 3))
                  : text.substr(0, width - 3) + "...";
}

// Narrows the cuttable columns, in their cut order, until a line fits `max_width`.
void FitWidths(const std::vector<const Column*>& columns, std::vector<size_t>& widths,
               size_t max_width) {
  auto total = [&] {
    size_t sum = 2 * (widths.size() - 1);
    for (size_t w : widths) sum += w;
    return sum;
  };
  for (int order = 1; order <= 3 && total() > max_width; ++order) {
    for (size_t i = 0; i < columns.size(); ++i) {
      if (columns[i]->cut_order != order) continue;
      size_t excess = total() - std::min(total(), max_width);
      size_t floor = std::max(kMinCutWidth, columns[i]->header.size());
      if (widths[i] > floor) widths[i] -= std::min(excess, widths[i] - floor);
    }
  }
}

std::string Layout(const std::vector<Column>& all, size_t max_width) {
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
  if (max_width > 0) FitWidths(columns, widths, max_width);
  std::string out;
  for (size_t r = 0; r <= rows; ++r) {
    std::string line;
    for (size_t i = 0; i < columns.size(); ++i) {
      const std::string& cell = r == 0 ? columns[i]->header : columns[i]->cells[r - 1];
      std::string text = Cut(cell.empty() ? "-" : cell, widths[i], columns[i]->keep_end);
      line += text;
      if (i + 1 < columns.size()) line += std::string(widths[i] - text.size() + 2, ' ');
    }
    // Still too wide (a very narrow terminal): a wrapped line would break the redraw.
    if (max_width > 0 && line.size() > max_width) line.resize(max_width);
    out += line + "\n";
  }
  return out;
}

// A cell shows one line.
std::string Cell(const std::string& text) { return Printable(text.substr(0, text.find('\n'))); }

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

std::string ExitWords(const rpc::TaskStatus& task) {
  return core::DescribeExit(
      task.has_exit_code() ? std::optional<int>(task.exit_code()) : std::nullopt, task.signal());
}

std::string ReasonWords(const rpc::TaskStatus& task, const rpc::JobStatus& status) {
  if (!task.restart().empty() && TaskEnded(task.state()) && status.phase() == rpc::RUNNING) {
    return "restarting: " + task.restart();
  }
  if (!task.end_reason().empty()) return task.end_reason();
  if (task.state() == "STALLED") {  // the summary line; the stacks are in status.json
    return "stalled: " + task.stall().substr(0, task.stall().find('\n'));
  }
  if (!task.awaits().empty()) return "waits for " + task.awaits() + " to serve";
  if (!task.waits_for().empty()) return "waits for " + task.waits_for();
  if (task.state() != "NEW" || task.stage().empty() || task.stage() == "preprocess") return "";
  // Stages run in this order; a NEW task waits for the one before its own.
  static const char* const kOrder[] = {"preprocess", "prepare", "training"};
  std::string before;
  for (const char* stage : kOrder) {
    if (task.stage() == stage) break;
    for (const auto& t : status.tasks()) {
      if (t.stage() == stage) before = stage;
    }
  }
  if (before.empty()) return "";
  return before == "preprocess" ? "waits for the preprocess task am:0"
                                : "waits for the " + before + " stage";
}

bool TaskEnded(const std::string& state) {
  if (auto s = core::ParseTaskState(state)) return core::IsTerminal(*s);
  return state == "FINISHED" || state == "KILLED" || state == "UNKNOWN";  // older files
}

std::string RenderTaskTable(const rpc::JobStatus& status, size_t max_width) {
  std::vector<const rpc::TaskStatus*> tasks;
  for (const auto& t : status.tasks()) tasks.push_back(&t);
  std::stable_sort(tasks.begin(), tasks.end(), [](const auto* a, const auto* b) {
    return std::make_pair(a->role(), a->index()) < std::make_pair(b->role(), b->index());
  });
  // NODE and LOG URL show on engines with cluster nodes (YARN); the LOG dir only for tasks
  // without a URL, as on YARN it is a path inside the AM's container.
  // ATTEMPT shows once any task has restarted.
  const bool restarted =
      std::any_of(tasks.begin(), tasks.end(), [](const auto* t) { return t->attempt() > 0; });
  std::vector<Column> columns = {Column("ROLE"),
                                 Column("INDEX"),
                                 Column("ATTEMPT", true),
                                 Column("STATE"),
                                 Column("NODE", true),
                                 Column("HOST:PORT"),
                                 Column("EXIT"),
                                 Column("REASON", true, 3),
                                 Column("LOG URL", true, 2, true),
                                 Column("LOG", true, 1, true)};
  for (const auto* t : tasks) {
    std::string address = t->port() == 0 ? "" : t->host() + ":" + std::to_string(t->port());
    std::vector<std::string> row = {t->role(),
                                    std::to_string(t->index()),
                                    restarted ? std::to_string(t->attempt()) : "",
                                    t->state(),
                                    t->node(),
                                    address,
                                    ExitWords(*t),
                                    ReasonWords(*t, status),
                                    t->log_url(),
                                    t->log_url().empty() ? t->log_dir() : ""};
    for (size_t i = 0; i < row.size(); ++i) columns[i].cells.push_back(Cell(row[i]));
  }
  std::string out = Layout(columns, max_width);
  if (!status.tensorboard_url().empty()) {
    out += "TensorBoard: " + Printable(status.tensorboard_url()) + "\n";
  }
  return out;
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
  // A failed task the job did not wait for (a sidecar such as TensorBoard) leaves the job's
  // result as it is: its last line of diagnostics says what went wrong.
  for (const auto& t : status.tasks()) {
    if (t.tracked() || t.state() != "FAILED" || !Succeeded(status)) continue;
    std::string_view why = t.diagnostics();
    while (!why.empty() && why.back() == '\n') why.remove_suffix(1);
    if (size_t nl = why.rfind('\n'); nl != std::string_view::npos) why.remove_prefix(nl + 1);
    out += "  " + t.role() + ":" + std::to_string(t.index()) +
           " failed (the job does not wait for it)" + (why.empty() ? "" : ": " + Printable(why)) +
           "\n";
  }
  return out;
}

size_t StatusPrinter::TerminalWidth() {
  winsize ws{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (auto columns = ParseInt64(std::getenv("COLUMNS") ? std::getenv("COLUMNS") : "")) {
    if (*columns > 0) return static_cast<size_t>(*columns);
  }
  return 0;
}

void StatusPrinter::Show(const rpc::JobStatus& status) {
  if (tty_) {
    // One column short of the width: a line that fills the last column may wrap on some
    // terminals, and a wrapped line leaves a copy behind at the next redraw.
    size_t width = TerminalWidth();
    std::string table = RenderTaskTable(status, width > 1 ? width - 1 : 0);
    if (table == last_table_) return;
    last_table_ = table;
    if (lines_ > 0) std::cout << "\033[" << lines_ << "F\033[J";
    std::cout << table << std::flush;
    lines_ = static_cast<int>(std::count(table.begin(), table.end(), '\n'));
    return;
  }
  std::string table = RenderTaskTable(status);
  if (table == last_table_) return;
  bool first = last_table_.empty();
  last_table_ = table;
  std::map<std::string, std::string> rows;
  for (const auto& t : status.tasks()) {
    std::string row = t.state();
    if (t.port() != 0) row += " " + t.host() + ":" + std::to_string(t.port());
    if (std::string exit = ExitWords(t); !exit.empty()) row += " " + exit;
    if (std::string reason = ReasonWords(t, status); !reason.empty()) row += ": " + reason;
    rows[t.role() + ":" + std::to_string(t.index())] = row;
  }
  if (first) {
    std::cout << table;
  } else {
    for (const auto& [task, row] : rows) {
      auto it = last_rows_.find(task);
      if (it == last_rows_.end() || it->second != row)
        std::cout << "  " << Printable(task) << " " << Cell(row) << "\n";
    }
    if (status.tensorboard_url() != last_tensorboard_url_ && !IsFinished(status)) {
      std::cout << "  TensorBoard: " << Printable(status.tensorboard_url()) << "\n";
    }
    if (IsFinished(status)) std::cout << table;
  }
  last_tensorboard_url_ = status.tensorboard_url();
  std::cout << std::flush;
  last_rows_ = std::move(rows);
}

}  // namespace tony::client
