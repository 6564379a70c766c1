// JournalWriter: writes the AM's journal (docs/am-restart.md §3) off the coordinator's loop.
//
// The coordinator offers the journal's bytes after every change (Offer); one write is in flight
// at a time, on a thread of its own, and what is offered meanwhile replaces what waits, so the
// next write carries the latest journal and the changes made during a write are coalesced into
// it. Bytes equal to the last ones written are not written again. A failed write is a warning in
// the AM's log: the core never waits for the journal, and the next offer tries again.
//
// Owned by the Coordinator; Offer and Close on its loop, which the write's end is posted to.
// Close (at the job's end, before the AM unregisters and its staging dir goes) waits for the write
// in flight and drops what waits: nothing is written after it.
#pragma once

#include <asio.hpp>
#include <functional>
#include <optional>
#include <string>
#include <thread>

#include "common/status.h"

namespace tony {

class JournalWriter {
 public:
  // Writes the journal's bytes where the next AM attempt reads them; blocking, called on the
  // writer's thread.
  using Write = std::function<Status(const std::string& bytes)>;

  JournalWriter(asio::io_context& loop, Write write);
  ~JournalWriter();  // Close()
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  void Offer(std::string bytes);
  void Close();
  // Writes done (successful or not); for tests.
  int writes() const { return writes_; }

 private:
  void StartWrite();
  void OnWritten(const Status& s, const std::string& bytes);

  asio::io_context& loop_;
  Write write_;
  std::string written_;                 // the last bytes written, or being written
  std::optional<std::string> waiting_;  // offered during the write in flight
  bool in_flight_ = false;
  bool closed_ = false;
  int writes_ = 0;
  std::thread writer_;
};

}  // namespace tony
