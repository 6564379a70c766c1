// In-process tests of the executor's TaskRun (executor/task_run.h): the real TaskRun,
// UserProcesses, ResultReporter and timers on a loop of asio with simulated time
// (common/sim_time.h), a fake coordinator (CoordinatorCalls) that answers, refuses, or stays
// silent until the call's deadline, and a fake launcher (ProcessLauncher) whose processes the test
// ends with an exit code or a signal.
//
// No test sleeps. Time moves only when a test calls Advance, which returns once the loop has fired
// every timer due; waits for the loop (the readiness wait's thread posting back, a spawn, the end
// of the run) are bounded in real time, so a broken executor fails a test instead of hanging it.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/sim_time.h"
#include "executor/control_plane.h"
#include "executor/event_loop.h"
#include "executor/task_run.h"
#include "executor/user_processes.h"
#include "tests/unit/real_wait.h"

namespace tony {
namespace {

constexpr int64_t kGraceMs = 5'000;
constexpr int64_t kIntervalMs = 1'000;
constexpr int kMaxMissed = 3;

// What the fakes saw, for the test's thread: guarded by the board's mutex, waited on through it.
struct Record {
  int registers = 0;
  std::vector<std::string> rejoins;  // the address each rejoin (RegisterTask, rejoin) went to
  int spec_requests = 0;
  int heartbeats = 0;
  std::vector<rpc::ReportResultRequest> reports;
  std::vector<pid_t> spawned;
  std::vector<std::pair<pid_t, int>> signals;  // (group, signal), in order
  std::optional<int> exit_code;                // what TaskRun quit the loop with
};

class Board {
 public:
  void Change(const std::function<void(Record&)>& change) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      change(record_);
    }
    cv_.notify_all();
  }
  Record Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return record_;
  }
  // Waits (bounded, in real time) until `done` holds.
  [[nodiscard]] bool WaitFor(const std::function<bool(const Record&)>& done) const {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::milliseconds(kRealWaitMs),
                        [&] { return done(record_); });
  }

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  Record record_;
};

// The executor's loop in a test: an io_context on a thread of its own, with simulated time.
// Closures posted after Quit never run, as on EventLoop.
class SimLoop final : public ExecutorLoop {
 public:
  explicit SimLoop(Board& board) : board_(board) {
    thread_ = std::thread([this] { io_.run(); });
  }
  ~SimLoop() override {
    work_.reset();
    io_.stop();
    thread_.join();
  }
  SimLoop(const SimLoop&) = delete;
  SimLoop& operator=(const SimLoop&) = delete;

  const Clock& clock() const override { return time_.clock(); }
  std::unique_ptr<Timer> NewTimer() override { return time_.NewTimer(); }
  void Post(std::function<void()> fn) override {
    asio::post(io_, [this, fn = std::move(fn)] {
      if (!quit_) fn();
    });
  }
  void Quit(int code) override {
    if (quit_) return;
    quit_ = true;
    board_.Change([code](Record& r) { r.exit_code = code; });
  }

  // Runs `fn` on the loop and waits (bounded) for it.
  void OnLoop(const std::function<void()>& fn) {
    auto done = std::make_shared<std::promise<void>>();
    std::future<void> ran = done->get_future();
    asio::post(io_, [fn, done] {
      fn();
      done->set_value();
    });
    ASSERT_EQ(ran.wait_for(std::chrono::milliseconds(kRealWaitMs)), std::future_status::ready);
  }
  void Advance(int64_t ms) { ASSERT_TRUE(time_.Advance(ms, kRealWaitMs)); }
  int64_t NowMs() const { return time_.clock().MonotonicMs(); }

 private:
  Board& board_;
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_ = asio::make_work_guard(io_);
  SimTimeSource time_{io_};
  bool quit_ = false;  // on the loop only
  std::thread thread_;
};

