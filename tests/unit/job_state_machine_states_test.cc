// The task state model, one test per row (README "Task states"), on the state machine.
#include <gtest/gtest.h>

#include "common/task_state.h"
#include "tests/unit/job_state_machine_test_util.h"

using namespace ::tony::core::testing;  // NOLINT(google-build-using-namespace)

namespace tony::core {
namespace {

// ---- The task state model, one test per row (README "Task states") ----

TEST_F(JobStateMachineTest, StateRowFailedByItsOwnExitCode) {
  Create(MakeSpec({{"worker", 2}}));
  StartAll();
  Exit(T("worker", 1), 3, "ValueError");
  const TaskRecord* w1 = sm_->FindTask(T("worker", 1));
  EXPECT_EQ(w1->state, TaskState::kFailed);
  EXPECT_EQ(w1->exit_code, 3);
  EXPECT_EQ(w1->signal, 0);
  EXPECT_EQ(DescribeExit(w1->exit_code, w1->signal), "exit 3");
  EXPECT_EQ(sm_->final_message(), "task worker:1 failed: exit 3\nValueError");
}

TEST_F(JobStateMachineTest, StateRowFailedByASignalTonyDidNotSendWithAMemoryHint) {
  Create(MakeSpec({{"worker", 2}}));
  StartAll();
  Signalled(T("worker", 1), SIGKILL, /*stopped=*/false);
  const TaskRecord* w1 = sm_->FindTask(T("worker", 1));
  EXPECT_EQ(w1->state, TaskState::kFailed);
  EXPECT_FALSE(w1->exit_code.has_value());
  EXPECT_EQ(DescribeExit(w1->exit_code, w1->signal), "signal 9 (SIGKILL)");
  EXPECT_EQ(w1->end_reason,
            "SIGKILL not sent by tony: the kernel's OOM killer sends it when memory runs out");
  EXPECT_EQ(sm_->final_message(),
            "task worker:1 failed: signal 9 (SIGKILL); SIGKILL not sent by tony: the kernel's OOM "
            "killer sends it when memory runs out");
  Signalled(T("worker", 0), SIGSEGV, false);
  EXPECT_EQ(State(T("worker", 0)), TaskState::kFailed);  // after tony's stop request, by itself
  EXPECT_EQ(sm_->FindTask(T("worker", 0))->end_reason, "");
}

TEST_F(JobStateMachineTest, StateRowFailedNotStoppedWhenItExitsNonZeroByItselfAfterAStop) {
  Create(MakeSpec({{"worker", 3}}));
  StartAll();
  Exit(T("worker", 0), 1);  // the chief fails: the others are asked to stop
  ASSERT_TRUE(sm_->FindTask(T("worker", 1))->stop_requested);
  Exit(T("worker", 1), 127, "bash: foo: command not found");
  Exit(T("worker", 2), 0);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kFailed);
  EXPECT_EQ(sm_->FindTask(T("worker", 1))->exit_code, 127);
  EXPECT_EQ(State(T("worker", 2)), TaskState::kSucceeded);
}

TEST_F(JobStateMachineTest, StateRowStoppedBecauseTheChiefSucceeded) {
  Create(MakeSpec({{"chief", 1}, {"worker", 1}}));
  StartAll();
  auto out = Exit(T("chief", 0), 0);
  ASSERT_EQ(All<StopTask>(out).size(), 1u);
  Stopped(T("worker", 0));
  const TaskRecord* w0 = sm_->FindTask(T("worker", 0));
  EXPECT_EQ(w0->state, TaskState::kStopped);
  EXPECT_EQ(w0->end_reason, "the job succeeded (chief task chief:0 succeeded)");
  EXPECT_EQ(DescribeExit(w0->exit_code, w0->signal), "signal 15 (SIGTERM)");
  EXPECT_EQ(sm_->final_status(), FinalStatus::kSucceeded);
}

TEST_F(JobStateMachineTest, StateRowStoppedWhenTheStopsSignalsEndItWithoutTheExecutorSaying) {
  Create(MakeSpec({{"worker", 2}}));
  StartAll();
  Send(KillRequested{"killed by user (tony kill: SIGTERM)"});
  Signalled(T("worker", 0), SIGKILL, /*stopped=*/false);  // the engine's hard kill after grace
  EXPECT_EQ(State(T("worker", 0)), TaskState::kStopped);
  EXPECT_EQ(sm_->FindTask(T("worker", 0))->end_reason, "killed by user (tony kill: SIGTERM)");
}

TEST_F(JobStateMachineTest, StateRowNotStartedWhenStoppedWhileAllocatedOrRegistering) {
  Create(MakeSpec({{"worker", 3}}));
  Start();
  Allocate("worker");
  Allocate("worker");
  Register(T("worker", 0));  // REGISTERED: the gang waits for the others
  Send(KillRequested{"killed by user (Ctrl-C in tony submit)"});
  EXPECT_EQ(State(T("worker", 2)), TaskState::kNotStarted);  // never had a container
  // A registration arriving while the job stops is not taken: states only move forward.
  EXPECT_TRUE(Register(T("worker", 1)).empty());
  EXPECT_EQ(State(T("worker", 1)), TaskState::kAllocated);
  ContainerEnded(T("worker", 0), 1, "executor exit code 1");
  ContainerEnded(T("worker", 1), kExitStoppedByCoordinator);
  for (int i = 0; i < 3; ++i) {
    const TaskRecord* t = sm_->FindTask(T("worker", i));
    EXPECT_EQ(t->state, TaskState::kNotStarted) << i;
    EXPECT_EQ(t->end_reason, "killed by user (Ctrl-C in tony submit)") << i;
    EXPECT_FALSE(t->exit_code.has_value()) << i;
  }
  EXPECT_EQ(sm_->phase(), JobPhase::kFinished);
  // An executor that says it stopped before RUNNING is NOT_STARTED too.
  Create(MakeSpec({{"worker", 2}}));
  StartAndAllocate();
  Register(T("worker", 0));
  Send(KillRequested{"killed"});
  Signalled(T("worker", 0), 0, /*stopped=*/true);
  EXPECT_EQ(State(T("worker", 0)), TaskState::kNotStarted);
}

TEST_F(JobStateMachineTest, StateRowLostWhenTheContainerEndsWithoutAReport) {
  Create(MakeSpec({{"worker", 2}}));
  StartAll();
  ContainerEnded(T("worker", 1), 137, "executor killed by signal 9 (Killed)");
  const TaskRecord* w1 = sm_->FindTask(T("worker", 1));
  EXPECT_EQ(w1->state, TaskState::kLost);
  EXPECT_FALSE(w1->exit_code.has_value());
  EXPECT_EQ(w1->signal, 0);
  EXPECT_EQ(w1->end_reason,
            "its container ended without a report (executor killed by signal 9 (Killed))");
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);  // LOST counts as a failure
  EXPECT_EQ(sm_->final_message(),
            "task worker:1 lost: its container ended without a report (executor killed by "
            "signal 9 (Killed))\nexecutor killed by signal 9 (Killed)");
}

