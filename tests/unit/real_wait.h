// How long a unit test waits in real time for something that happens on another thread (a loop's
// closure, a simulated clock's waiter) before it fails instead of hanging.
#pragma once

namespace tony {

inline constexpr int kRealWaitMs = 10'000;

}  // namespace tony
