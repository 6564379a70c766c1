// Restart policies on the state machine (README "Restarts"): which ends restart a task, the
// budget and backoff, task and gang scope, and YARN taking a container back.
#include <gtest/gtest.h>

#include <csignal>

#include "common/task_state.h"
#include "tests/unit/job_state_machine_test_util.h"

using namespace ::tony::core::testing;  // NOLINT(google-build-using-namespace)

namespace tony::core {
namespace {

JobSpec RestartSpec(RestartPolicy policy, RestartScope scope, int max_restarts = 3) {
  JobSpec spec = MakeSpec({{"worker", 2}});
  RoleSpec& w = spec.roles[0];
  w.restart_policy = policy;
  w.restart_scope = scope;
  w.max_restarts = max_restarts;
  w.restart_backoff_ms = 1000;
  w.restart_backoff_max_ms = 3000;
  return spec;
}

class RestartTest : public JobStateMachineTest {
 protected:
  int Attempt(const TaskId& id) { return sm_->FindTask(id)->attempt; }
  // Reports about the task's current attempt.
  std::vector<Command> ExitNow(const TaskId& id, int code) {
    return Send(TaskExited{id, Attempt(id), code, ""});
  }
  std::vector<Command> SignalNow(const TaskId& id, int signal, bool stopped) {
    TaskExited e{id, Attempt(id), 0, ""};
    e.signal = signal;
    e.stopped = stopped;
    return Send(e);
  }
  std::vector<Command> ContainerNow(const TaskId& id, int status) {
    return Send(ContainerExit(id, Attempt(id), status, "container status"));
  }
  std::vector<Command> RegisterNow(const TaskId& id, const std::string& host) {
    return Send(TaskRegistered{id, Attempt(id), host, 3000 + id.index});
  }
};

TEST_F(RestartTest, TaskScopeRestartsOnlyTheFailedTaskAfterTheBackoffWithANewAttempt) {
  Create(RestartSpec(RestartPolicy::kOnFailure, RestartScope::kTask));
  StartAll();
  const int64_t generation_before = sm_->spec_generation();
  EXPECT_GT(generation_before, 0);  // the first publication
  auto out = ExitNow(T("worker", 1), 3);
  EXPECT_FALSE(Has<StopTask>(out));
  EXPECT_FALSE(Has<FinishJob>(out));
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kFailed);  // the ended attempt, as it ended
  EXPECT_EQ(sm_->FindTask(T("worker", 1))->restart,
            "restart 1 of 3 (tony.worker.max-restarts) in 1000 ms, task scope: task worker:1 "
            "failed: exit 3");
  EXPECT_EQ(sm_->RestartsUsed("worker"), 1);
  ASSERT_EQ(sm_->NextDeadlineMs(), now_ + 1000);

  EXPECT_FALSE(Has<engine::ContainerRequest>(TickAt(now_ + 999)));
  out = TickAt(now_ + 1);
  auto asks = All<engine::ContainerRequest>(out);
  ASSERT_EQ(asks.size(), 1u);
  EXPECT_EQ(asks[0].role, "worker");
  EXPECT_EQ(asks[0].count, 1);
  const TaskRecord* w1 = sm_->FindTask(T("worker", 1));
  EXPECT_EQ(w1->state, TaskState::kNew);
  EXPECT_EQ(w1->attempt, 1);
  ASSERT_EQ(w1->past_attempts.size(), 1u);
  EXPECT_EQ(w1->past_attempts[0].attempt, 0);
  EXPECT_EQ(w1->past_attempts[0].state, TaskState::kFailed);
  EXPECT_EQ(w1->past_attempts[0].exit_code, 3);
  EXPECT_EQ(State(T("worker", 0)), TaskState::kRunning);  // its peer never stopped

