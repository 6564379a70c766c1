// executor/event_loop.h and executor/user_processes.h with real processes: how the task's user
// processes end is what the executor reports (exit code, signal, stopped), and a stop escalates
// to SIGKILL after the grace period on a timer.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "executor/event_loop.h"
#include "executor/user_processes.h"
#include "tests/unit/loop_signals_test_util.h"

namespace tony {
namespace {

struct Harness {
  std::unique_ptr<EventLoop> loop;
  OsProcessLauncher launcher;
  std::unique_ptr<UserProcesses> procs;
  std::unique_ptr<LoopTimer> bound;  // fails the test instead of hanging
  bool ended = false;

  explicit Harness(int64_t grace_ms) {
    BlockLoopSignals();
    auto l = EventLoop::Create([this](int sig) {
      if (sig == SIGCHLD) procs->Reap();
    });
    EXPECT_TRUE(l.ok()) << l.status().ToString();
    loop = std::move(l).value();
    procs = std::make_unique<UserProcesses>(*loop, launcher, grace_ms, [this] {
      ended = true;
      loop->Quit(0);
    });
    bound = std::make_unique<LoopTimer>(*loop, [this] { loop->Quit(1); });
    bound->Arm(20'000);
  }

  static SpawnOptions Bash(const std::string& command) {
    SpawnOptions o;
    o.argv = {"bash", "-c", command};
    o.env = CurrentEnvironment();
    o.group = ProcessGroupMode::kNewGroup;
    return o;
  }
};

TEST(UserProcessesTest, AnExitCodeIsReportedWithNoSignalAndNotStopped) {
  Harness h(5'000);
  ASSERT_TRUE(h.procs->Start({Harness::Bash("exit 0"), Harness::Bash("exit 3")}).ok());
  ASSERT_EQ(h.loop->Run(), 0);
  ASSERT_TRUE(h.ended);
  ProcessesOutcome out = h.procs->Outcome();
  EXPECT_EQ(out.exit_code, 3);
  EXPECT_EQ(out.signal, 0);
  EXPECT_FALSE(out.stopped);
  EXPECT_EQ(out.failed_local_rank, 1);
}

TEST(UserProcessesTest, AStopOnRequestEndsThemBySigtermAndSaysSo) {
  Harness h(5'000);
  ASSERT_TRUE(h.procs->Start({Harness::Bash("exec sleep 30")}).ok());
  LoopTimer stop(*h.loop, [&] { h.procs->Stop("stopped by the coordinator", true); });
  stop.Arm(50);
  ASSERT_EQ(h.loop->Run(), 0);
  ProcessesOutcome out = h.procs->Outcome();
  EXPECT_EQ(out.exit_code, 128 + SIGTERM);
  EXPECT_EQ(out.signal, SIGTERM);
  EXPECT_TRUE(out.stopped);
  EXPECT_EQ(out.why, "stopped by the coordinator");
}

TEST(UserProcessesTest, OneFailedProcessStopsTheOthersWhichAreNotReportedAsStopped) {
  Harness h(5'000);
  ASSERT_TRUE(h.procs->Start({Harness::Bash("exec sleep 30"), Harness::Bash("exit 7")}).ok());
  ASSERT_EQ(h.loop->Run(), 0);
  ProcessesOutcome out = h.procs->Outcome();
  EXPECT_EQ(out.failed_local_rank, 1);
  EXPECT_EQ(out.exit_code, 7);
  EXPECT_FALSE(out.stopped);
  EXPECT_EQ(out.why, "local process 1 failed; stopping the others");
}

TEST(UserProcessesTest, AProcessThatIgnoresSigtermIsKilledAfterTheGracePeriod) {
  Harness h(300);
  ASSERT_TRUE(h.procs->Start({Harness::Bash("trap '' TERM; sleep 30 & wait; sleep 30")}).ok());
  int64_t stopped_at = 0;
  LoopTimer stop(*h.loop, [&] {
    stopped_at = SystemClock().MonotonicMs();
    h.procs->Stop("stopped by signal 15", true);
  });
  stop.Arm(100);
  ASSERT_EQ(h.loop->Run(), 0);
  int64_t took = SystemClock().MonotonicMs() - stopped_at;
  EXPECT_GE(took, 300);
  EXPECT_LT(took, 10'000);
  ProcessesOutcome out = h.procs->Outcome();
  EXPECT_EQ(out.signal, SIGKILL);
  EXPECT_TRUE(out.stopped);
}

TEST(EventLoopTest, ATimerArmedForNowFiresAndAPeriodicOneKeepsFiring) {
  BlockLoopSignals();
  auto loop = EventLoop::Create([](int) {});
  ASSERT_TRUE(loop.ok());
  int now_fired = 0;
  int beats = 0;
  LoopTimer now(**loop, [&] { ++now_fired; });
  LoopTimer periodic(**loop, [&] {
    if (++beats == 5) (*loop)->Quit(0);
  });
  LoopTimer bound(**loop, [&] { (*loop)->Quit(1); });  // fails the test instead of hanging
  now.Arm(0);
  periodic.Arm(0, 10);
  bound.Arm(10'000);
  EXPECT_EQ((*loop)->Run(), 0);
  EXPECT_EQ(now_fired, 1);
  EXPECT_EQ(beats, 5);
}

TEST(EventLoopTest, ReArmingReplacesTheArmingAndDisarmingDropsIt) {
  BlockLoopSignals();
  auto loop = EventLoop::Create([](int) {});
  ASSERT_TRUE(loop.ok());
  std::vector<std::string> fired;
  LoopTimer moved(**loop, [&] { fired.emplace_back("moved"); });
  LoopTimer dropped(**loop, [&] { fired.emplace_back("dropped"); });
  LoopTimer end(**loop, [&] { (*loop)->Quit(0); });
  moved.Arm(0);
  moved.Arm(20);  // replaces the arming for now
  dropped.Arm(0);
  dropped.Disarm();
  end.Arm(200);
  EXPECT_EQ((*loop)->Run(), 0);
  EXPECT_EQ(fired, std::vector<std::string>{"moved"});
}

TEST(EventLoopTest, PostedClosuresRunOnTheLoopInOrder) {
  BlockLoopSignals();
  auto loop = EventLoop::Create([](int) {});
  ASSERT_TRUE(loop.ok());
  std::vector<int> seen;
  std::thread other([&] {
    for (int i = 0; i < 3; ++i) (*loop)->Post([&seen, i] { seen.push_back(i); });
    (*loop)->Post([&] { (*loop)->Quit(5); });
  });
  EXPECT_EQ((*loop)->Run(), 5);
  other.join();
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
}

TEST(EventLoopTest, ClosuresStillQueuedWhenTheLoopQuitsNeverRun) {
  BlockLoopSignals();
  auto loop = EventLoop::Create([](int) {});
  ASSERT_TRUE(loop.ok());
  bool ran_after_quit = false;
  (*loop)->Post([&] { (*loop)->Quit(2); });
  (*loop)->Post([&] { ran_after_quit = true; });
  EXPECT_EQ((*loop)->Run(), 2);
  EXPECT_FALSE(ran_after_quit);
}

TEST(EventLoopTest, ABlockedSignalReachesTheLoopsHandlerOnTheLoopsThread) {
  BlockLoopSignals();
  std::vector<int> seen;
  std::thread::id handled_on;
  EventLoop* raw = nullptr;
  auto loop = EventLoop::Create([&](int sig) {
    seen.push_back(sig);
    handled_on = std::this_thread::get_id();
    raw->Quit(0);
  });
  ASSERT_TRUE(loop.ok());
  raw = loop->get();
  LoopTimer bound(**loop, [&] { raw->Quit(1); });  // fails the test instead of hanging
  bound.Arm(10'000);
  // Sent to the process while every thread has it blocked: it waits in the signalfd.
  ASSERT_EQ(::kill(::getpid(), SIGHUP), 0);
  EXPECT_EQ((*loop)->Run(), 0);
  EXPECT_EQ(seen, std::vector<int>{SIGHUP});
  EXPECT_EQ(handled_on, std::this_thread::get_id());
}

}  // namespace
}  // namespace tony
