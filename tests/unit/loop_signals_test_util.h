// The executor blocks its loop's signals first thing in main, before any thread exists, so every
// thread inherits the mask and SIGCHLD reaches the loop's signalfd. In a test binary other tests
// start threads (gRPC's) first; a signal left unblocked in one of them is delivered there and the
// loop never sees it (a 20 s hang, seen under load). Including this blocks them at the test
// binary's static initialization, as the executor does, once for the whole binary.
#pragma once

#include "executor/event_loop.h"

namespace tony {

[[maybe_unused]] inline const bool kLoopSignalsBlocked = [] {
  BlockLoopSignals();
  return true;
}();

}  // namespace tony
