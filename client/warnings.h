// The client's warnings: one `tony: warning: ...` line on stderr for what failed without stopping
// the command (a record not written, a leftover not removed, a kill the RM refused). Each names
// the file, application or key and the reason (the failed Status's message), and what follows
// from it.
//
// Thread-safety: WarnIfFailed may be called from any thread (one write per line); a Warner
// belongs to one thread.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "common/status.h"

namespace tony::client {

// Prints "tony: warning: <what>: <s's message>[; <consequence>]" when `s` failed. Returns
// whether it did.
bool WarnIfFailed(const Status& s, std::string_view what, std::string_view consequence = {});

// For a failure that repeats (a write at every poll, a line per task): each distinct warning is
// printed once.
class Warner {
 public:
  bool WarnIfFailed(const Status& s, std::string_view what, std::string_view consequence = {});

 private:
  std::set<std::string> shown_;
};

}  // namespace tony::client
