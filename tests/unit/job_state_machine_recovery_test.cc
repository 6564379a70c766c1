// A later AM attempt's recovery on the state machine (docs/am-restart.md §5, §6): Recovered
// rebuilds the job from the journal of the attempt that died; the executors that ride out the
// dead AM rejoin (TaskRejoined) within the reconnect window, or their tasks are LOST.
#include <gtest/gtest.h>

#include <string>

#include "common/task_state.h"
#include "tests/unit/job_state_machine_test_util.h"

using namespace ::tony::core::testing;  // NOLINT(google-build-using-namespace)

namespace tony::core {
namespace {

constexpr int64_t kRecoveryWindowMs = 120'000;

JobSpec RecoverySpec(RestartPolicy policy = RestartPolicy::kNever,
                     RestartScope scope = RestartScope::kTask) {
  JobSpec spec = MakeSpec({{"worker", 2}});
  spec.am_reconnect_window_ms = kRecoveryWindowMs;
  spec.roles[0].restart_policy = policy;
  spec.roles[0].restart_scope = scope;
  spec.roles[0].restart_backoff_ms = 1000;
  return spec;
}

class RecoveryTest : public JobStateMachineTest {
 protected:
  // The first attempt's journal once the job ran as `run` made it, and a second state machine
  // (the next AM attempt) recovered from it at a later time, the cluster reporting `live`.
  std::vector<Command> Recover(const std::set<std::string>& live) {
    JobJournal journal = sm_->Journal();
    Create(sm_->spec());
    now_ += 60'000;
    return Send(Recovered{journal, live});
  }
  // The rejoin of `id`'s current attempt as the test fixture registered it (host-<id>, 2000 +
  // index) from the container it was given.
  TaskRejoined Rejoin(const TaskId& id) {
    const TaskRecord* t = sm_->FindTask(id);
    return TaskRejoined{id, t->attempt, t->container_id, "host-" + id.ToString(), 2000 + id.index};
  }
};

TEST_F(RecoveryTest, LiveTasksAwaitTheirRejoinAndComeBackAsTheyWereWithTheirSpec) {
  Create(RecoverySpec());
  StartAll();
  const runtime::Cluster spec_before = *sm_->SpecFor(T("worker", 0), 0);
  const int64_t generation = sm_->spec_generation();
  auto out = Recover({"c0", "c1"});
  EXPECT_TRUE(out.empty());  // nothing to ask for, nothing to stop
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  EXPECT_EQ(sm_->spec_generation(), generation);
  for (const TaskRecord& t : sm_->tasks()) {
    EXPECT_EQ(t.state, TaskState::kRunning);
    EXPECT_EQ(t.rejoin_by_ms, now_ + kRecoveryWindowMs);
  }
  EXPECT_EQ(sm_->NextDeadlineMs(), now_ + kRecoveryWindowMs);
  EXPECT_EQ(sm_->RejoinRefusal(Rejoin(T("worker", 0))), "");
  Send(Rejoin(T("worker", 0)));
  const TaskRecord* w0 = sm_->FindTask(T("worker", 0));
  EXPECT_EQ(w0->rejoin_by_ms, -1);
  EXPECT_EQ(w0->state, TaskState::kRunning);
  EXPECT_EQ(w0->attempt, 0);
  EXPECT_EQ(sm_->SpecFor(T("worker", 0), 0), spec_before);  // its peers' addresses, as they were
  EXPECT_EQ(sm_->RejoinRefusal(Rejoin(T("worker", 0))),
            "attempt 0 of worker:0 does not await a rejoin");
  // Once back, it is a task like any other: its exit counts.
  Send(Rejoin(T("worker", 1)));
  Exit(T("worker", 0), 0);
  auto end = Exit(T("worker", 1), 0);
  ASSERT_TRUE(Has<FinishJob>(end));
  EXPECT_EQ(All<FinishJob>(end)[0].status, FinalStatus::kSucceeded);
}

TEST_F(RecoveryTest, ARejoinOfAnotherAttemptContainerOrAddressIsRefusedSayingWhy) {
  Create(RecoverySpec());
  StartAll();
  Recover({"c0", "c1"});
  TaskRejoined stale = Rejoin(T("worker", 0));
  stale.attempt = 3;
  EXPECT_EQ(sm_->RejoinRefusal(stale), "attempt 3 of worker:0 is stale");
  TaskRejoined moved = Rejoin(T("worker", 0));
  moved.container_id = "c9";
  EXPECT_EQ(sm_->RejoinRefusal(moved), "attempt 0 of worker:0 ran in container c0, not in c9");
  moved.container_id.clear();
  EXPECT_EQ(sm_->RejoinRefusal(moved),
            "attempt 0 of worker:0 ran in container c0, not in an unnamed one");
  TaskRejoined elsewhere = Rejoin(T("worker", 0));
  elsewhere.port = 1;
  EXPECT_EQ(sm_->RejoinRefusal(elsewhere),
            "attempt 0 of worker:0 registered at host-worker:0:2000");
  EXPECT_EQ(sm_->RejoinRefusal(TaskRejoined{T("ps", 0), 0, "c0", "h", 1}), "no task ps:0");
  Send(moved);  // refused: changes nothing
  EXPECT_EQ(sm_->FindTask(T("worker", 0))->rejoin_by_ms, now_ + kRecoveryWindowMs);
}

TEST_F(RecoveryTest, ATaskThatDoesNotRejoinWithinTheWindowIsLostAndItsPolicyDecides) {
  JobSpec spec = RecoverySpec();
  spec.heartbeat_interval_ms = 0;  // no heartbeat deadline: only the window's
  Create(spec);
  StartAll();
  Recover({"c0", "c1"});
  Send(Rejoin(T("worker", 0)));
  TickAt(now_ + kRecoveryWindowMs - 1);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kRunning);
  auto out = TickAt(now_ + 1);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kLost);
  EXPECT_EQ(sm_->FindTask(T("worker", 1))->end_reason,
            "did not come back within 120000 ms of the AM's restart (the executors' reconnect "
            "window)");
  ASSERT_EQ(All<StopTask>(out).size(), 2U);  // the lost one, then its peer for the failed job
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_NE(sm_->final_message().find("task worker:1 lost: did not come back"), std::string::npos)
      << sm_->final_message();
}

