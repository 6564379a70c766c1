#include "common/clock.h"

#include <chrono>

namespace tony {

int64_t RealClock::MonotonicMs() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t RealClock::WallMs() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

const Clock& SystemClock() {
  static const RealClock clock;
  return clock;
}

}  // namespace tony
