#include "executor/event_loop.h"

#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <utility>

#include "common/clock.h"
#include "common/log.h"

namespace tony {
namespace {

sigset_t LoopSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGCHLD}) sigaddset(&set, sig);
  return set;
}

}  // namespace

void BlockLoopSignals() {
  sigset_t set = LoopSignals();
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
}

LoopTimer::LoopTimer(TimeSource& time, std::function<void()> on_fire)
    : time_(time), timer_(time.NewTimer()), on_fire_(std::move(on_fire)) {}

void LoopTimer::Arm(int64_t delay_ms, int64_t period_ms) {
  period_ms_ = period_ms;
  ArmAt(time_.clock().MonotonicMs() + std::max<int64_t>(delay_ms, 0));
}

void LoopTimer::Disarm() {
  period_ms_ = 0;
  timer_->Cancel();
}

void LoopTimer::ArmAt(int64_t at_ms) {
  timer_->ArmAt(at_ms, [this, at_ms] {
    if (period_ms_ > 0) {
      // The next beat on the schedule, after now; armed before on_fire_ so that the handler may
      // re-arm or disarm.
      const int64_t now = time_.clock().MonotonicMs();
      int64_t next = at_ms + period_ms_;
      if (next <= now) next += ((now - next) / period_ms_ + 1) * period_ms_;
      ArmAt(next);
    }
    on_fire_();
  });
}

EventLoop::EventLoop(std::function<void(int)> on_signal) : on_signal_(std::move(on_signal)) {}

Result<std::unique_ptr<EventLoop>> EventLoop::Create(std::function<void(int)> on_signal) {
  std::unique_ptr<EventLoop> loop(new EventLoop(std::move(on_signal)));
  sigset_t set = LoopSignals();
  const int fd = ::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd < 0) return ErrnoStatus("signalfd", errno);
  std::error_code ec;
  loop->signal_fd_.assign(fd, ec);
  if (ec) {
    ::close(fd);
    return Internal("watching the executor's signalfd: " + ec.message());
  }
  loop->AwaitSignals();
  return loop;
}

const Clock& EventLoop::clock() const { return time_.clock(); }

std::unique_ptr<Timer> EventLoop::NewTimer() { return time_.NewTimer(); }

void EventLoop::Post(std::function<void()> fn) {
  // quit_ is read on the loop's thread, where Quit sets it.
  asio::post(io_, [this, fn = std::move(fn)] {
    if (!quit_) fn();
  });
}

void EventLoop::Quit(int code) {
  if (quit_) return;
  quit_ = true;
  exit_code_ = code;
  io_.stop();  // Run returns once the handler that called Quit does; nothing after it runs
}

int EventLoop::Run() {
  if (quit_) return exit_code_;
  auto keep_running = asio::make_work_guard(io_);
  io_.run();
  return exit_code_;
}

void EventLoop::AwaitSignals() {
  signal_fd_.async_wait(asio::posix::stream_descriptor::wait_read, [this](std::error_code ec) {
    if (ec == asio::error::operation_aborted) return;  // the loop is going away
    if (ec) {
      // Cannot happen on a signalfd; if it did, the executor would no longer see SIGTERM or its
      // children's ends, so the task must not go on unwatched.
      TONY_LOG(kError) << "waiting on the executor's signalfd: " << ec.message();
      Quit(1);
      return;
    }
    DrainSignals();
    AwaitSignals();
  });
}

void EventLoop::DrainSignals() {
  signalfd_siginfo info{};
  while (::read(signal_fd_.native_handle(), &info, sizeof info) == sizeof info) {
    on_signal_(static_cast<int>(info.ssi_signo));
  }
}

}  // namespace tony
