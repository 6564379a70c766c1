// Clock: the one place tony reads time. Daemons use RealClock; tests of pure logic use SimClock
// and advance it by hand, so timeouts fire without sleeping.
//
// Times are milliseconds. MonotonicMs() is for deadlines and durations; WallMs() (Unix epoch) only
// for what a person reads (logs, status files, history).
//
// Thread-safety: RealClock is safe from any thread; SimClock belongs to one test thread.
#pragma once

#include <cstdint>

namespace tony {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t MonotonicMs() const = 0;
  virtual int64_t WallMs() const = 0;
};

class RealClock final : public Clock {
 public:
  int64_t MonotonicMs() const override;
  int64_t WallMs() const override;
};

class SimClock final : public Clock {
 public:
  explicit SimClock(int64_t start_ms = 0) : now_ms_(start_ms) {}
  int64_t MonotonicMs() const override { return now_ms_; }
  int64_t WallMs() const override { return 1'700'000'000'000 + now_ms_; }
  void Advance(int64_t ms) { now_ms_ += ms; }

 private:
  int64_t now_ms_;
};

// The process-wide real clock.
const Clock& SystemClock();

}  // namespace tony
