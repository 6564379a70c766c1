#include "executor/stall_watch.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>

#include "common/clock.h"
#include "common/files.h"
#include "common/log.h"
#include "executor/python_stacks.h"

namespace tony {
namespace {

constexpr int64_t kDumpWaitMs = 2'000;  // a process that has not answered by then will not
constexpr int64_t kDumpPollMs = 100;
constexpr size_t kMaxNoteStacks = 4'000;  // the note travels in heartbeats and the job's message
constexpr size_t kMaxDumpBytes = 1 << 20;

std::string UtcNow(const Clock& clock) {
  std::time_t t = static_cast<std::time_t>(clock.WallMs() / 1000);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string Seconds(int64_t ms) {
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
}

std::string DumpPath(const std::string& log_dir, pid_t pid) {
  return JoinPath(StacksDumpDir(log_dir), std::to_string(pid));
}

// Appends `text` to `path` (created if need be).
Status AppendToFile(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  int err = fd < 0 ? errno : WriteAllAndClose(fd, text);
  return err == 0 ? Status::Ok() : ErrnoStatus("cannot write " + path, err);
}

int64_t DumpSize(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

}  // namespace

StallWatch::StallWatch(TimeSource& time,
                       std::function<void(bool stalled, const std::string& note)> on_change,
                       const Clock& clock)
    : clock_(clock),
      on_change_(std::move(on_change)),
      check_(time, [this] { Check(); }),
      dump_poll_(time, [this] { PollDumps(); }) {}

void StallWatch::Start(StallWatchOptions options, std::function<std::vector<pid_t>()> groups) {
  options_ = std::move(options);
  groups_ = std::move(groups);
  seen_.assign(options_.files.size(), Seen{});
  last_progress_ms_ = clock_.MonotonicMs();
  const int64_t period = std::clamp<int64_t>(options_.timeout_ms / 10, 100, 5'000);
  check_.Arm(period, period);
}

void StallWatch::Stop() {
  check_.Disarm();
  dump_poll_.Disarm();
}

void StallWatch::Check() {
  bool progressed = false;
  for (size_t i = 0; i < options_.files.size(); ++i) {
    struct stat st {};
    Seen now;
    if (::stat(options_.files[i].c_str(), &st) == 0) {
      now.size = st.st_size;
      now.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    }
    if (now.size != seen_[i].size || now.mtime_ns != seen_[i].mtime_ns) progressed = true;
    seen_[i] = now;
  }
  const int64_t now_ms = clock_.MonotonicMs();
  if (progressed) {
    const int64_t quiet = now_ms - last_progress_ms_;
    last_progress_ms_ = now_ms;
    if (stalled_) {
      stalled_ = false;
      TONY_LOG(kInfo) << "progress again after " << Seconds(quiet) << " without";
      on_change_(false, "");
    }
    return;
  }
  const int64_t quiet = now_ms - last_progress_ms_;
  if (!stalled_ && !capturing_ && quiet >= options_.timeout_ms) BeginCapture(quiet);
}

void StallWatch::BeginCapture(int64_t quiet_ms) {
  capturing_ = true;
  quiet_ms_ = quiet_ms;
  capture_started_ms_ = clock_.MonotonicMs();
  asked_.clear();
  skipped_.clear();
  const int sig = StacksSignal();
  for (pid_t pid : ProcessesInGroups(groups_())) {
    if (!CatchesSignal(pid, sig)) {
      skipped_.push_back(pid);
      continue;
    }
    // The hook appends; an earlier capture's dump must not pass for this one's. No dump yet
    // (ENOENT) is the usual case.
    const std::string dump = DumpPath(options_.log_dir, pid);
    if (::truncate(dump.c_str(), 0) != 0 && errno != ENOENT) {
      TONY_LOG(kWarning) << ErrnoStatus("cannot empty " + dump, errno).message() << "; pid " << pid
                         << "'s stacks may be an earlier capture's";
    }
    if (::kill(pid, sig) == 0) asked_.push_back(pid);
  }
  if (asked_.empty()) {
    FinishCapture();
    return;
  }
  dump_poll_.Arm(kDumpPollMs, kDumpPollMs);
}

void StallWatch::PollDumps() {
  bool all = std::all_of(asked_.begin(), asked_.end(), [this](pid_t pid) {
    return DumpSize(DumpPath(options_.log_dir, pid)) > 0;
  });
  // One more poll after the last dump appeared: faulthandler writes a thread at a time.
  static constexpr int64_t kSettleMs = 2 * kDumpPollMs;
  if ((all && clock_.MonotonicMs() - capture_started_ms_ >= kSettleMs) ||
      clock_.MonotonicMs() - capture_started_ms_ >= kDumpWaitMs) {
    dump_poll_.Disarm();
    FinishCapture();
  }
}

void StallWatch::FinishCapture() {
  capturing_ = false;
  stalled_ = true;
  const std::string stacks_path = JoinPath(options_.log_dir, "stacks.txt");
  std::string summary = "no output or progress for " + Seconds(quiet_ms_) + " (" + options_.key +
                        " = " + std::to_string(options_.timeout_ms) +
                        (options_.source.empty() ? "" : ", from " + options_.source) + ")";
  std::string stacks;
  std::string where;
  std::vector<std::string> silent;
  for (pid_t pid : asked_) {
    auto dump = ReadFileBounded(DumpPath(options_.log_dir, pid), kMaxDumpBytes);
    if (!dump.ok() || dump->empty()) {
      silent.push_back(std::to_string(pid) + (IsStopped(pid) ? " (stopped)" : ""));
      continue;
    }
    stacks += "--- pid " + std::to_string(pid) + ": " + CommandLine(pid) + "\n" + *dump;
    if (!stacks.empty() && stacks.back() != '\n') stacks += '\n';
    if (std::string frame = InnermostMainFrame(*dump); where.empty() && !frame.empty()) {
      where = "; main thread of pid " + std::to_string(pid) + " in " + frame;
    }
  }
  summary += where;
  if (!silent.empty()) {
    std::string list;
    for (const std::string& s : silent) list += (list.empty() ? "" : ", ") + s;
    summary += "; no stacks from pid " + list + " within " + Seconds(kDumpWaitMs);
  }
  if (asked_.empty()) {
    std::string stopped;
    for (pid_t pid : skipped_) {
      if (IsStopped(pid)) stopped += (stopped.empty() ? "" : ", ") + std::to_string(pid);
    }
    summary += "; no Python stacks: no process of the task catches signal " +
               std::to_string(StacksSignal()) +
               " (not Python, or Python run with -E or -I, which ignore tony's PYTHONPATH hook)";
    if (!stopped.empty()) summary += "; stopped (SIGSTOP): pid " + stopped;
  }
  Status kept;
  if (!stacks.empty()) {
    std::string entry = "==== " + UtcNow(clock_) + " " + summary + "; stacks in " + stacks_path +
                        "\n" + stacks + "\n";
    kept = AppendToFile(stacks_path, entry);
    // Where the stacks could not be kept the note still carries their first part.
    summary += kept.ok() ? "; stacks in " + stacks_path : "; stacks not kept: " + kept.message();
  }
  std::string note = summary;
  if (!stacks.empty()) {
    note += "\n" + stacks.substr(0, kMaxNoteStacks);
    if (stacks.size() > kMaxNoteStacks) {
      note += "... (" + std::to_string(stacks.size() - kMaxNoteStacks) + " more bytes" +
              (kept.ok() ? " in " + stacks_path : std::string(", not kept")) + ")";
    }
  }
  TONY_LOG(kWarning) << "stalled: " << note;
  on_change_(true, note);
}

}  // namespace tony