  auto launch = All<LaunchTask>(Allocate("worker"));
  ASSERT_EQ(launch.size(), 1u);
  EXPECT_EQ(launch[0].task, T("worker", 1));
  EXPECT_EQ(launch[0].attempt, 1);
  EXPECT_TRUE(Has<SpecPublished>(RegisterNow(T("worker", 1), "new-host")));
  auto spec = sm_->SpecFor(T("worker", 1), 1);
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ((*spec)["worker"][1], "new-host:3001");  // its slot, with its new address
  EXPECT_FALSE(sm_->SpecFor(T("worker", 1), 0).has_value());
  // Its running peer's spec is the new one too, under a newer generation (its executor learns
  // it with a heartbeat and rewrites $TONY_CLUSTER_SPEC_FILE).
  EXPECT_GT(sm_->spec_generation(), generation_before);
  EXPECT_EQ((*sm_->SpecFor(T("worker", 0), 0))["worker"][1], "new-host:3001");
  // The old attempt's late reports are fenced off.
  Send(TaskExited{T("worker", 1), 0, 9, ""});
  EXPECT_EQ(State(T("worker", 1)), TaskState::kRunning);

  ExitNow(T("worker", 0), 0);
  out = ExitNow(T("worker", 1), 0);
  ASSERT_TRUE(Has<FinishJob>(out));
  EXPECT_EQ(sm_->final_status(), FinalStatus::kSucceeded);
  EXPECT_EQ(sm_->final_message(), "all 2 tracked task(s) succeeded");
}

TEST_F(RestartTest, TheBudgetCountsEachFailureOnceAndThenTheFailureDecidesSayingSo) {
  Create(RestartSpec(RestartPolicy::kOnFailure, RestartScope::kTask, /*max_restarts=*/1));
  StartAll();
  ExitNow(T("worker", 1), 3);
  TickAt(now_ + 1000);
  Allocate("worker");
  RegisterNow(T("worker", 1), "h");
  auto out = ExitNow(T("worker", 1), 4);
  ASSERT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(),
            "task worker:1 failed: exit 4; no restart left (tony.worker.max-restarts = 1, 1 used)");
  EXPECT_EQ(All<StopTask>(out).size(), 1u);  // worker:0
}

TEST_F(RestartTest, TheBackoffDoublesUpToItsMaximum) {
  Create(RestartSpec(RestartPolicy::kOnFailure, RestartScope::kTask, /*max_restarts=*/5));
  StartAll();
  for (int64_t expected : {1000, 2000, 3000, 3000}) {
    ExitNow(T("worker", 1), 3);
    ASSERT_EQ(sm_->NextDeadlineMs(), now_ + expected) << expected;
    EXPECT_FALSE(Has<engine::ContainerRequest>(TickAt(now_ + expected - 1)));
    EXPECT_TRUE(Has<engine::ContainerRequest>(TickAt(now_ + 1)));
    Allocate("worker");
    RegisterNow(T("worker", 1), "h");
  }
  EXPECT_EQ(Attempt(T("worker", 1)), 4);
  EXPECT_EQ(sm_->FindTask(T("worker", 1))->past_attempts.size(), 4u);
}

TEST_F(RestartTest, GangScopeStopsEveryTaskAndRestartsThemAllWithOneRestartCounted) {
  Create(RestartSpec(RestartPolicy::kOnFailure, RestartScope::kGang));
  StartAll();
  auto out = ExitNow(T("worker", 1), 3);
  auto stops = All<StopTask>(out);
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0].task, T("worker", 0));
  EXPECT_EQ(stops[0].reason, "restarting the gang: task worker:1 failed: exit 3");
  // Its peer dies of the lost collective before the stop lands: part of the same restart.
  out = ExitNow(T("worker", 0), 1);
  EXPECT_FALSE(Has<FinishJob>(out));
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  EXPECT_EQ(sm_->RestartsUsed("worker"), 1);
  EXPECT_FALSE(Has<engine::ContainerRequest>(out));  // the backoff has not passed
  out = TickAt(now_ + 1000);
  auto asks = All<engine::ContainerRequest>(out);
  ASSERT_EQ(asks.size(), 1u);
  EXPECT_EQ(asks[0].count, 2);
  for (int i : {0, 1}) {
    EXPECT_EQ(State(T("worker", i)), TaskState::kNew);
    EXPECT_EQ(Attempt(T("worker", i)), 1);
  }
  EXPECT_EQ(sm_->FindTask(T("worker", 0))->past_attempts[0].state, TaskState::kFailed);
  // A new barrier: no spec until both registered again.
  Allocate("worker");
  Allocate("worker");
  EXPECT_FALSE(Has<SpecPublished>(RegisterNow(T("worker", 0), "a")));
  EXPECT_FALSE(sm_->SpecFor(T("worker", 0), 1).has_value());
  EXPECT_TRUE(Has<SpecPublished>(RegisterNow(T("worker", 1), "b")));
  ExitNow(T("worker", 0), 0);
  ExitNow(T("worker", 1), 0);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kSucceeded);
}