TEST_F(JobStateMachineTest, StateRowFailedWhenYarnKillsTheContainerForMemory) {
  Create(MakeSpec({{"worker", 2}}));
  StartAll();
  ContainerEnded(T("worker", 1), -104, "container killed by YARN ...");
  EXPECT_EQ(State(T("worker", 1)), TaskState::kFailed);
  EXPECT_EQ(sm_->FindTask(T("worker", 1))->end_reason,
            "YARN killed its container for exceeding its physical memory limit (container exit "
            "status -104); tony.worker.memory sets the limit");
  // The NodeManager's SIGTERM reaches the executor first: a stop tony did not ask for, held
  // until the container's -103 says why.
  Signalled(T("worker", 0), SIGTERM, /*stopped=*/true);
  EXPECT_EQ(State(T("worker", 0)), TaskState::kStopped);  // the job was stopping by then
  Create(MakeSpec({{"worker", 2}}));
  StartAll();
  Signalled(T("worker", 1), SIGTERM, /*stopped=*/true);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kRunning);
  ContainerEnded(T("worker", 1), -103);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kFailed);
  EXPECT_EQ(sm_->final_message(),
            "task worker:1 failed: YARN killed its container for exceeding its virtual memory "
            "limit (container exit status -103); tony.worker.memory sets the limit");
}

TEST_F(JobStateMachineTest, OnlyUntrackedRolesSayTheJobHasNoTrackedTask) {
  Create(MakeSpec({{"ps", 2, /*untracked=*/true}}));
  StartAll();
  Exit(T("ps", 0), 0);
  Exit(T("ps", 1), 0);
  EXPECT_EQ(sm_->final_message(), "all 2 task(s) succeeded (the job has no tracked task)");
}

TEST(TaskStateTest, TonyHistoryNamesMapFromTheModel) {
  EXPECT_STREQ(TonyHistoryStatus(TaskState::kSucceeded), "SUCCEEDED");
  EXPECT_STREQ(TonyHistoryStatus(TaskState::kFailed), "FAILED");
  EXPECT_STREQ(TonyHistoryStatus(TaskState::kLost), "FAILED");
  EXPECT_STREQ(TonyHistoryStatus(TaskState::kStopped), "KILLED");
  EXPECT_STREQ(TonyHistoryStatus(TaskState::kNotStarted), "KILLED");
  EXPECT_STREQ(TonyHistoryStatus(TaskState::kRegistered), "READY");
  EXPECT_STREQ(TonyHistoryStatus(TaskState::kRunning), "RUNNING");
}

