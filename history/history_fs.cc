#include "history/history_fs.h"

#include <chrono>
#include <utility>

namespace tony::history {

// Everything below mu is guarded by it.
struct HistoryMirror::State {
  std::mutex mu;
  std::condition_variable changed;
  std::deque<std::pair<std::string, std::function<Status(HistoryFs&)>>> queue;
  bool busy = false;  // a call is being made
  bool stop = false;
  Status error;  // the first failure
};

void HistoryMirror::Work(const std::shared_ptr<HistoryFs>& fs,
                         const std::shared_ptr<State>& state) {
  std::unique_lock<std::mutex> lock(state->mu);
  for (;;) {
    state->changed.wait(lock, [&] { return state->stop || !state->queue.empty(); });
    if (state->stop) return;
    auto [what, call] = std::move(state->queue.front());
    state->queue.pop_front();
    state->busy = true;
    lock.unlock();
    Status s = call(*fs);
    lock.lock();
    state->busy = false;
    if (!s.ok()) {
      state->error = s.WithContext("cannot " + what + " on " + fs->Describe());
      state->queue.clear();  // the history has a hole now: nothing after it is written
    }
    state->changed.notify_all();
  }
}

HistoryMirror::HistoryMirror(std::shared_ptr<HistoryFs> fs)
    : fs_(std::move(fs)), state_(std::make_shared<State>()) {
  // The thread holds the file system and the state, not the mirror: it may outlive the mirror
  // while a call that stopped answering runs out its transfer timeout.
  std::thread([fs = fs_, state = state_] { Work(fs, state); }).detach();
}

HistoryMirror::~HistoryMirror() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->stop = true;
  state_->queue.clear();
  state_->changed.notify_all();
}

void HistoryMirror::Queue(std::string what, std::function<Status(HistoryFs&)> call) {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (!state_->error.ok()) return;
  state_->queue.emplace_back(std::move(what), std::move(call));
  state_->changed.notify_all();
}

Status HistoryMirror::error() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->error;
}

Status HistoryMirror::Drain(int64_t timeout_ms) {
  std::unique_lock<std::mutex> lock(state_->mu);
  bool done = state_->changed.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] {
    return !state_->error.ok() || (state_->queue.empty() && !state_->busy);
  });
  if (!state_->error.ok()) return state_->error;
  if (!done) {
    return DeadlineExceeded(fs_->Describe() + " did not take the job's history within " +
                            std::to_string(timeout_ms / 1000) + " s");
  }
  return Status::Ok();
}

}  // namespace tony::history
