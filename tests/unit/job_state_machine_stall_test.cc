// Stalls on the state machine (README "Stalls"): RUNNING <-> STALLED as the executor reports, and
// what tony.<role>.on-stall does with a STALLED task: warn, fail, restart.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <string>

#include "common/task_state.h"
#include "tests/unit/job_state_machine_test_util.h"

using namespace ::tony::core::testing;  // NOLINT(google-build-using-namespace)

namespace tony::core {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kSummary[] =
    "no output or progress for 2 s (tony.worker.stall-timeout-ms = 2000); main thread of pid 41 "
    "in hang at task.py:5; stacks in /logs/worker/0/stacks.txt";
constexpr char kStacks[] =
    "--- pid 41: python3 task.py\n"
    "Current thread 0x00007f (most recent call first):\n"
    "  File \"task.py\", line 5 in hang\n"
    "  File \"task.py\", line 8 in <module>\n";

JobSpec StallSpec(OnStall on_stall, int max_restarts = 1) {
  JobSpec spec = MakeSpec({{"worker", 2}});
  RoleSpec& w = spec.roles[0];
  w.stall_timeout_ms = 2000;
  w.on_stall = on_stall;
  w.max_restarts = max_restarts;
  w.restart_scope = RestartScope::kTask;
  w.restart_backoff_ms = 500;
  return spec;
}

class StallTest : public JobStateMachineTest {
 protected:
  int Attempt(const TaskId& id) { return sm_->FindTask(id)->attempt; }
  const TaskRecord& Task(const TaskId& id) { return *sm_->FindTask(id); }
  // The executor's heartbeat about the current attempt: stalled, with its note, or progress.
  std::vector<Command> Stall(const TaskId& id) {
    return Send(TaskStalled{id, Attempt(id), true, std::string(kSummary) + "\n" + kStacks});
  }
  std::vector<Command> Progress(const TaskId& id) {
    return Send(TaskStalled{id, Attempt(id), false, ""});
  }
  // The executor stopped the current attempt's user process on tony's request (SIGTERM).
  std::vector<Command> StoppedNow(const TaskId& id) {
    TaskExited e{id, Attempt(id), 0, "stderr: started"};
    e.signal = SIGTERM;
    e.stopped = true;
    return Send(e);
  }
};

TEST_F(StallTest, WarnShowsStalledUntilProgressThenRunningAndTheJobSucceeds) {
  Create(StallSpec(OnStall::kWarn));
  StartAll();
  const int64_t before = sm_->version();
  auto out = Stall(T("worker", 0));
  EXPECT_TRUE(out.empty());  // warn: nothing is stopped
  EXPECT_EQ(State(T("worker", 0)), TaskState::kStalled);
  EXPECT_EQ(Task(T("worker", 0)).stall, std::string(kSummary) + "\n" + kStacks);
  EXPECT_GT(sm_->version(), before);  // a visible change: views show STALLED
  EXPECT_EQ(State(T("worker", 1)), TaskState::kRunning);

  // Every heartbeat of a stalled task says so again: no change.
  const int64_t stalled = sm_->version();
  EXPECT_TRUE(Stall(T("worker", 0)).empty());
  EXPECT_EQ(sm_->version(), stalled);

  EXPECT_TRUE(Progress(T("worker", 0)).empty());
  EXPECT_EQ(State(T("worker", 0)), TaskState::kRunning);
  EXPECT_TRUE(Task(T("worker", 0)).stall.empty());
  EXPECT_GT(sm_->version(), stalled);
  // Progress of a task that was not stalled changes nothing.
  const int64_t running = sm_->version();
  Progress(T("worker", 1));
  EXPECT_EQ(sm_->version(), running);

  Stall(T("worker", 1));  // a STALLED task may still end well
  Exit(T("worker", 0), 0);
  ASSERT_TRUE(Has<FinishJob>(Exit(T("worker", 1), 0)));
  EXPECT_EQ(sm_->final_status(), FinalStatus::kSucceeded);
}

TEST_F(StallTest, FailStopsTheTaskAndTheJobFailsWithTheStallAndItsStacks) {
  Create(StallSpec(OnStall::kFail));
  StartAll();
  auto stops = All<StopTask>(Stall(T("worker", 1)));
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0].task, T("worker", 1));
  EXPECT_EQ(stops[0].reason, std::string("stalled: ") + kSummary);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kStalled);   // until its process ends
  EXPECT_FALSE(Has<FinishJob>(Progress(T("worker", 1))));  // too late: it is being stopped
  EXPECT_EQ(State(T("worker", 1)), TaskState::kStalled);

  auto out = StoppedNow(T("worker", 1));
  const TaskRecord& w1 = Task(T("worker", 1));
  EXPECT_EQ(w1.state, TaskState::kFailed);  // not STOPPED: the stall is its failure
  EXPECT_EQ(w1.signal, SIGTERM);
  EXPECT_EQ(w1.end_reason, std::string("stalled: ") + kSummary);
  ASSERT_EQ(sm_->final_status(), FinalStatus::kFailed);
  const std::string& m = sm_->final_message();
  EXPECT_THAT(m, StartsWith(std::string("task worker:1 failed: signal 15 (SIGTERM); stalled: ") +
                            kSummary + "\n"));
  EXPECT_THAT(m, HasSubstr("  File \"task.py\", line 5 in hang\n"));
  EXPECT_THAT(m, HasSubstr("stderr: started"));  // the stacks first, then the stderr tail
  EXPECT_LT(m.find("in hang"), m.find("stderr: started"));
  auto peer = All<StopTask>(out);
  ASSERT_EQ(peer.size(), 1u);
  EXPECT_EQ(peer[0].task, T("worker", 0));
}