// How the fake coordinator answers every call from now on.
enum class Answer {
  kOk,
  kUnreachable,  // at once, kUnavailable: nothing listens at its address any more
  kSilent,       // never: the call fails with kDeadlineExceeded at its deadline
};

// The coordinator's side: answers on the loop, through timers of the simulated time, never within
// the call (as ControlPlane's completion queue does).
class FakeCoordinator final : public CoordinatorCalls {
 public:
  FakeCoordinator(TimeSource& time, Board& board) : time_(time), board_(board) {
    spec_.set_ready(true);
    spec_.set_spec_generation(1);
    (*spec_.mutable_cluster())["worker"].add_addresses("127.0.0.1:4000");
  }

  void set_answer(Answer answer) { answer_ = answer; }  // on the loop
  // The next heartbeat's answer asks the task to stop (the coordinator's stop).
  void StopTheTask() { stop_ = true; }  // on the loop
  // A rejoin is refused as a coordinator that does not know the task's attempt refuses it.
  void RefuseRejoins() { refuse_rejoins_ = true; }  // on the loop

  void RegisterTask(const rpc::RegisterTaskRequest& request, int timeout_ms,
                    std::function<void(Status)> done) override {
    if (request.rejoin()) {
      board_.Change([&](Record& r) { r.rejoins.push_back(address_); });
      EXPECT_EQ(request.task().attempt(), 0);  // the same attempt, never a new one
      Status answer =
          refuse_rejoins_ ? Status(StatusCode::kFailedPrecondition, "stale attempt") : Status::Ok();
      Reply<Status>(timeout_ms, std::move(done), answer);
      return;
    }
    board_.Change([](Record& r) { ++r.registers; });
    Reply<Status>(timeout_ms, std::move(done), Status::Ok());
  }
  void GetClusterSpec(const rpc::GetClusterSpecRequest& /*request*/, int timeout_ms,
                      std::function<void(Result<rpc::GetClusterSpecResponse>)> done) override {
    board_.Change([](Record& r) { ++r.spec_requests; });
    Reply<Result<rpc::GetClusterSpecResponse>>(timeout_ms, std::move(done), spec_);
  }
  void Heartbeat(const rpc::HeartbeatRequest& /*request*/, int timeout_ms,
                 std::function<void(Result<rpc::HeartbeatResponse>)> done) override {
    board_.Change([](Record& r) { ++r.heartbeats; });
    rpc::HeartbeatResponse resp;
    resp.set_stop(stop_);
    Reply<Result<rpc::HeartbeatResponse>>(timeout_ms, std::move(done), resp);
  }
  void ReportResult(const rpc::ReportResultRequest& request, int timeout_ms,
                    std::function<void(Status)> done) override {
    if (answer_ == Answer::kOk) board_.Change([&](Record& r) { r.reports.push_back(request); });
    Reply<Status>(timeout_ms, std::move(done), Status::Ok());
  }
  void Publish(const rpc::PublishRequest& /*request*/, int timeout_ms,
               std::function<void(Status)> done) override {
    Reply<Status>(timeout_ms, std::move(done), Status::Ok());
  }
  const std::string& address() const override { return address_; }
  void Retarget(const std::string& address) override { address_ = address; }

 private:
  template <typename T>
  void Reply(int timeout_ms, std::function<void(T)> done, T ok) {
    int64_t at = time_.clock().MonotonicMs();
    T answer = std::move(ok);
    if (answer_ == Answer::kUnreachable) {
      answer = Unavailable("failed to connect to all addresses");
    } else if (answer_ == Answer::kSilent) {
      at += timeout_ms;
      answer = T(Status(StatusCode::kDeadlineExceeded, "Deadline Exceeded"));
    }
    timers_.push_back(time_.NewTimer());
    timers_.back()->ArmAt(at,
                          [done = std::move(done), answer = std::move(answer)] { done(answer); });
  }

