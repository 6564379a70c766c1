// EventLoop: the executor's one loop (docs/architecture.md §4.3), an asio::io_context as the
// coordinator's is, run on the thread that calls Run(), with
//  - a signalfd for the signals the executor handles (SIGTERM, SIGINT, SIGHUP, SIGCHLD), which
//    BlockLoopSignals() blocks in every thread before any thread starts (Spawn unblocks them in
//    the child before exec), watched as an asio descriptor. A signalfd rather than
//    asio::signal_set: a handler-based signal would reach whichever thread has it unblocked (gRPC's
//    threads, a readiness wait), while a blocked signal waits in the fd for the loop;
//  - the coordinator's timers (common/timer.h's AsioTimeSource, steady_timers on the context)
//    behind each LoopTimer (heartbeat cadence, grace period, retry backoffs, timeouts);
//  - asio::post for the closures other threads (the gRPC completion queue's, a readiness wait)
//    hand to the loop.
// Nothing on the loop sleeps; handlers run one at a time on the thread that calls Run().
//
// The executor's parts (TaskRun, UserProcesses, ResultReporter, StallWatch, ControlPlane) see
// their loop only as an ExecutorLoop: its time and timers, Post and Quit. EventLoop is the real
// one; the in-process tests (tests/unit/executor_task_run_test.cc) run them on a fake over asio
// with simulated time (common/sim_time.h).
//
// Thread-safety: Post() may be called from any thread; everything else only from the loop's
// thread. Owns its signalfd; Timers must not outlive their loop.
#pragma once

#include <signal.h>

#include <asio.hpp>
#include <cstdint>
#include <functional>
#include <memory>

#include "common/status.h"
#include "common/timer.h"

namespace tony {

// Blocks SIGTERM, SIGINT, SIGHUP and SIGCHLD in the calling thread (and so in every thread it
// starts later) and ignores SIGPIPE. Call first thing in main(), before any thread exists.
void BlockLoopSignals();

// What the executor's parts need of the loop they run on: its time and timers (TimeSource), a
// way in from other threads, and its end.
class ExecutorLoop : public TimeSource {
 public:
  // Runs `fn` on the loop's thread; callable from any thread. Closures still queued when the loop
  // ends never run.
  virtual void Post(std::function<void()> fn) = 0;
  // Ends the loop with the executor's exit code.
  virtual void Quit(int code) = 0;
};

// A one-shot or periodic timer on a TimeSource's Timer (on EventLoop, an asio steady_timer).
// Re-arming replaces the previous arming. A periodic timer keeps its schedule: when the loop was
// late by more than a period, the beats missed are skipped rather than fired in a burst.
class LoopTimer {
 public:
  LoopTimer(TimeSource& time, std::function<void()> on_fire);
  LoopTimer(const LoopTimer&) = delete;
  LoopTimer& operator=(const LoopTimer&) = delete;

  // Fires once after `delay_ms` (0 or less: as soon as the loop turns), then every `period_ms`
  // when that is positive.
  void Arm(int64_t delay_ms, int64_t period_ms = 0);
  void Disarm();

 private:
  void ArmAt(int64_t at_ms);

  TimeSource& time_;
  std::unique_ptr<Timer> timer_;
  std::function<void()> on_fire_;
  int64_t period_ms_ = 0;
};

class EventLoop final : public ExecutorLoop {
 public:
  // Creates the signalfd (for the signals BlockLoopSignals blocks) and starts watching it.
  static Result<std::unique_ptr<EventLoop>> Create(std::function<void(int signal)> on_signal);
  ~EventLoop() override = default;
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // SystemClock(); timers are steady_timers on the loop's context.
  const Clock& clock() const override;
  std::unique_ptr<Timer> NewTimer() override;

  void Post(std::function<void()> fn) override;

  // Runs handlers until Quit(); returns the code given to Quit.
  int Run();
  void Quit(int code) override;

 private:
  explicit EventLoop(std::function<void(int)> on_signal);
  void AwaitSignals();
  void DrainSignals();

  // Declared first, destroyed last: the handlers still queued on it (posted closures, timer and
  // signal waits) are destroyed with it, never run.
  asio::io_context io_;
  AsioTimeSource time_{io_};
  asio::posix::stream_descriptor signal_fd_{io_};  // owns the signalfd
  std::function<void(int)> on_signal_;
  bool quit_ = false;  // the loop's thread only
  int exit_code_ = 0;
};

}  // namespace tony