TEST_F(RestartTest, GangRestartWaitsForTheStoppedTasksToEnd) {
  Create(RestartSpec(RestartPolicy::kOnFailure, RestartScope::kGang));
  StartAll();
  ExitNow(T("worker", 1), 3);
  EXPECT_FALSE(Has<engine::ContainerRequest>(TickAt(now_ + 5000)));  // worker:0 still stopping
  auto out = Stopped(T("worker", 0));
  EXPECT_EQ(State(T("worker", 0)), TaskState::kNew);  // ended STOPPED, restarted at once
  EXPECT_EQ(sm_->FindTask(T("worker", 0))->past_attempts[0].state, TaskState::kStopped);
  EXPECT_EQ(All<engine::ContainerRequest>(out).at(0).count, 2);
}

TEST_F(RestartTest, ExitCodePolicyRestartsListedCodesAndForeignSignalsOnly) {
  JobSpec spec = RestartSpec(RestartPolicy::kExitCode, RestartScope::kTask);
  spec.roles[0].restart_exit_codes = {75};
  Create(spec);
  StartAll();
  ExitNow(T("worker", 1), 75);
  EXPECT_EQ(sm_->RestartsUsed("worker"), 1);
  TickAt(now_ + 1000);
  Allocate("worker");
  RegisterNow(T("worker", 1), "h");
  SignalNow(T("worker", 1), SIGKILL, /*stopped=*/false);
  EXPECT_EQ(sm_->RestartsUsed("worker"), 2);
  TickAt(now_ + 2000);
  Allocate("worker");
  RegisterNow(T("worker", 1), "h");
  ExitNow(T("worker", 1), 3);  // not listed: the rules decide
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(), "task worker:1 failed: exit 3");
}

TEST_F(RestartTest, APreemptedContainerIsReplacedUncountedEvenWithPolicyNever) {
  Create(RestartSpec(RestartPolicy::kNever, RestartScope::kGang));
  StartAll();
  auto out = ContainerNow(T("worker", 1), kYarnPreempted);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kStopped);
  EXPECT_EQ(sm_->FindTask(T("worker", 1))->end_reason,
            "preempted by YARN (container exit status -102)");
  EXPECT_EQ(sm_->RestartsUsed("worker"), 0);
  EXPECT_EQ(sm_->FindTask(T("worker", 1))->restart,
            "replaced, not counted as a failure in 1000 ms, gang scope: task worker:1: preempted "
            "by YARN (container exit status -102)");
  EXPECT_EQ(All<StopTask>(out).size(), 1u);  // its gang
  Stopped(T("worker", 0));
  EXPECT_EQ(All<engine::ContainerRequest>(TickAt(now_ + 1000)).at(0).count, 2);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
}

