#include "common/sim_time.h"

#include <chrono>
#include <future>
#include <utility>

namespace tony {

class SimTimeSource::SimTimer final : public Timer {
 public:
  explicit SimTimer(SimTimeSource* source) : source_(source) {
    std::lock_guard<std::mutex> lock(source_->mu_);
    source_->timers_.insert(this);
  }
  ~SimTimer() override {
    std::lock_guard<std::mutex> lock(source_->mu_);
    source_->timers_.erase(this);
  }

  void ArmAt(int64_t at_ms, std::function<void()> fire) override {
    at_ms_ = at_ms;
    fire_ = std::move(fire);
    // A deadline already reached fires on the loop at once, as a real timer would.
    if (at_ms <= source_->now_ms_.load()) {
      asio::post(source_->io_, [source = source_] { source->RunUntil(source->now_ms_.load()); });
    }
  }

  void Cancel() override { fire_ = nullptr; }

  bool Armed() const { return fire_ != nullptr; }
  int64_t AtMs() const { return at_ms_; }
  // Disarms, then calls the callback (which may arm this timer again).
  void Fire() {
    std::function<void()> fire = std::move(fire_);
    fire_ = nullptr;
    fire();
  }

 private:
  SimTimeSource* source_;
  int64_t at_ms_ = 0;
  std::function<void()> fire_;
};

SimTimeSource::SimTimeSource(asio::io_context& io, int64_t start_ms) : io_(io), now_ms_(start_ms) {}

SimTimeSource::~SimTimeSource() = default;

std::unique_ptr<Timer> SimTimeSource::NewTimer() { return std::make_unique<SimTimer>(this); }

SimTimeSource::SimTimer* SimTimeSource::EarliestArmed() const {
  std::lock_guard<std::mutex> lock(mu_);
  SimTimer* earliest = nullptr;
  for (SimTimer* t : timers_) {
    if (t->Armed() && (earliest == nullptr || t->AtMs() < earliest->AtMs())) earliest = t;
  }
  return earliest;
}

void SimTimeSource::RunUntil(int64_t target_ms) {
  while (true) {
    SimTimer* next = EarliestArmed();
    if (next == nullptr || next->AtMs() > target_ms) break;
    if (next->AtMs() > now_ms_.load()) now_ms_.store(next->AtMs());
    next->Fire();
  }
  if (target_ms > now_ms_.load()) now_ms_.store(target_ms);
}

bool SimTimeSource::Advance(int64_t ms, int wait_ms) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> ran = done->get_future();
  asio::post(io_, [this, ms, done] {
    RunUntil(now_ms_.load() + ms);
    done->set_value();
  });
  return ran.wait_for(std::chrono::milliseconds(wait_ms)) == std::future_status::ready;
}

int64_t SimTimeSource::NextWakeMs(int wait_ms) {
  auto answer = std::make_shared<std::promise<int64_t>>();
  std::future<int64_t> got = answer->get_future();
  asio::post(io_, [this, answer] {
    SimTimer* next = EarliestArmed();
    answer->set_value(next == nullptr ? -1 : next->AtMs());
  });
  if (got.wait_for(std::chrono::milliseconds(wait_ms)) != std::future_status::ready) return -1;
  return got.get();
}

}  // namespace tony