TEST_F(StallTest, AStalledTaskThatExitsByItselfOnTheStopStillFailedForItsStall) {
  Create(StallSpec(OnStall::kFail));
  StartAll();
  Stall(T("worker", 0));
  Send(TaskExited{T("worker", 0), 0, 1, ""});  // its SIGTERM handler exits 1
  EXPECT_EQ(State(T("worker", 0)), TaskState::kFailed);
  EXPECT_EQ(Task(T("worker", 0)).end_reason, std::string("stalled: ") + kSummary);
  EXPECT_THAT(sm_->final_message(),
              StartsWith(std::string("task worker:0 failed: exit 1; stalled: ") + kSummary));
}

TEST_F(StallTest, AStalledTaskWhoseContainerEndsWithoutAReportFailedForItsStall) {
  Create(StallSpec(OnStall::kFail));
  StartAll();
  Stall(T("worker", 0));
  ContainerEnded(T("worker", 0), 137);
  EXPECT_EQ(State(T("worker", 0)), TaskState::kFailed);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_THAT(sm_->final_message(), HasSubstr("in hang"));
}

TEST_F(StallTest, FailLeavesTheExitCodePolicyAloneTheSignalWasTonys) {
  JobSpec spec = StallSpec(OnStall::kFail);
  spec.roles[0].restart_policy = RestartPolicy::kExitCode;  // restarts on a foreign signal
  Create(std::move(spec));
  StartAll();
  Stall(T("worker", 0));
  StoppedNow(T("worker", 0));
  EXPECT_EQ(sm_->RestartsUsed("worker"), 0);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
}

TEST_F(StallTest, RestartRestartsTheTaskCountedAgainstItsBudgetThenFails) {
  Create(StallSpec(OnStall::kRestart, /*max_restarts=*/1));  // restart-policy stays never
  StartAll();
  EXPECT_EQ(All<StopTask>(Stall(T("worker", 1))).size(), 1u);
  auto out = StoppedNow(T("worker", 1));
  EXPECT_FALSE(Has<FinishJob>(out));
  EXPECT_FALSE(Has<StopTask>(out));  // task scope: its peer runs on
  EXPECT_EQ(State(T("worker", 1)), TaskState::kFailed);
  EXPECT_EQ(sm_->RestartsUsed("worker"), 1);
  EXPECT_EQ(Task(T("worker", 1)).restart,
            std::string("restart 1 of 1 (tony.worker.max-restarts) in 500 ms, task scope: task "
                        "worker:1 failed: signal 15 (SIGTERM); stalled: ") +
                kSummary);

  EXPECT_TRUE(Has<engine::ContainerRequest>(TickAt(now_ + 500)));
  Allocate("worker");
  Send(TaskRegistered{T("worker", 1), 1, "new-host", 3001});
  const TaskRecord& again = Task(T("worker", 1));
  EXPECT_EQ(again.attempt, 1);
  EXPECT_EQ(again.state, TaskState::kRunning);
  EXPECT_TRUE(again.stall.empty());
  ASSERT_EQ(again.past_attempts.size(), 1u);
  EXPECT_EQ(again.past_attempts[0].state, TaskState::kFailed);
  EXPECT_THAT(again.past_attempts[0].end_reason, StartsWith("stalled: no output"));

  // The new attempt stalls too: the budget is spent.
  EXPECT_EQ(All<StopTask>(Stall(T("worker", 1))).size(), 1u);
  StoppedNow(T("worker", 1));
  ASSERT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_THAT(sm_->final_message(),
              StartsWith("task worker:1 failed: signal 15 (SIGTERM); stalled: no output or "
                         "progress for 2 s (tony.worker.stall-timeout-ms = 2000); main thread of "
                         "pid 41 in hang at task.py:5; stacks in /logs/worker/0/stacks.txt; no "
                         "restart left (tony.worker.max-restarts = 1, 1 used)\n"));
  EXPECT_EQ(sm_->RestartsUsed("worker"), 1);
}

TEST_F(StallTest, AStallReportOfAnOldAttemptIsIgnored) {
  Create(StallSpec(OnStall::kRestart, /*max_restarts=*/2));
  StartAll();
  Stall(T("worker", 1));
  StoppedNow(T("worker", 1));
  TickAt(now_ + 500);
  Allocate("worker");
  Send(TaskRegistered{T("worker", 1), 1, "new-host", 3001});
  ASSERT_EQ(State(T("worker", 1)), TaskState::kRunning);

  const int64_t before = sm_->version();
  auto out = Send(TaskStalled{T("worker", 1), 0, true, kSummary});  // attempt 0's late heartbeat
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(State(T("worker", 1)), TaskState::kRunning);
  EXPECT_EQ(sm_->version(), before);
  EXPECT_EQ(sm_->RestartsUsed("worker"), 1);
}

TEST_F(StallTest, AStallIsIgnoredBeforeRunningAndOnceTheJobIsDecided) {
  Create(StallSpec(OnStall::kFail));
  StartAndAllocate();
  Register(T("worker", 0));  // REGISTERED: the gang waits for worker:1
  EXPECT_TRUE(Stall(T("worker", 0)).empty());
  EXPECT_EQ(State(T("worker", 0)), TaskState::kRegistered);
  Register(T("worker", 1));
  Exit(T("worker", 0), 3);  // the job fails; worker:1 is being stopped
  ASSERT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_TRUE(Stall(T("worker", 1)).empty());
  EXPECT_EQ(State(T("worker", 1)), TaskState::kRunning);
}

}  // namespace
}  // namespace tony::core