TEST_F(RestartTest, APreemptionNoticeStopsTheTaskAtOnceAndItsCleanExitIsReplacedUncounted) {
  Create(RestartSpec(RestartPolicy::kNever, RestartScope::kTask));
  StartAll();
  const std::string container = sm_->FindTask(T("worker", 1))->container_id;
  auto out = Send(PreemptionNotice{T("worker", 1), Attempt(T("worker", 1))});
  auto stops = All<StopTask>(out);
  ASSERT_EQ(stops.size(), 1u);  // that task alone, before YARN kills its container
  EXPECT_EQ(stops[0].task, T("worker", 1));
  EXPECT_EQ(stops[0].container_id, container);
  EXPECT_EQ(stops[0].reason,
            "preempted by YARN: the ResourceManager takes its container back; stopped so that it "
            "can save its state (SIGTERM, then SIGKILL after the stop grace)");
  // The RM's notice comes with every allocate answer until the container is gone: once is enough.
  EXPECT_FALSE(Has<StopTask>(Send(PreemptionNotice{T("worker", 1), Attempt(T("worker", 1))})));
  // The user process saved its state and exited 0 on the SIGTERM: not a success, not a failure.
  ExitNow(T("worker", 1), 0);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kStopped);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  EXPECT_EQ(sm_->RestartsUsed("worker"), 0);
  EXPECT_EQ(sm_->FindTask(T("worker", 1))->restart,
            "replaced, not counted as a failure in 1000 ms, task scope: task worker:1: preempted "
            "by YARN (the ResourceManager's notice)");
  EXPECT_EQ(State(T("worker", 0)), TaskState::kRunning);
  auto asks = All<engine::ContainerRequest>(TickAt(now_ + 1000));
  ASSERT_EQ(asks.size(), 1u);
  EXPECT_EQ(asks[0].count, 1);
  // The replacement is an attempt like any other: its notice-free end counts as usual.
  EXPECT_FALSE(sm_->FindTask(T("worker", 1))->preempted);
  Allocate("worker");
  RegisterNow(T("worker", 1), "h");
  ExitNow(T("worker", 1), 0);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kSucceeded);
}

TEST_F(RestartTest, APreemptionNoticeForATaskAlreadyStoppingOrEndedChangesNothing) {
  Create(RestartSpec(RestartPolicy::kNever, RestartScope::kTask));
  StartAll();
  ExitNow(T("worker", 1), 0);
  EXPECT_FALSE(Has<StopTask>(Send(PreemptionNotice{T("worker", 1), Attempt(T("worker", 1))})));
  EXPECT_EQ(State(T("worker", 1)), TaskState::kSucceeded);
  // A notice for an attempt that is not the current one is fenced like every other event.
  EXPECT_FALSE(Has<StopTask>(Send(PreemptionNotice{T("worker", 0), 7})));
  Send(KillRequested{"killed by user"});
  EXPECT_FALSE(Has<StopTask>(Send(PreemptionNotice{T("worker", 0), Attempt(T("worker", 0))})));
  EXPECT_EQ(sm_->FindTask(T("worker", 0))->stop_reason, "killed by user");
}

TEST_F(RestartTest, ALostNodeIsReplacedUncountedAndAnExhaustedBudgetDoesNotStopIt) {
  Create(RestartSpec(RestartPolicy::kOnFailure, RestartScope::kTask, /*max_restarts=*/0));
  StartAll();
  ContainerNow(T("worker", 0), kYarnAborted);
  EXPECT_EQ(State(T("worker", 0)), TaskState::kLost);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);  // the chief, yet no failure
  EXPECT_TRUE(Has<engine::ContainerRequest>(TickAt(now_ + 1000)));
}

TEST_F(RestartTest, AForeignStopWaitsForTheContainerStatusToTellAPreemption) {
  Create(RestartSpec(RestartPolicy::kNever, RestartScope::kTask));
  StartAll();
  // The NodeManager's SIGTERM reaches the executor first; YARN's status comes later.
  SignalNow(T("worker", 1), SIGTERM, /*stopped=*/true);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kRunning);
  ContainerNow(T("worker", 1), kYarnPreempted);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kStopped);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  EXPECT_EQ(sm_->FindTask(T("worker", 1))->end_reason,
            "preempted by YARN (container exit status -102)");
}