  TimeSource& time_;
  Board& board_;
  std::string address_ = "127.0.0.1:1";
  rpc::GetClusterSpecResponse spec_;
  Answer answer_ = Answer::kOk;
  bool stop_ = false;
  bool refuse_rejoins_ = false;
  std::vector<std::unique_ptr<Timer>> timers_;  // one per call, answered or not
};

// Where the coordinator listens now (the address file of docs/am-restart.md §4): answers on the
// loop, never within the call.
class FakeLocator final : public CoordinatorLocator {
 public:
  explicit FakeLocator(ExecutorLoop& loop) : loop_(loop) {}
  void set_address(std::string address) { address_ = std::move(address); }  // on the loop
  void Locate(std::function<void(Result<std::string>)> done) override {
    ++lookups_;
    Result<std::string> answer = address_.empty() ? Result<std::string>(NotFound("no address yet"))
                                                  : Result<std::string>(address_);
    loop_.Post([done = std::move(done), answer = std::move(answer)] { done(answer); });
  }
  int lookups() const { return lookups_; }  // on the loop

 private:
  ExecutorLoop& loop_;
  std::string address_;
  int lookups_ = 0;
};

// Processes that run until the test ends them (EndProcess), then wait to be reaped.
class FakeLauncher final : public ProcessLauncher {
 public:
  explicit FakeLauncher(Board& board) : board_(board) {}

  Result<pid_t> Spawn(const SpawnOptions& /*options*/) override {
    pid_t pid = next_pid_++;
    board_.Change([pid](Record& r) { r.spawned.push_back(pid); });
    return pid;
  }
  void SignalGroup(pid_t group, int sig) override {
    board_.Change([group, sig](Record& r) { r.signals.emplace_back(group, sig); });
  }
  std::optional<int> TryReap(pid_t pid) override {
    auto it = ended_.find(pid);
    if (it == ended_.end()) return std::nullopt;
    int status = it->second;
    ended_.erase(it);
    return status;
  }
  void KillDescendants() override {}
  int64_t DescendantsRssBytes() override { return 64 << 20; }

  // The process is gone with `wait_status` (waitpid's), not yet reaped. On the loop.
  void End(pid_t pid, int wait_status) { ended_[pid] = wait_status; }

 private:
  Board& board_;
  pid_t next_pid_ = 4242;
  std::map<pid_t, int> ended_;
};

int Exited(int code) { return code << 8; }  // waitpid's status of an exit with `code`
int Killed(int sig) { return sig; }         // ... of a death by `sig`

JobSpec OneWorker() {
  JobSpec spec;
  spec.framework = "generic";
  spec.heartbeat_interval_ms = kIntervalMs;
  spec.max_missed_heartbeats = kMaxMissed;
  RoleSpec worker;
  worker.name = "worker";
  worker.instances = 1;
  worker.command = "python train.py";
  spec.roles.push_back(worker);
  spec.chief_role = "worker";
  return spec;
}

