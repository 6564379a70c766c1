// Where a job's TonY history goes when it is not a directory of the coordinator's machine: a
// file system reached over the network (HDFS through WebHDFS on YARN, engine side in
// coordinator/yarn_am.cc), and the mirror that keeps its slow calls off the coordinator's loop.
//
// TonyHistoryWriter (history/tony_history.h) writes the events file locally, as it does for a
// local location, and queues each step on a HistoryMirror: the directories, tony-final.xml, every
// event's new bytes (an append), and at the end the renames into finished/. The mirror's thread
// makes the calls in order; the first that fails stops the mirror (a history with a hole is not
// worth writing on), and the writer reports that failure at its next event, or from Finish.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/status.h"

namespace tony::history {

// Paths are absolute paths of that file system, without scheme or authority.
class HistoryFs {
 public:
  virtual ~HistoryFs() = default;
  // "hdfs://nn:8020" or the like, for messages.
  virtual std::string Describe() const = 0;
  // Makes `path` and its missing parents (group access: 770); an existing directory is fine.
  virtual Status MakeDirs(const std::string& path) = 0;
  // Creates (or overwrites) a file with `data` (640).
  virtual Status Create(const std::string& path, const std::string& data) = 0;
  virtual Status Append(const std::string& path, const std::string& data) = 0;
  // Renames a file or a directory; `to` must not exist and its parent must.
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
};

class HistoryMirror {
 public:
  explicit HistoryMirror(std::shared_ptr<HistoryFs> fs);
  // Stops the thread after the call it is making; calls still queued are dropped. A call that
  // has not returned (a file system that stopped answering) is left to end on its own rather
  // than hold the coordinator's exit.
  ~HistoryMirror();
  HistoryMirror(const HistoryMirror&) = delete;
  HistoryMirror& operator=(const HistoryMirror&) = delete;

  // Queues one call; `what` names it in the error ("append to <path>").
  void Queue(std::string what, std::function<Status(HistoryFs&)> call);
  // The first failure so far (OK when none): never blocks.
  Status error() const;
  // Waits until every queued call was made, at most `timeout_ms`; the first failure, or an error
  // saying the file system did not finish in time.
  Status Drain(int64_t timeout_ms);

  const HistoryFs& fs() const { return *fs_; }

 private:
  struct State;
  // The thread: makes the queued calls in order until stopped.
  static void Work(const std::shared_ptr<HistoryFs>& fs, const std::shared_ptr<State>& state);

  std::shared_ptr<HistoryFs> fs_;
  std::shared_ptr<State> state_;  // shared with the thread, which may outlive the mirror
};

}  // namespace tony::history