TEST_F(RecoveryTest, ALiveTaskWhoseContainerIsGoneIsLostAtOnceAndRestartedByItsPolicy) {
  Create(RecoverySpec(RestartPolicy::kOnFailure));
  StartAll();
  auto out = Recover({"c0"});
  EXPECT_EQ(State(T("worker", 0)), TaskState::kRunning);
  const TaskRecord* w1 = sm_->FindTask(T("worker", 1));
  EXPECT_EQ(w1->state, TaskState::kLost);
  EXPECT_EQ(w1->end_reason, "its container ended while no AM ran (the AM restarted)");
  EXPECT_EQ(sm_->RestartsUsed("worker"), 1);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  TickAt(now_ + 1000);  // its backoff
  EXPECT_EQ(sm_->FindTask(T("worker", 1))->attempt, 1);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kNew);
}

TEST_F(RecoveryTest, TheJournalsBudgetsAttemptsAndPendingRestartsGoOn) {
  Create(RecoverySpec(RestartPolicy::kOnFailure));
  StartAll();
  Send(TaskExited{T("worker", 1), 0, 3, "boom"});  // restart 1 of 3, pending its backoff
  auto out = Recover({"c0"});
  EXPECT_EQ(sm_->RestartsUsed("worker"), 1);  // the journal's, not counted again
  const TaskRecord* w1 = sm_->FindTask(T("worker", 1));
  EXPECT_EQ(w1->attempt, 1);  // restarted at once: when its backoff began died with the AM
  EXPECT_EQ(w1->state, TaskState::kNew);
  ASSERT_EQ(w1->past_attempts.size(), 1U);
  EXPECT_EQ(w1->past_attempts[0].state, TaskState::kFailed);
  auto asks = All<engine::ContainerRequest>(out);
  ASSERT_EQ(asks.size(), 1U);
  EXPECT_EQ(asks[0].role, "worker");
  EXPECT_EQ(asks[0].count, 1);
}

TEST_F(RecoveryTest, APendingGangRestartStopsTheRecoveredGangAndRestartsItOnceItEnded) {
  Create(RecoverySpec(RestartPolicy::kOnFailure, RestartScope::kGang));
  StartAll();
  Send(TaskExited{T("worker", 1), 0, 3, "boom"});  // worker:0 is being stopped for the restart
  auto out = Recover({"c0"});
  auto stops = All<StopTask>(out);
  ASSERT_EQ(stops.size(), 1U);
  EXPECT_EQ(stops[0].container_id, "c0");
  EXPECT_TRUE(sm_->RestartPending());
  EXPECT_EQ(sm_->RestartsUsed("worker"), 1);
  auto restart = Send(ContainerExit(T("worker", 0), 0, kExitStoppedByCoordinator, "stopped"));
  auto asks = All<engine::ContainerRequest>(restart);
  ASSERT_EQ(asks.size(), 1U);
  EXPECT_EQ(asks[0].count, 2);
  EXPECT_EQ(sm_->FindTask(T("worker", 0))->attempt, 1);
  EXPECT_EQ(sm_->FindTask(T("worker", 1))->attempt, 1);
  EXPECT_EQ(sm_->RestartsUsed("worker"), 1);
}

TEST_F(RecoveryTest, TheNewTasksOfTheStageAreAskedForAgain) {
  Create(RecoverySpec());
  Start();
  Allocate("worker");
  auto out = Recover({"c0"});
  auto asks = All<engine::ContainerRequest>(out);
  ASSERT_EQ(asks.size(), 1U);
  EXPECT_EQ(asks[0].count, 1);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kNew);
  Allocate("worker");
  EXPECT_EQ(State(T("worker", 1)), TaskState::kAllocated);
}

TEST_F(RecoveryTest, ADecidedJobIsOnlyStoppedAndFinishedNeverDecidedAgain) {
  Create(RecoverySpec());
  StartAll();
  Send(KillRequested{"killed by user (tony kill)"});
  auto out = Recover({"c0"});
  EXPECT_EQ(sm_->phase(), JobPhase::kStopping);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kKilled);
  ASSERT_EQ(All<StopTask>(out).size(), 1U);  // c1 is gone: its task ended while no AM ran
  EXPECT_EQ(All<StopTask>(out)[0].container_id, "c0");
  EXPECT_EQ(State(T("worker", 1)), TaskState::kLost);
  auto end = Stopped(T("worker", 0));
  ASSERT_TRUE(Has<FinishJob>(end));
  EXPECT_EQ(All<FinishJob>(end)[0].message, "killed by user (tony kill)");
}

TEST_F(RecoveryTest, AFinishedJobOnlyFinishes) {
  Create(RecoverySpec());
  StartAll();
  Exit(T("worker", 0), 0);
  Exit(T("worker", 1), 0);
  ASSERT_EQ(sm_->phase(), JobPhase::kFinished);
  auto out = Recover({});
  ASSERT_TRUE(Has<FinishJob>(out));
  EXPECT_EQ(All<FinishJob>(out)[0].status, FinalStatus::kSucceeded);
  EXPECT_EQ(sm_->phase(), JobPhase::kFinished);
}

}  // namespace
}  // namespace tony::core
