// StallWatch: whether a running task makes progress (README "Stalls").
//
// Progress is any growth or touch of the task's stdout/stderr files (every local process's) or of
// $TONY_PROGRESS_FILE, which user code may touch (os.utime) when it has nothing to print. It is
// checked on a LoopTimer every timeout/10 (100 ms to 5 s): a stat per file, no read. Once
// `timeout_ms` passes without any, the watch asks every Python process of the task's process
// groups for its stacks (python_stacks.h), waits for the dumps (at most kDumpWaitMs), appends
// them to <log dir>/stacks.txt and calls on_change(true, note). The first line of the note is the
// summary ("no output or progress for 30 s (tony.worker.stall-timeout-ms = 30000); main thread of
// pid 412 in wait_for_peers at train.py:12; stacks in <log dir>/stacks.txt"), the stacks follow,
// cut at kMaxNoteStacks bytes. Progress after that calls on_change(false, ""); a later stall is
// captured again.
//
// Thread-safety: the loop's thread only. Owned by the executor's TaskRun.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "executor/event_loop.h"

namespace tony {

struct StallWatchOptions {
  int64_t timeout_ms = 0;
  std::string key;                 // "tony.worker.stall-timeout-ms", for the note
  std::string source;              // the file or flag that set it ("": its default)
  std::vector<std::string> files;  // the stdout/stderr files and the progress file
  std::string log_dir;             // where stacks.txt and the dumps go
};

class StallWatch {
 public:
  // `clock` times the silence (tests pass a SimClock); it must outlive the watch.
  StallWatch(TimeSource& time, std::function<void(bool stalled, const std::string& note)> on_change,
             const Clock& clock = SystemClock());

  // Starts watching; `groups` lists the task's live process groups when called.
  void Start(StallWatchOptions options, std::function<std::vector<pid_t>()> groups);
  void Stop();
  // One look at the files, what the watch's timer runs every timeout/10; tests call it directly.
  void Check();

 private:
  struct Seen {
    int64_t size = -1;
    int64_t mtime_ns = -1;
  };
  void BeginCapture(int64_t quiet_ms);
  void PollDumps();
  void FinishCapture();

  const Clock& clock_;
  std::function<void(bool, const std::string&)> on_change_;
  StallWatchOptions options_;
  std::function<std::vector<pid_t>()> groups_;
  LoopTimer check_;
  LoopTimer dump_poll_;
  std::vector<Seen> seen_;
  int64_t last_progress_ms_ = 0;
  bool stalled_ = false;
  bool capturing_ = false;
  int64_t quiet_ms_ = 0;
  int64_t capture_started_ms_ = 0;
  std::vector<pid_t> asked_;    // the processes sent the stacks signal
  std::vector<pid_t> skipped_;  // those of the groups that do not catch it
};

}  // namespace tony
