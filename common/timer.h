// TimeSource and Timer: a daemon's clock and its wake-ups, injected so that tests run time.
//
// A daemon's loop reads the time only through TimeSource::clock() and sleeps only on its Timers.
// AsioTimeSource is the real one: common/clock's RealClock and asio::steady_timer on the daemon's
// loop. SimTimeSource (common/sim_time.h) is the test one: time stands still until the test
// advances it, and timers fire as the simulated time passes their deadline, so a 30 s timeout
// fires in microseconds and nothing waits for a fixed tick.
//
// Threading: a Timer is armed, cancelled and destroyed on its loop's thread, and its callback
// runs on that thread. clock() may be read from any thread.
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <functional>
#include <memory>

#include "common/clock.h"

namespace tony {

class Timer {
 public:
  virtual ~Timer() = default;
  // Runs `fire` on the loop once the clock's MonotonicMs() reaches `at_ms` (at once when it
  // already has). Arming again replaces the pending wake-up: its callback never runs.
  virtual void ArmAt(int64_t at_ms, std::function<void()> fire) = 0;
  // Drops the pending wake-up, if any.
  virtual void Cancel() = 0;
};

class TimeSource {
 public:
  virtual ~TimeSource() = default;
  virtual const Clock& clock() const = 0;
  // A timer on this source's loop; it must not outlive the source.
  virtual std::unique_ptr<Timer> NewTimer() = 0;
};

// The real time source over `io` (which must outlive it) and SystemClock().
class AsioTimeSource final : public TimeSource {
 public:
  explicit AsioTimeSource(asio::io_context& io) : io_(io) {}
  const Clock& clock() const override { return SystemClock(); }
  std::unique_ptr<Timer> NewTimer() override;

 private:
  asio::io_context& io_;
};

}  // namespace tony
