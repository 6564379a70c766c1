#include "executor/event_loop.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
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

timespec FromMs(int64_t ms) {
  timespec t{};
  t.tv_sec = static_cast<time_t>(ms / 1000);
  t.tv_nsec = static_cast<long>((ms % 1000) * 1'000'000);
  return t;
}

}  // namespace

void BlockLoopSignals() {
  sigset_t set = LoopSignals();
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
}

// A Timer on a timerfd of CLOCK_MONOTONIC, armed at an absolute time: RealClock::MonotonicMs()
// counts steady_clock milliseconds, which is CLOCK_MONOTONIC's time.
class EventLoop::FdTimer final : public Timer {
 public:
  explicit FdTimer(EventLoop& loop) : loop_(loop) {
    fd_ = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (fd_ < 0) {
      TONY_LOG(kError) << "timerfd_create: " << std::strerror(errno);
      return;
    }
    loop_.Watch(fd_, [this] { OnReadable(); });
  }

  ~FdTimer() override {
    if (fd_ < 0) return;
    loop_.Unwatch(fd_);
    ::close(fd_);
  }
  FdTimer(const FdTimer&) = delete;
  FdTimer& operator=(const FdTimer&) = delete;

  void ArmAt(int64_t at_ms, std::function<void()> fire) override {
    if (fd_ < 0) return;
    Set(at_ms > 0 ? FromMs(at_ms) : timespec{0, 1});  // a zero it_value would disarm
    fire_ = std::move(fire);
  }

  void Cancel() override {
    if (fd_ < 0) return;
    Set(timespec{});
    fire_ = nullptr;
  }

 private:
  // Drops an expiry not yet handled, then sets the expiry (absolute; zero disarms). The read
  // comes first: an expiry already past counts at once, and must fire. EAGAIN (the non-blocking
  // timerfd had none) is the usual result of the read, and no other error of a read into a local
  // of the right size can happen.
  void Set(timespec at) {
    uint64_t expirations = 0;
    (void)::read(fd_, &expirations, sizeof expirations);
    itimerspec spec{};
    spec.it_value = at;
    ::timerfd_settime(fd_, TFD_TIMER_ABSTIME, &spec, nullptr);
  }

  void OnReadable() {
    uint64_t expirations = 0;
    if (::read(fd_, &expirations, sizeof expirations) != sizeof expirations) return;
    if (!fire_) return;
    std::function<void()> fire = std::move(fire_);  // one-shot; the callback may arm it again
    fire_ = nullptr;
    fire();
  }

  EventLoop& loop_;
  int fd_ = -1;
  std::function<void()> fire_;
};

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

Result<std::unique_ptr<EventLoop>> EventLoop::Create(std::function<void(int)> on_signal) {
  std::unique_ptr<EventLoop> loop(new EventLoop());
  loop->on_signal_ = std::move(on_signal);
  loop->epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (loop->epoll_fd_ < 0) return ErrnoStatus("epoll_create1", errno);
  sigset_t set = LoopSignals();
  loop->signal_fd_ = ::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (loop->signal_fd_ < 0) return ErrnoStatus("signalfd", errno);
  loop->event_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (loop->event_fd_ < 0) return ErrnoStatus("eventfd", errno);
  EventLoop* self = loop.get();
  loop->Watch(loop->signal_fd_, [self] { self->DrainSignals(); });
  loop->Watch(loop->event_fd_, [self] { self->DrainPosted(); });
  return loop;
}

const Clock& EventLoop::clock() const { return SystemClock(); }

std::unique_ptr<Timer> EventLoop::NewTimer() { return std::make_unique<FdTimer>(*this); }

EventLoop::~EventLoop() {
  for (int fd : {event_fd_, signal_fd_, epoll_fd_}) {
    if (fd >= 0) ::close(fd);
  }
}

void EventLoop::Post(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(posted_mu_);
    posted_.push_back(std::move(fn));
  }
  uint64_t one = 1;
  // Can fail only with EAGAIN, when the counter is at its maximum: the loop is woken already.
  (void)::write(event_fd_, &one, sizeof one);
}

void EventLoop::Watch(int fd, std::function<void()> on_ready) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = fd;
  watched_[fd] = std::move(on_ready);
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    TONY_LOG(kError) << "epoll_ctl(ADD " << fd << "): " << std::strerror(errno);
  }
}

void EventLoop::Unwatch(int fd) {
  watched_.erase(fd);
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
}

void EventLoop::Quit(int code) {
  quit_ = true;
  exit_code_ = code;
}

int EventLoop::Run() {
  std::array<epoll_event, 16> events{};
  while (!quit_) {
    int n = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      TONY_LOG(kError) << "epoll_wait: " << std::strerror(errno);
      return 1;
    }
    for (int i = 0; i < n && !quit_; ++i) {
      auto it = watched_.find(events[static_cast<size_t>(i)].data.fd);
      if (it == watched_.end()) continue;          // unwatched by an earlier handler of this round
      std::function<void()> handler = it->second;  // the handler may unwatch its own fd
      handler();
    }
  }
  return exit_code_;
}

void EventLoop::DrainSignals() {
  signalfd_siginfo info{};
  while (::read(signal_fd_, &info, sizeof info) == sizeof info) {
    on_signal_(static_cast<int>(info.ssi_signo));
  }
}

void EventLoop::DrainPosted() {
  uint64_t count = 0;
  // Resets the wake-up counter; EAGAIN (no wake-up pending) is fine: the queue is read anyway.
  (void)::read(event_fd_, &count, sizeof count);
  std::deque<std::function<void()>> ready;
  {
    std::lock_guard<std::mutex> lock(posted_mu_);
    ready.swap(posted_);
  }
  for (auto& fn : ready) {
    if (quit_) break;
    fn();
  }
}

}  // namespace tony