// One TaskRun of worker:0 on the simulated loop, with its fakes.
class TaskRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/tony-task-run-test-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    id_.job_id = "task-run-test";
    id_.am_address = coordinator_.address();
    id_.role = "worker";
    id_.index = 0;
    id_.log_dir = dir;
    id_.host = "127.0.0.1";
  }

  void TearDown() override {
    loop_.OnLoop([this] { run_.reset(); });  // its timers and thread end on the loop
    std::error_code ec;
    std::filesystem::remove_all(id_.log_dir, ec);
  }

  // Creates the run and registers, on the loop.
  void Begin(int64_t registry_timeout_ms = 0) {
    loop_.OnLoop([this, registry_timeout_ms] {
      TaskRunOptions options;
      options.registry_timeout_ms = registry_timeout_ms;
      options.grace_ms = kGraceMs;
      options.locator = &locator_;
      run_ = std::make_unique<TaskRun>(loop_, coordinator_, launcher_, spec_, spec_.roles[0], id_,
                                       ReservedPort(), std::move(options));
      run_->Begin();
    });
  }

  // Begins and waits until the user process runs (after the registration, the spec and the
  // readiness wait's thread).
  pid_t BeginAndRun() {
    Begin();
    EXPECT_TRUE(board_.WaitFor([](const Record& r) { return !r.spawned.empty(); }))
        << "the user process never started";
    Record r = board_.Get();
    return r.spawned.empty() ? -1 : r.spawned[0];
  }

  // The process ends; the loop gets SIGCHLD, as from its signalfd.
  void EndProcess(pid_t pid, int wait_status) {
    loop_.OnLoop([this, pid, wait_status] {
      launcher_.End(pid, wait_status);
      run_->OnSignal(SIGCHLD);
    });
  }

  void Signal(int sig) {
    loop_.OnLoop([this, sig] { run_->OnSignal(sig); });
  }

  std::vector<int> SignalsTo(pid_t pid) const {
    std::vector<int> sent;
    for (const auto& [group, sig] : board_.Get().signals) {
      if (group == pid) sent.push_back(sig);
    }
    return sent;
  }

  int WaitForExit() {
    EXPECT_TRUE(board_.WaitFor([](const Record& r) { return r.exit_code.has_value(); }))
        << "the run never quit the loop";
    return board_.Get().exit_code.value_or(-1);
  }

  Board board_;
  SimLoop loop_{board_};
  FakeCoordinator coordinator_{loop_, board_};
  FakeLauncher launcher_{board_};
  FakeLocator locator_{loop_};
  JobSpec spec_ = OneWorker();
  TaskIdentity id_;
  std::unique_ptr<TaskRun> run_;
};

TEST_F(TaskRunTest, AUserProcessExitIsReportedWithItsCodeAndIsTheExecutorsExitCode) {
  pid_t pid = BeginAndRun();
  EXPECT_EQ(board_.Get().registers, 1);
  EndProcess(pid, Exited(3));
  EXPECT_EQ(WaitForExit(), 3);
  Record r = board_.Get();
  ASSERT_EQ(r.reports.size(), 1U);
  EXPECT_EQ(r.reports[0].exit_code(), 3);
  EXPECT_EQ(r.reports[0].signal(), 0);
  EXPECT_FALSE(r.reports[0].stopped());
  EXPECT_EQ(r.reports[0].task().role(), "worker");
  // Its group got SIGKILL once it ended (anything it left there), nothing before.
  EXPECT_EQ(SignalsTo(pid), std::vector<int>{SIGKILL});
}

TEST_F(TaskRunTest, ASuccessfulUserProcessIsReportedAndTheExecutorExitsZero) {
  pid_t pid = BeginAndRun();
  loop_.Advance(2 * kIntervalMs);  // heartbeats meanwhile, answered
  EXPECT_GE(board_.Get().heartbeats, 3);
  EndProcess(pid, Exited(0));
  EXPECT_EQ(WaitForExit(), 0);
  ASSERT_EQ(board_.Get().reports.size(), 1U);
  EXPECT_EQ(board_.Get().reports[0].exit_code(), 0);
}

TEST_F(TaskRunTest, HeartbeatLossStopsTheTaskAfterMaxMissedHeartbeatsNamingTheKey) {
  testing::internal::CaptureStderr();
  pid_t pid = BeginAndRun();
  const int64_t last_answer = loop_.NowMs();  // the first heartbeat's, with the registration
  loop_.OnLoop([this] { coordinator_.set_answer(Answer::kSilent); });
  const int64_t loss_ms = kIntervalMs * kMaxMissed;
  loop_.Advance(last_answer + loss_ms - 1 - loop_.NowMs());
  EXPECT_TRUE(SignalsTo(pid).empty()) << "stopped before max-missed-heartbeats intervals";
  // Lost within one interval of that (a heartbeat's deadline is one interval).
  loop_.Advance(kIntervalMs + 1);
  EXPECT_EQ(SignalsTo(pid), std::vector<int>{SIGTERM});
  EXPECT_FALSE(board_.Get().exit_code.has_value());
  EndProcess(pid, Killed(SIGTERM));
  EXPECT_EQ(WaitForExit(), 128 + SIGTERM);
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("lost contact with the coordinator"), std::string::npos) << log;
  EXPECT_NE(log.find("tony.task.max-missed-heartbeats"), std::string::npos) << log;
  // A lost coordinator gets no report.
  EXPECT_TRUE(board_.Get().reports.empty());
}