TEST_F(RestartTest, AForeignStopWithNoTellingStatusFailsAsBefore) {
  Create(RestartSpec(RestartPolicy::kNever, RestartScope::kTask));
  StartAll();
  SignalNow(T("worker", 1), SIGTERM, /*stopped=*/true);
  ContainerNow(T("worker", 1), 143);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kFailed);
  EXPECT_EQ(sm_->final_message(),
            "task worker:1 failed: signal 15 (SIGTERM); its executor was stopped by a signal tony "
            "did not send (on YARN: its NodeManager)");
}

TEST_F(RestartTest, AForeignStopWithNoStatusAtAllFailsAfterTheWait) {
  Create(RestartSpec(RestartPolicy::kNever, RestartScope::kTask));
  StartAll();
  SignalNow(T("worker", 1), SIGTERM, /*stopped=*/true);
  TickAt(now_ + kForeignStopWaitMs - 1);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kRunning);
  TickAt(now_ + 1);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kFailed);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
}

TEST_F(RestartTest, TheJobDoesNotCompleteWhileARestartIsPending) {
  Create(RestartSpec(RestartPolicy::kOnFailure, RestartScope::kTask));
  StartAll();
  ExitNow(T("worker", 0), 0);
  ExitNow(T("worker", 1), 3);  // every tracked task has ended, one restarting
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  TickAt(now_ + 1000);
  Allocate("worker");
  RegisterNow(T("worker", 1), "h");
  ExitNow(T("worker", 1), 0);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kSucceeded);
  EXPECT_EQ(sm_->final_message(), "all 2 tracked task(s) succeeded");
}

TEST_F(RestartTest, AContainerGivenDuringAGangRestartIsReleasedAndAskedForAgain) {
  Create(RestartSpec(RestartPolicy::kOnFailure, RestartScope::kGang));
  Start();
  Allocate("worker");  // worker:0 only; worker:1's container is still coming
  Register(T("worker", 0));
  ExitNow(T("worker", 0), 3);     // fails before the gang gathered: restart
  auto out = Allocate("worker");  // worker:1's late container
  EXPECT_TRUE(Has<ReleaseContainer>(out));
  EXPECT_FALSE(Has<LaunchTask>(out));
  out = TickAt(now_ + 1000);
  // worker:0's and the released one.
  EXPECT_EQ(All<engine::ContainerRequest>(out).at(0).count, 2);
}

TEST_F(RestartTest, TheChiefSucceedingDuringATaskRestartStillDecides) {
  JobSpec spec = MakeSpec({{"chief", 1}, {"worker", 2}});
  spec.roles[1].restart_policy = RestartPolicy::kOnFailure;
  spec.roles[1].restart_scope = RestartScope::kTask;
  Create(spec);
  StartAll();
  ExitNow(T("worker", 1), 3);
  ExitNow(T("chief", 0), 0);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kSucceeded);
  // The attempt that failed stays failed: its restart never came.
  EXPECT_EQ(sm_->final_message(),
            "chief task chief:0 succeeded; completed with 1 failed task(s): worker:1");
  EXPECT_FALSE(Has<engine::ContainerRequest>(TickAt(now_ + 5000)));
}

}  // namespace
}  // namespace tony::core

