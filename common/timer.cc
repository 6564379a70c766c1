#include "common/timer.h"

#include <chrono>
#include <utility>

namespace tony {
namespace {

// RealClock::MonotonicMs() counts steady_clock milliseconds, so a deadline in it converts to a
// steady_clock time point exactly, with no drift between the clock and the timer.
//
// asio may already have queued the handler of an expired wait when the timer is re-armed,
// cancelled or destroyed; it then runs with no error. The generation, shared with every handler,
// tells such a stale handler not to fire.
class AsioTimer final : public Timer {
 public:
  explicit AsioTimer(asio::io_context& io) : timer_(io) {}
  ~AsioTimer() override { ++*generation_; }

  void ArmAt(int64_t at_ms, std::function<void()> fire) override {
    uint64_t armed = ++*generation_;
    timer_.expires_at(std::chrono::steady_clock::time_point(std::chrono::milliseconds(at_ms)));
    timer_.async_wait(
        [generation = generation_, armed, fire = std::move(fire)](const std::error_code& ec) {
          if (!ec && *generation == armed) fire();
        });
  }

  void Cancel() override {
    ++*generation_;
    timer_.cancel();
  }

 private:
  std::shared_ptr<uint64_t> generation_ = std::make_shared<uint64_t>(0);
  asio::steady_timer timer_;
};

}  // namespace

std::unique_ptr<Timer> AsioTimeSource::NewTimer() { return std::make_unique<AsioTimer>(io_); }

}  // namespace tony