TEST_F(TaskRunTest, AnUnreachableCoordinatorAtRegistrationIsGivenUpAfterTheRegistryTimeout) {
  testing::internal::CaptureStderr();
  coordinator_.set_answer(Answer::kUnreachable);  // before the loop calls it
  Begin(/*registry_timeout_ms=*/5'000);
  loop_.Advance(5'000);
  EXPECT_FALSE(board_.Get().exit_code.has_value()) << "gave up before the registry timeout";
  EXPECT_GT(board_.Get().registers, 10);  // retried, 200 ms apart
  loop_.Advance(300);
  EXPECT_EQ(WaitForExit(), 1);
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("registering worker:0 with the coordinator at 127.0.0.1:1"), std::string::npos)
      << log;
  EXPECT_NE(log.find("tony.task.executor.registry-timeout-sec"), std::string::npos) << log;
  Record r = board_.Get();
  EXPECT_TRUE(r.spawned.empty());
  EXPECT_EQ(r.spec_requests, 0);
}

TEST_F(TaskRunTest, ASilentCoordinatorAtRegistrationIsGivenUpAtTheCallsDeadline) {
  coordinator_.set_answer(Answer::kSilent);
  Begin(/*registry_timeout_ms=*/5'000);
  loop_.Advance(9'999);  // the call's own deadline is 10 s
  EXPECT_FALSE(board_.Get().exit_code.has_value());
  loop_.Advance(1);
  EXPECT_EQ(WaitForExit(), 1);
  EXPECT_EQ(board_.Get().registers, 1);
  EXPECT_TRUE(board_.Get().spawned.empty());
}

TEST_F(TaskRunTest, AStopBySignalSendsSigtermThenSigkillAfterTheGrace) {
  pid_t pid = BeginAndRun();
  Signal(SIGTERM);
  EXPECT_EQ(SignalsTo(pid), std::vector<int>{SIGTERM});
  loop_.Advance(kGraceMs - 1);
  EXPECT_EQ(SignalsTo(pid), std::vector<int>{SIGTERM}) << "SIGKILL before the grace ran out";
  loop_.Advance(1);
  EXPECT_EQ(SignalsTo(pid), (std::vector<int>{SIGTERM, SIGKILL}));
  EndProcess(pid, Killed(SIGKILL));
  EXPECT_EQ(WaitForExit(), 128 + SIGKILL);
  Record r = board_.Get();
  ASSERT_EQ(r.reports.size(), 1U);
  EXPECT_EQ(r.reports[0].signal(), SIGKILL);
  EXPECT_TRUE(r.reports[0].stopped());
  EXPECT_NE(r.reports[0].diagnostics().find("stopped by signal 15"), std::string::npos)
      << r.reports[0].diagnostics();
}

TEST_F(TaskRunTest, TheCoordinatorsStopEndsAProcessThatHonoursSigtermWithoutSigkill) {
  pid_t pid = BeginAndRun();
  loop_.OnLoop([this] { coordinator_.StopTheTask(); });
  loop_.Advance(kIntervalMs);  // the next heartbeat's answer says stop
  EXPECT_EQ(SignalsTo(pid), std::vector<int>{SIGTERM});
  loop_.Advance(kGraceMs / 2);
  EndProcess(pid, Killed(SIGTERM));
  EXPECT_EQ(WaitForExit(), 128 + SIGTERM);
  loop_.Advance(kGraceMs);  // the grace's timer was disarmed with the end
  Record r = board_.Get();
  ASSERT_EQ(r.reports.size(), 1U);
  EXPECT_TRUE(r.reports[0].stopped());
  EXPECT_EQ(r.reports[0].signal(), SIGTERM);
  // SIGTERM, then the SIGKILL of the ended process's group (what it left there): no second
  // signal for the grace.
  EXPECT_EQ(SignalsTo(pid), (std::vector<int>{SIGTERM, SIGKILL}));
}

TEST_F(TaskRunTest, AStopWhileRegisteringExitsWithoutStartingTheUserProcess) {
  coordinator_.set_answer(Answer::kSilent);
  Begin();
  Signal(SIGTERM);
  EXPECT_EQ(WaitForExit(), 1);
  EXPECT_TRUE(board_.Get().spawned.empty());
}

// ---- Riding out a lost coordinator (JobSpec::am_reconnect_window_ms, docs/am-restart.md) ----

constexpr int64_t kWindowMs = 30'000;
constexpr int64_t kLossMs = kIntervalMs * kMaxMissed;

TEST_F(TaskRunTest, WithinTheReconnectWindowTheTaskRunsOnAndRegistersAgainWithTheNewCoordinator) {
  spec_.am_reconnect_window_ms = kWindowMs;
  testing::internal::CaptureStderr();
  pid_t pid = BeginAndRun();
  loop_.OnLoop([this] { coordinator_.set_answer(Answer::kSilent); });  // the AM is killed
  loop_.Advance(kLossMs + 3 * kIntervalMs);
  EXPECT_TRUE(SignalsTo(pid).empty()) << "the task was stopped within the reconnect window";
  // The new AM attempt listens elsewhere and answers; the next interval finds it.
  loop_.OnLoop([this] {
    locator_.set_address("10.0.0.2:4711");
    coordinator_.set_answer(Answer::kOk);
  });
  // Within two intervals: a rejoin the silent one never answered holds the next until its deadline.
  loop_.Advance(2 * kIntervalMs);
  // The lookup's answer is posted to the loop: wait for what follows it.
  ASSERT_TRUE(board_.WaitFor(
      [](const Record& r) { return !r.rejoins.empty() && r.rejoins.back() == "10.0.0.2:4711"; }));
  Record r = board_.Get();
  EXPECT_EQ(r.registers, 1) << "a rejoin is not a new registration";
  const int heartbeats = r.heartbeats;
  loop_.Advance(kLossMs + kWindowMs);  // well past both: the new coordinator answers
  EXPECT_GT(board_.Get().heartbeats, heartbeats + 3);
  EXPECT_TRUE(SignalsTo(pid).empty());
  EndProcess(pid, Exited(0));
  EXPECT_EQ(WaitForExit(), 0);
  ASSERT_EQ(board_.Get().reports.size(), 1U);
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("the coordinator is now at 10.0.0.2:4711"), std::string::npos) << log;
  EXPECT_NE(log.find("registered again with the coordinator"), std::string::npos) << log;
}

TEST_F(TaskRunTest, PastTheReconnectWindowTheTaskStopsNamingTheWindow) {
  spec_.am_reconnect_window_ms = kWindowMs;
  testing::internal::CaptureStderr();
  pid_t pid = BeginAndRun();
  const int64_t last_answer = loop_.NowMs();
  loop_.OnLoop([this] { coordinator_.set_answer(Answer::kSilent); });
  // Lost within one interval after kLossMs; the window runs from then.
  loop_.Advance(last_answer + kLossMs + kWindowMs - 1 - loop_.NowMs());
  EXPECT_TRUE(SignalsTo(pid).empty()) << "stopped before the window passed";
  loop_.Advance(2 * kIntervalMs + 1);
  EXPECT_EQ(SignalsTo(pid), std::vector<int>{SIGTERM});
  EndProcess(pid, Killed(SIGTERM));
  EXPECT_EQ(WaitForExit(), 128 + SIGTERM);
  EXPECT_TRUE(board_.Get().reports.empty());
  EXPECT_FALSE(board_.Get().rejoins.empty()) << "it never tried to register again";
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("no coordinator took the task back within 30000 ms"), std::string::npos)
      << log;
  EXPECT_NE(log.find("tony.task.max-missed-heartbeats"), std::string::npos) << log;
}

TEST_F(TaskRunTest, ACoordinatorThatRefusesTheRejoinStopsTheTask) {
  spec_.am_reconnect_window_ms = kWindowMs;
  testing::internal::CaptureStderr();
  pid_t pid = BeginAndRun();
  loop_.OnLoop([this] { coordinator_.set_answer(Answer::kUnreachable); });
  loop_.Advance(kLossMs + kIntervalMs);
  EXPECT_TRUE(SignalsTo(pid).empty());
  loop_.OnLoop([this] {
    coordinator_.RefuseRejoins();
    coordinator_.set_answer(Answer::kOk);
  });
  loop_.Advance(kIntervalMs);
  // The lookup's answer is posted to the loop: wait for the refusal's stop.
  EXPECT_TRUE(board_.WaitFor([](const Record& r) { return !r.signals.empty(); }));
  EXPECT_EQ(SignalsTo(pid), std::vector<int>{SIGTERM});
  EndProcess(pid, Killed(SIGTERM));
  EXPECT_EQ(WaitForExit(), 128 + SIGTERM);
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("refused the task's return"), std::string::npos) << log;
}

