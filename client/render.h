// How a job's status looks on a terminal: the per-task table and the closing summary.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "rpc/tony.pb.h"

namespace tony::client {

// Text from tasks (stderr tails in failure messages, names from the job file) made harmless for
// a terminal: control characters other than newline and tab become caret notation (ESC is
// "^[", BEL "^G", CR "^M", DEL "^?"), and C1 controls (U+0080-U+009F, which some terminals obey
// as CSI/OSC) become "<U+009B>". Everything else, UTF-8 included, is kept.
std::string Printable(std::string_view text);

// ROLE INDEX STATE HOST:PORT EXIT REASON LOG, tasks in role then index order. EXIT is how the
// user process ended ("exit 3", "signal 9 (SIGKILL)"), REASON why the task ended (README "Task
// states"). With `max_width` > 0 every line fits it: the LOG column is cut first (keeping its
// end), then LOG URL and REASON, then whole lines. A line "TensorBoard: <url>" follows when the
// job has one (JobStatus::tensorboard_url).
std::string RenderTaskTable(const rpc::JobStatus& status, size_t max_width = 0);
// "exit 3", "signal 9 (SIGKILL)", or "" (no exit known).
std::string ExitWords(const rpc::TaskStatus& task);

// The REASON cell: why the task ended, or why a task of a later stage (one of `status`'s tasks)
// has no container yet.
std::string ReasonWords(const rpc::TaskStatus& task, const rpc::JobStatus& status);
// Whether a task's state is an end (today's names, and FINISHED/KILLED/UNKNOWN of older files).
bool TaskEnded(const std::string& state);
// "job <id> SUCCEEDED" / "job <id> FAILED: <message>"; after a success, one line per failed task
// the job did not wait for (a sidecar), with the last line of its diagnostics.
std::string RenderSummary(const rpc::JobStatus& status);
bool IsFinished(const rpc::JobStatus& status);

// Shows a job's progress as it changes. On a terminal the task table is redrawn in place, fitted
// to the terminal's width (so no line wraps and the redraw leaves no copies); to a file or pipe
// the whole table is written first and last, and one line per task each time its state, address,
// exit or reason changed (the final changes included), so logs stay short for large jobs.
class StatusPrinter {
 public:
  explicit StatusPrinter(bool tty) : tty_(tty) {}
  void Show(const rpc::JobStatus& status);

 private:
  // The terminal's columns (TIOCGWINSZ on stdout, else $COLUMNS); 0 when unknown.
  static size_t TerminalWidth();
  bool tty_;
  std::string last_table_;
  int lines_ = 0;
  std::map<std::string, std::string> last_rows_;  // "role:index" -> what was last shown
  std::string last_tensorboard_url_;
};
bool Succeeded(const rpc::JobStatus& status);

}  // namespace tony::client
