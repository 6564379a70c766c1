// SimTimeSource: simulated time for a daemon's loop, in tests (the fake of common/timer.h).
//
// Time stands still until the test calls Advance. Advance runs on the loop: it moves the clock to
// each armed timer's deadline in turn, earliest first, and fires that timer there (a timer armed
// by a callback fires in the same Advance if its deadline is within it), then sets the clock to
// the target. So a daemon sees timeouts in the order they fall due, and a test decides exactly
// how much time passes between two of its steps.
//
// Threading: Advance is called from the test's thread, never from the loop's (it waits for the
// loop); timers and their callbacks belong to the loop; clock() may be read from any thread.
#pragma once

#include <asio.hpp>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>

#include "common/timer.h"

namespace tony {

class SimTimeSource final : public TimeSource {
 public:
  // `io` is the loop the timers fire on; it must outlive this source.
  SimTimeSource(asio::io_context& io, int64_t start_ms = 1'000'000);
  ~SimTimeSource() override;

  const Clock& clock() const override { return clock_; }
  std::unique_ptr<Timer> NewTimer() override;

  // Moves time forward by `ms` on the loop, firing due timers as described above. Returns false
  // when the loop did not run it within `wait_ms` of real time (the loop is stuck or stopped).
  [[nodiscard]] bool Advance(int64_t ms, int wait_ms = 10'000);

  // The earliest armed deadline, if any (read on the loop, as Advance does; -1 when none or when
  // the loop did not answer in time). Lets a test assert when the daemon means to wake.
  int64_t NextWakeMs(int wait_ms = 10'000);

 private:
  class SimClockView final : public Clock {
   public:
    explicit SimClockView(const std::atomic<int64_t>& now) : now_(now) {}
    int64_t MonotonicMs() const override { return now_.load(); }
    int64_t WallMs() const override { return 1'700'000'000'000 + now_.load(); }

   private:
    const std::atomic<int64_t>& now_;
  };
  class SimTimer;
  friend class SimTimer;

  // On the loop: fires every timer due by `target_ms`, in deadline order.
  void RunUntil(int64_t target_ms);
  SimTimer* EarliestArmed() const;

  asio::io_context& io_;
  std::atomic<int64_t> now_ms_;
  SimClockView clock_{now_ms_};
  mutable std::mutex mu_;       // guards timers_ (timers may be made before the loop runs)
  std::set<SimTimer*> timers_;  // every live timer, armed or not
};

}  // namespace tony