TEST_F(TaskRunTest, AResultWhileTheCoordinatorIsLostWaitsForTheNextCoordinator) {
  spec_.am_reconnect_window_ms = kWindowMs;
  pid_t pid = BeginAndRun();
  loop_.OnLoop([this] { coordinator_.set_answer(Answer::kUnreachable); });
  loop_.Advance(kLossMs + kIntervalMs);
  EndProcess(pid, Exited(0));
  loop_.Advance(kIntervalMs);
  EXPECT_FALSE(board_.Get().exit_code.has_value()) << "exited before a coordinator had the result";
  EXPECT_TRUE(board_.Get().reports.empty());
  loop_.OnLoop([this] { coordinator_.set_answer(Answer::kOk); });
  loop_.Advance(kIntervalMs);
  EXPECT_EQ(WaitForExit(), 0);
  ASSERT_EQ(board_.Get().reports.size(), 1U);
  EXPECT_EQ(board_.Get().reports[0].exit_code(), 0);
}

TEST_F(TaskRunTest, AResultHeldPastTheWindowIsNotReportedAndIsTheExitCode) {
  spec_.am_reconnect_window_ms = kWindowMs;
  pid_t pid = BeginAndRun();
  loop_.OnLoop([this] { coordinator_.set_answer(Answer::kUnreachable); });
  loop_.Advance(kLossMs + kIntervalMs);
  EndProcess(pid, Exited(4));
  loop_.Advance(kWindowMs + kIntervalMs);
  EXPECT_EQ(WaitForExit(), 4);
  EXPECT_TRUE(board_.Get().reports.empty());
}

TEST_F(TaskRunTest, WithoutAWindowALostCoordinatorIsNeverLookedFor) {
  pid_t pid = BeginAndRun();
  loop_.OnLoop([this] { coordinator_.set_answer(Answer::kSilent); });
  loop_.Advance(kLossMs + kIntervalMs + 1);
  EXPECT_EQ(SignalsTo(pid), std::vector<int>{SIGTERM});
  EXPECT_TRUE(board_.Get().rejoins.empty());
  int lookups = -1;
  loop_.OnLoop([&] { lookups = locator_.lookups(); });
  EXPECT_EQ(lookups, 0);
}

}  // namespace
}  // namespace tony