TEST(TaskStateTest, NamesRoundTripAndOnlyLiveStatesRankBelowTheEnds) {
  for (TaskState s :
       {TaskState::kNew, TaskState::kAllocated, TaskState::kRegistered, TaskState::kRunning,
        TaskState::kStalled, TaskState::kSucceeded, TaskState::kFailed, TaskState::kStopped,
        TaskState::kNotStarted, TaskState::kLost}) {
    EXPECT_EQ(ParseTaskState(TaskStateName(s)), s);
  }
  EXPECT_FALSE(ParseTaskState("FINISHED").has_value());
  EXPECT_LT(StateRank(TaskState::kRegistered), StateRank(TaskState::kRunning));
  EXPECT_TRUE(IsTerminal(TaskState::kNotStarted));
  EXPECT_FALSE(IsTerminal(TaskState::kRunning));
  // STALLED is RUNNING without progress: it ranks with it, and is no end.
  EXPECT_EQ(StateRank(TaskState::kStalled), StateRank(TaskState::kRunning));
  EXPECT_FALSE(IsTerminal(TaskState::kStalled));
  EXPECT_TRUE(IsRunning(TaskState::kStalled));
  EXPECT_FALSE(IsRunning(TaskState::kRegistered));
  EXPECT_STREQ(TonyHistoryStatus(TaskState::kStalled), "RUNNING");
  EXPECT_EQ(DescribeExit(std::nullopt, 0), "");
  EXPECT_EQ(DescribeExit(0, 0), "exit 0");
  EXPECT_EQ(DescribeExit(std::nullopt, 11), "signal 11 (SIGSEGV)");
}

// Workers that await what the Horovod debug driver publishes (RoleSpec::awaits) stay REGISTERED,
// their spec held, until it published; then they run.
TEST_F(JobStateMachineTest, TasksThatAwaitAPublishingTaskRunOnlyOnceItPublished) {
  JobSpec spec = MakeSpec({{"driver", 1, /*untracked=*/true}, {"worker", 2}});
  spec.roles[1].awaits = "driver:0";
  Create(spec);
  StartAndAllocate();
  Register(T("worker", 0));
  Register(T("worker", 1));
  auto out = Register(T("driver", 0));
  EXPECT_TRUE(Has<SpecPublished>(out));  // the driver's own spec
  EXPECT_EQ(State(T("driver", 0)), TaskState::kRunning);
  EXPECT_TRUE(sm_->SpecFor(T("driver", 0), 0).has_value());
  EXPECT_EQ(State(T("worker", 0)), TaskState::kRegistered);
  EXPECT_FALSE(sm_->SpecFor(T("worker", 0), 0).has_value());
  // Another task's or a stale attempt's publication releases nothing.
  EXPECT_FALSE(Has<SpecPublished>(Send(TaskPublished{T("worker", 1), 0})));
  EXPECT_FALSE(Has<SpecPublished>(Send(TaskPublished{T("driver", 0), 3})));
  EXPECT_EQ(State(T("worker", 1)), TaskState::kRegistered);
  EXPECT_TRUE(Has<SpecPublished>(Send(TaskPublished{T("driver", 0), 0})));
  EXPECT_EQ(State(T("worker", 0)), TaskState::kRunning);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kRunning);
  EXPECT_TRUE(sm_->SpecFor(T("worker", 1), 0).has_value());
}

// The Horovod driver (RoleSpec::serves_peers) ending by itself, even with exit code 0, leaves
// workers that cannot rendezvous: the job fails at once, naming it, instead of waiting.
TEST_F(JobStateMachineTest, ATaskThatServesItsPeersEndingByItselfFailsTheJobAtOnce) {
  JobSpec spec = MakeSpec({{"driver", 1, /*untracked=*/true}, {"worker", 2}});
  spec.roles[0].serves_peers = "it serves the rendezvous the horovod workers need";
  Create(spec);
  StartAll();
  Exit(T("driver", 0), 0);
  EXPECT_EQ(State(T("driver", 0)), TaskState::kSucceeded);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(),
            "untracked task driver:0 exited with exit code 0 while the job runs, but it serves "
            "the rendezvous the horovod workers need: the job cannot go on");
  EXPECT_EQ(sm_->phase(), JobPhase::kStopping);  // the workers are being stopped
}

TEST_F(JobStateMachineTest, ATaskThatServesItsPeersStoppedAtTheJobsEndIsNoFailure) {
  JobSpec spec = MakeSpec({{"driver", 1, /*untracked=*/true}, {"worker", 1}});
  spec.roles[0].serves_peers = "it serves the rendezvous the horovod workers need";
  Create(spec);
  StartAll();
  Exit(T("worker", 0), 0);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kSucceeded);
  Stopped(T("driver", 0));
  EXPECT_EQ(sm_->final_status(), FinalStatus::kSucceeded);
  EXPECT_EQ(sm_->final_message(), "all 1 tracked task(s) succeeded");
}

}  // namespace
}  // namespace tony::core