namespace tony::core {
namespace {

// tony.am.retry-count (TonY's session retry): a FAILED job starts again from its first stage.
class SessionRetryTest : public RestartTest {
 protected:
  JobSpec RetrySpec(int retries) {
    JobSpec spec = MakeSpec({{"worker", 2}});
    spec.session_retries = retries;
    spec.sources["tony.am.retry-count"] = "tony.xml";
    return spec;
  }
  // Every task of the current session allocated and registered.
  void RunSession() {
    for (const TaskRecord& t : std::vector<TaskRecord>(sm_->tasks())) Allocate(t.id.role);
    for (const TaskRecord& t : std::vector<TaskRecord>(sm_->tasks())) RegisterNow(t.id, "h");
  }
};

TEST_F(SessionRetryTest, AFailedJobStartsAgainWithEveryTaskInANewAttempt) {
  Create(RetrySpec(1));
  StartAll();
  auto out = ExitNow(T("worker", 1), 3);
  // The decision stops the session's other task, saying the session is retried.
  auto stops = All<StopTask>(out);
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0].reason,
            "session retry 1 of 1 (tony.am.retry-count, from tony.xml): the job failed: task "
            "worker:1 failed: exit 3");
  EXPECT_EQ(sm_->session(), 0);
  const int64_t version = sm_->version();
  const int64_t generation = sm_->spec_generation();
  out = SignalNow(T("worker", 0), SIGTERM, /*stopped=*/true);
  // All ended: no FinishJob, a new session asking for every container again.
  EXPECT_FALSE(Has<FinishJob>(out));
  auto asks = All<engine::ContainerRequest>(out);
  ASSERT_EQ(asks.size(), 1u);
  EXPECT_EQ(asks[0].count, 2);
  EXPECT_EQ(sm_->session(), 1);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kUndecided);
  EXPECT_GT(sm_->version(), version);  // a client's long-poll sees the change
  EXPECT_EQ(sm_->spec_generation(), generation);
  EXPECT_EQ(sm_->session_note(),
            "session retry 1 of 1 (tony.am.retry-count, from tony.xml): the job failed: task "
            "worker:1 failed: exit 3");
  for (int i : {0, 1}) {
    const TaskRecord* t = sm_->FindTask(T("worker", i));
    EXPECT_EQ(t->state, TaskState::kNew);
    EXPECT_EQ(t->attempt, 1);
    ASSERT_EQ(t->past_attempts.size(), 1u);
    EXPECT_EQ(t->past_attempts[0].attempt, 0);
    EXPECT_EQ(t->past_attempts[0].restart, sm_->session_note());
  }
  EXPECT_EQ(sm_->FindTask(T("worker", 1))->past_attempts[0].state, TaskState::kFailed);
  EXPECT_EQ(sm_->FindTask(T("worker", 0))->past_attempts[0].state, TaskState::kStopped);
  // An old session's late report is fenced.
  Send(TaskExited{T("worker", 0), 0, 0, ""});
  EXPECT_EQ(State(T("worker", 0)), TaskState::kNew);

  RunSession();
  ExitNow(T("worker", 0), 0);
  out = ExitNow(T("worker", 1), 0);
  auto finish = All<FinishJob>(out);
  ASSERT_EQ(finish.size(), 1u);
  EXPECT_EQ(finish[0].status, FinalStatus::kSucceeded);
  EXPECT_EQ(finish[0].message,
            "all 2 tracked task(s) succeeded; in session retry 1 of 1 (tony.am.retry-count, from "
            "tony.xml): the job failed: task worker:1 failed: exit 3");
}

TEST_F(SessionRetryTest, TheLastSessionsFailureEndsTheJob) {
  Create(RetrySpec(1));
  StartAll();
  ExitNow(T("worker", 1), 3);
  SignalNow(T("worker", 0), SIGTERM, /*stopped=*/true);
  RunSession();
  auto stops = All<StopTask>(ExitNow(T("worker", 0), 4));
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0].reason, "the job failed: task worker:0 failed: exit 4");
  auto out = SignalNow(T("worker", 1), SIGTERM, /*stopped=*/true);
  auto finish = All<FinishJob>(out);
  ASSERT_EQ(finish.size(), 1u);
  EXPECT_EQ(finish[0].status, FinalStatus::kFailed);
  EXPECT_EQ(sm_->session(), 1);
  EXPECT_EQ(sm_->FindTask(T("worker", 0))->attempt, 1);
}

TEST_F(SessionRetryTest, AKilledJobIsNotRetried) {
  Create(RetrySpec(2));
  StartAll();
  Send(KillRequested{"killed by user"});
  SignalNow(T("worker", 0), SIGTERM, /*stopped=*/true);
  auto out = SignalNow(T("worker", 1), SIGTERM, /*stopped=*/true);
  ASSERT_TRUE(Has<FinishJob>(out));
  EXPECT_EQ(sm_->final_status(), FinalStatus::kKilled);
  EXPECT_EQ(sm_->session(), 0);
}

}  // namespace
}  // namespace tony::core
