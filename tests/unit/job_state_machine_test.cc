// Unit tests of the coordinator's policy (coordinator/core/job_state_machine.h) on simulated
// time: events in, commands out, no sleeps. The task state rows: job_state_machine_states_test.cc.
#include "coordinator/core/job_state_machine.h"

#include <gtest/gtest.h>

#include "tests/unit/job_state_machine_test_util.h"

namespace tony::core {
namespace {

using namespace ::tony::core::testing;  // NOLINT(google-build-using-namespace)

TEST_F(JobStateMachineTest, StartCreatesTasksAndRequestsContainersPerRole) {
  Create(MakeSpec({{"worker", 2}, {"ps", 1, /*untracked=*/true}, {"chief", 1}}));
  auto out = Start();
  auto requests = All<engine::ContainerRequest>(out);
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[2].role, "worker");
  EXPECT_EQ(requests[2].count, 2);
  EXPECT_EQ(requests[2].memory_mb, 2048);
  EXPECT_EQ(requests[2].vcores, 2);
  EXPECT_EQ(requests[2].gpus, 1);
  ASSERT_EQ(sm_->tasks().size(), 4u);
  const TaskRecord* chief = sm_->FindTask(T("chief", 0));
  ASSERT_NE(chief, nullptr);
  EXPECT_TRUE(chief->is_chief);
  EXPECT_FALSE(sm_->FindTask(T("worker", 0))->is_chief);
  const TaskRecord* ps = sm_->FindTask(T("ps", 0));
  EXPECT_FALSE(ps->tracked);
  EXPECT_TRUE(ps->untracked);
  EXPECT_EQ(ps->state, TaskState::kNew);
  EXPECT_EQ(ps->attempt, 0);
  EXPECT_EQ(sm_->FindTask(T("worker", 2)), nullptr);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kUndecided);
}

TEST_F(JobStateMachineTest, ContainerGoesToFirstNewTaskOfRoleAndExtraIsReleased) {
  Create(MakeSpec({{"worker", 2}}));
  Start();
  auto out = Send(ContainerAllocated{"c1", "worker", "nodeA"});
  auto launches = All<LaunchTask>(out);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].task, T("worker", 0));
  EXPECT_EQ(launches[0].container_id, "c1");
  const TaskRecord* w0 = sm_->FindTask(T("worker", 0));
  EXPECT_EQ(w0->state, TaskState::kAllocated);
  EXPECT_EQ(w0->allocated_ms, now_);
  EXPECT_EQ(w0->host, "nodeA");

  EXPECT_EQ(All<LaunchTask>(Send(ContainerAllocated{"c2", "worker", "nodeB"}))[0].task,
            T("worker", 1));
  auto extra = All<ReleaseContainer>(Send(ContainerAllocated{"c3", "worker", "nodeC"}));
  ASSERT_EQ(extra.size(), 1u);
  EXPECT_EQ(extra[0].container_id, "c3");
  EXPECT_EQ(All<ReleaseContainer>(Send(ContainerAllocated{"c4", "nosuchrole", "n"})).size(), 1u);
}

TEST_F(JobStateMachineTest, GangPublishesSpecOnlyWhenEveryTaskRegistered) {
  Create(MakeSpec({{"worker", 2}, {"ps", 1, true}}));
  StartAndAllocate();
  EXPECT_FALSE(Has<SpecPublished>(Register(T("worker", 1))));
  EXPECT_EQ(State(T("worker", 1)), TaskState::kRegistered);
  EXPECT_FALSE(sm_->SpecFor(T("worker", 1), 0).has_value());
  EXPECT_FALSE(Has<SpecPublished>(Register(T("ps", 0))));
  EXPECT_FALSE(sm_->SpecFor(T("ps", 0), 0).has_value());

  auto out = Register(T("worker", 0));
  EXPECT_TRUE(Has<SpecPublished>(out));
  for (const TaskRecord& t : sm_->tasks()) EXPECT_EQ(t.state, TaskState::kRunning);
  auto spec = sm_->SpecFor(T("worker", 1), 0);
  ASSERT_TRUE(spec.has_value());
  runtime::Cluster expected{{"ps", {"host-ps:0:2000"}},
                            {"worker", {"host-worker:0:2000", "host-worker:1:2001"}}};
  EXPECT_EQ(*spec, expected);
  EXPECT_EQ(sm_->SpecFor(T("ps", 0), 0), expected);
  EXPECT_FALSE(sm_->SpecFor(T("worker", 0), 1).has_value());  // not its attempt
  EXPECT_FALSE(sm_->SpecFor(T("worker", 5), 0).has_value());
}

TEST_F(JobStateMachineTest, FcfsStartsEachTaskWhenItRegisters) {
  JobSpec spec = MakeSpec({{"worker", 3}});
  spec.mode = DistributedMode::kFcfs;
  Create(spec);
  StartAndAllocate();
  EXPECT_TRUE(Has<SpecPublished>(Register(T("worker", 2))));
  EXPECT_EQ(State(T("worker", 2)), TaskState::kRunning);
  EXPECT_EQ(State(T("worker", 0)), TaskState::kAllocated);
  EXPECT_FALSE(sm_->SpecFor(T("worker", 0), 0).has_value());
  EXPECT_EQ(sm_->SpecFor(T("worker", 2), 0),
            (runtime::Cluster{{"worker", {"host-worker:2:2002"}}}));
  EXPECT_TRUE(Has<SpecPublished>(Register(T("worker", 0))));
  EXPECT_EQ(sm_->SpecFor(T("worker", 0), 0),
            (runtime::Cluster{{"worker", {"host-worker:0:2000", "host-worker:2:2002"}}}));
}

TEST_F(JobStateMachineTest, AllWorkersSucceedingSucceedsAndFinishes) {
  Create(MakeSpec({{"worker", 2}}));
  StartAll();
  EXPECT_TRUE(Exit(T("worker", 1), 0).empty());
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  auto out = Exit(T("worker", 0), 0);
  auto finish = All<FinishJob>(out);
  ASSERT_EQ(finish.size(), 1u);
  EXPECT_EQ(finish[0].status, FinalStatus::kSucceeded);
  EXPECT_EQ(finish[0].message, "all 2 tracked task(s) succeeded");
  EXPECT_FALSE(Has<StopTask>(out));
  EXPECT_EQ(sm_->phase(), JobPhase::kFinished);
  EXPECT_EQ(State(T("worker", 0)), TaskState::kSucceeded);
  EXPECT_EQ(sm_->FindTask(T("worker", 0))->exit_code, 0);
}

TEST_F(JobStateMachineTest, ExplicitChiefFailureFailsFastAndStopsTheRest) {
  JobSpec spec = MakeSpec({{"chief", 1}, {"worker", 2}, {"ps", 1, true}});
  spec.fail_on_worker_failure = false;
  Create(spec);
  StartAll();
  auto out = Exit(T("chief", 0), 2, "Traceback\nValueError: bad");
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(), "task chief:0 failed: exit 2\nTraceback\nValueError: bad");
  EXPECT_EQ(sm_->phase(), JobPhase::kStopping);
  auto stops = All<StopTask>(out);
  ASSERT_EQ(stops.size(), 3u);
  for (const StopTask& s : stops) {
    EXPECT_NE(s.task, T("chief", 0));
    EXPECT_FALSE(s.container_id.empty());
    EXPECT_TRUE(sm_->FindTask(s.task)->stop_requested);
  }
  EXPECT_EQ(sm_->FindTask(T("chief", 0))->diagnostics, "Traceback\nValueError: bad");
  EXPECT_FALSE(Has<FinishJob>(out));

  // Once asked to stop: ended by the executor's stop -> STOPPED with the job's reason; exit 0 ->
  // SUCCEEDED; the container stopped before any report (YARN's -105) -> STOPPED.
  Stopped(T("worker", 0));
  Exit(T("worker", 1), 0);
  auto last = ContainerEnded(T("ps", 0), kExitStoppedByCoordinator);
  EXPECT_EQ(State(T("worker", 0)), TaskState::kStopped);
  EXPECT_EQ(sm_->FindTask(T("worker", 0))->end_reason,
            "the job failed: task chief:0 failed: exit 2");
  EXPECT_EQ(sm_->FindTask(T("worker", 0))->signal, SIGTERM);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kSucceeded);
  EXPECT_EQ(State(T("ps", 0)), TaskState::kStopped);
  auto finish = All<FinishJob>(last);
  ASSERT_EQ(finish.size(), 1u);
  EXPECT_EQ(finish[0].status, FinalStatus::kFailed);
  EXPECT_EQ(sm_->phase(), JobPhase::kFinished);
}

TEST_F(JobStateMachineTest, WorkerZeroIsTheImplicitChief) {
  JobSpec spec = MakeSpec({{"worker", 3}});
  spec.fail_on_worker_failure = false;
  Create(spec);
  StartAll();
  EXPECT_TRUE(sm_->FindTask(T("worker", 0))->is_chief);
  Exit(T("worker", 0), 1);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(), "task worker:0 failed: exit 1");
}

TEST_F(JobStateMachineTest, ChiefIsDerivedWhenAHandBuiltSpecLeavesItEmpty) {
  JobSpec spec = MakeSpec({{"worker", 2}});
  spec.chief_role.clear();
  Create(spec);
  Start();
  EXPECT_TRUE(sm_->FindTask(T("worker", 0))->is_chief);
}

TEST_F(JobStateMachineTest, WorkerFailureFailsTheJobAtOnceByDefault) {
  Create(MakeSpec({{"worker", 3}}));
  StartAll();
  auto out = Exit(T("worker", 1), 1, "OOM");
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(), "task worker:1 failed: exit 1\nOOM");
  EXPECT_EQ(All<StopTask>(out).size(), 2u);
}

TEST_F(JobStateMachineTest, WorkerFailureToleratedWhenFailOnWorkerFailureIsOff) {
  JobSpec spec = MakeSpec({{"worker", 3}});
  spec.fail_on_worker_failure = false;
  Create(spec);
  StartAll();
  EXPECT_TRUE(Exit(T("worker", 1), 1).empty());
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  EXPECT_EQ(State(T("worker", 1)), TaskState::kFailed);
  Exit(T("worker", 2), 0);
  auto finish = All<FinishJob>(Exit(T("worker", 0), 0));
  ASSERT_EQ(finish.size(), 1u);
  EXPECT_EQ(finish[0].status, FinalStatus::kSucceeded);
  EXPECT_EQ(finish[0].message, "completed with 1 failed task(s): worker:1");
}

TEST_F(JobStateMachineTest, AllTrackedTasksFailingFailsTheJob) {
  JobSpec spec = MakeSpec({{"trainer", 2}});  // no chief: no single task decides
  spec.fail_on_worker_failure = false;
  Create(spec);
  StartAll();
  Exit(T("trainer", 1), 4);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  auto finish = All<FinishJob>(Exit(T("trainer", 0), 5));
  ASSERT_EQ(finish.size(), 1u);
  EXPECT_EQ(finish[0].status, FinalStatus::kFailed);
  EXPECT_EQ(finish[0].message,
            "all 2 tracked task(s) failed; the first: task trainer:1 failed: exit 4");
}

TEST_F(JobStateMachineTest, UntrackedPsIsStoppedWhenWorkersEnd) {
  Create(MakeSpec({{"worker", 2}, {"ps", 1, true}}));
  StartAll();
  Exit(T("worker", 0), 0);
  auto out = Exit(T("worker", 1), 0);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kSucceeded);
  EXPECT_EQ(sm_->phase(), JobPhase::kStopping);
  auto stops = All<StopTask>(out);
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0].task, T("ps", 0));
  EXPECT_FALSE(Has<FinishJob>(out));
  auto finish = All<FinishJob>(Stopped(T("ps", 0)));
  ASSERT_EQ(finish.size(), 1u);
  EXPECT_EQ(finish[0].status, FinalStatus::kSucceeded);
  EXPECT_EQ(State(T("ps", 0)), TaskState::kStopped);
  EXPECT_EQ(sm_->FindTask(T("ps", 0))->end_reason,
            "the job succeeded (all 2 tracked task(s) succeeded)");
}

TEST_F(JobStateMachineTest, UntrackedPsFailureFailsTheJob) {
  JobSpec spec = MakeSpec({{"worker", 2}, {"ps", 1, true}});
  spec.fail_on_worker_failure = false;
  Create(spec);
  StartAll();
  Exit(T("ps", 0), 3, "address in use");
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(), "untracked task ps:0 failed: exit 3\naddress in use");
}

TEST_F(JobStateMachineTest, SidecarFailureAfterRegistrationIsIgnored) {
  Create(MakeSpec({{"worker", 1}, {"tensorboard", 1, false, /*sidecar=*/true}}));
  StartAll();
  EXPECT_FALSE(sm_->FindTask(T("tensorboard", 0))->tracked);
  EXPECT_TRUE(Exit(T("tensorboard", 0), 1).empty());
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  EXPECT_EQ(State(T("tensorboard", 0)), TaskState::kFailed);
  auto finish = All<FinishJob>(Exit(T("worker", 0), 0));
  ASSERT_EQ(finish.size(), 1u);
  EXPECT_EQ(finish[0].status, FinalStatus::kSucceeded);
}

TEST_F(JobStateMachineTest, StopOnFailureRoleFailsTheJob) {
  JobSpec spec = MakeSpec({{"worker", 2}, {"evaluator", 1, false, false, /*stop=*/true}});
  spec.fail_on_worker_failure = false;
  Create(spec);
  StartAll();
  Exit(T("evaluator", 0), 9);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(), "task evaluator:0 failed: exit 9");
}

TEST_F(JobStateMachineTest, ExplicitChiefSuccessEndsTheJobAndStopsTheRest) {
  Create(MakeSpec({{"chief", 1}, {"worker", 2}, {"ps", 1, true}}));
  StartAll();
  auto out = Exit(T("chief", 0), 0);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kSucceeded);
  EXPECT_EQ(sm_->final_message(), "chief task chief:0 succeeded");
  auto stops = All<StopTask>(out);
  ASSERT_EQ(stops.size(), 3u);
  EXPECT_EQ(stops[0].task, T("ps", 0));
  EXPECT_EQ(stops[1].task, T("worker", 0));
  EXPECT_EQ(stops[2].task, T("worker", 1));
  EXPECT_EQ(stops[0].reason, "the job succeeded (chief task chief:0 succeeded)");
  Stopped(T("worker", 0));
  Stopped(T("worker", 1));
  auto finish = All<FinishJob>(Stopped(T("ps", 0)));
  ASSERT_EQ(finish.size(), 1u);
  EXPECT_EQ(finish[0].status, FinalStatus::kSucceeded);
}

TEST_F(JobStateMachineTest, ImplicitChiefSuccessDoesNotEndTheJob) {
  Create(MakeSpec({{"worker", 2}}));
  StartAll();
  Exit(T("worker", 0), 0);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
}

TEST_F(JobStateMachineTest, HeartbeatLossFailsTheTaskAndStopsIt) {
  Create(MakeSpec({{"worker", 2}}));  // expiry: 1000 ms * 25
  StartAll();
  const int64_t registered = now_;
  now_ += 20'000;
  Send(Heartbeat{T("worker", 0), 0});
  EXPECT_TRUE(TickAt(registered + 24'999).empty());
  auto out = TickAt(registered + 25'000);
  auto stops = All<StopTask>(out);
  ASSERT_EQ(stops.size(), 2u);
  EXPECT_EQ(stops[0].task, T("worker", 1));  // the lost one, then the rest
  EXPECT_EQ(stops[0].reason, "no heartbeat for 25000 ms");
  EXPECT_EQ(stops[1].task, T("worker", 0));
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(), "task worker:1 lost: no heartbeat for 25000 ms");
  const TaskRecord* lost = sm_->FindTask(T("worker", 1));
  EXPECT_EQ(lost->state, TaskState::kLost);
  EXPECT_FALSE(lost->exit_code.has_value());
  EXPECT_EQ(lost->end_reason, "no heartbeat for 25000 ms");
  // Its container's end, reported later, changes nothing.
  ContainerEnded(T("worker", 1), -100);
  EXPECT_EQ(lost->state, TaskState::kLost);
  EXPECT_FALSE(lost->exit_code.has_value());
}

TEST_F(JobStateMachineTest, HeartbeatExpiryUsesAtLeastThreeIntervals) {
  JobSpec spec = MakeSpec({{"worker", 1}});
  spec.heartbeat_interval_ms = 2000;
  spec.max_missed_heartbeats = 1;
  Create(spec);
  StartAll();
  EXPECT_EQ(sm_->NextDeadlineMs(), now_ + 6000);
  TickAt(now_ + 6000);
  EXPECT_EQ(sm_->final_message(), "task worker:0 lost: no heartbeat for 6000 ms");
}

TEST_F(JobStateMachineTest, HeartbeatLossOfNonChiefToleratedWhenFailOnWorkerFailureIsOff) {
  JobSpec spec = MakeSpec({{"worker", 2}});
  spec.fail_on_worker_failure = false;
  Create(spec);
  StartAll();
  const int64_t registered = now_;
  for (int64_t t = registered + 10'000; t <= registered + 30'000; t += 10'000) {
    now_ = t;
    Send(Heartbeat{T("worker", 0), 0});
  }
  EXPECT_EQ(State(T("worker", 1)), TaskState::kLost);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  auto finish = All<FinishJob>(Exit(T("worker", 0), 0));
  ASSERT_EQ(finish.size(), 1u);
  EXPECT_EQ(finish[0].message, "completed with 1 failed task(s): worker:1");
}

TEST_F(JobStateMachineTest, RegistrationTimeoutFailsTheJob) {
  JobSpec spec = MakeSpec({{"worker", 2}});
  spec.registration_timeout_ms = 5000;
  Create(spec);
  StartAndAllocate();
  const int64_t allocated = now_;
  Register(T("worker", 0));
  EXPECT_EQ(sm_->NextDeadlineMs(), allocated + 5000);
  EXPECT_TRUE(TickAt(allocated + 4999).empty());
  auto out = TickAt(allocated + 5000);
  auto stops = All<StopTask>(out);
  ASSERT_EQ(stops.size(), 2u);
  EXPECT_EQ(stops[0].task, T("worker", 1));
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(),
            "task worker:1 did not register within 5000 ms (tony.container.registration.timeout)");
  EXPECT_EQ(State(T("worker", 1)), TaskState::kLost);
}

TEST_F(JobStateMachineTest, AllocationTimeoutFailsAGangThatNeverGathers) {
  JobSpec spec = MakeSpec({{"worker", 3}});
  spec.allocation_timeout_ms = 10'000;
  Create(spec);
  const int64_t started = now_;
  Start();
  Allocate("worker");
  Allocate("worker");
  Register(T("worker", 0));
  auto out = TickAt(started + 10'000);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(),
            "only 1 of 3 tasks registered within 10000 ms (tony.container.allocation.timeout); "
            "2 of 3 worker containers of 3072 MB, 2 vcores, 1 GPUs allocated");
  EXPECT_EQ(All<StopTask>(out).size(), 2u);
  // The task that never got a container needs no stopping.
  const TaskRecord* w2 = sm_->FindTask(T("worker", 2));
  EXPECT_EQ(w2->state, TaskState::kNotStarted);
  // Containers arriving now are not wanted.
  EXPECT_TRUE(Has<ReleaseContainer>(Allocate("worker")));
}

TEST_F(JobStateMachineTest, GangTimeoutFailsAHalfAllocatedGangNamingWhatIsMissing) {
  JobSpec spec = MakeSpec({{"ps", 1, /*untracked=*/true}, {"worker", 2}});
  spec.gang_timeout_ms = 60'000;
  Create(spec);
  const int64_t started = now_;
  Start();
  Allocate("worker");
  ASSERT_EQ(sm_->NextDeadlineMs(), started + 60'000);
  TickAt(started + 59'999);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  auto out = TickAt(started + 60'000);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(),
            "the gang was not allocated within 60000 ms (tony.application.gang-timeout-ms): 0 of "
            "1 ps containers of 1024 MB, 2 vcores allocated, 1 of 2 worker containers of 2048 "
            "MB, 2 vcores, 1 GPUs allocated");
  EXPECT_EQ(All<StopTask>(out).size(), 1u);  // the worker that had its container
}

TEST_F(JobStateMachineTest, GangTimeoutIsOffByDefaultAndEndsOnceEveryContainerCame) {
  JobSpec spec = MakeSpec({{"worker", 2}});
  spec.heartbeat_interval_ms = 0;
  Create(spec);
  Start();
  Allocate("worker");
  EXPECT_FALSE(sm_->NextDeadlineMs().has_value());  // off: YARN may take its time
  spec.gang_timeout_ms = 1000;
  Create(spec);
  Start();
  Allocate("worker");
  Allocate("worker");  // registration is not the gang timeout's business
  TickAt(now_ + 5000);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  EXPECT_FALSE(sm_->NextDeadlineMs().has_value());
}

TEST_F(JobStateMachineTest, AllocationTimeoutDoesNotApplyOnceTheGangGathered) {
  JobSpec spec = MakeSpec({{"worker", 1}});
  spec.allocation_timeout_ms = 10'000;
  spec.heartbeat_interval_ms = 0;  // no heartbeat deadline either
  Create(spec);
  StartAll();
  EXPECT_FALSE(sm_->NextDeadlineMs().has_value());
  TickAt(now_ + 50'000);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
}

TEST_F(JobStateMachineTest, ApplicationTimeoutFailsTheJob) {
  JobSpec spec = MakeSpec({{"worker", 1}});
  spec.application_timeout_ms = 10'000;
  Create(spec);
  const int64_t started = now_;
  StartAll();
  for (now_ = started + 5000; now_ < started + 10'000; now_ += 5000) {
    Send(Heartbeat{T("worker", 0), 0});
  }
  TickAt(started + 10'000);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(),
            "application timed out after 10000 ms (tony.application.timeout)");
}

TEST_F(JobStateMachineTest, DeadlinesPassedBeforeAnEventCountFirst) {
  JobSpec spec = MakeSpec({{"worker", 1}});
  spec.application_timeout_ms = 10'000;
  Create(spec);
  const int64_t started = now_;
  StartAll();
  now_ = started + 12'000;  // the shell did not tick in time; the exit comes after the deadline
  auto out = Exit(T("worker", 0), 0);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  // Asked to stop before its exit 0 came: a process that exits 0 SUCCEEDED all the same.
  EXPECT_EQ(State(T("worker", 0)), TaskState::kSucceeded);
  EXPECT_TRUE(Has<FinishJob>(out));
}

TEST_F(JobStateMachineTest, LateTickAppliesTheEarliestDeadlineFirst) {
  JobSpec spec = MakeSpec({{"worker", 1}});
  spec.application_timeout_ms = 30'000;
  Create(spec);
  const int64_t started = now_;
  StartAll();  // heartbeat expiry at started + 25000
  TickAt(started + 40'000);
  EXPECT_EQ(sm_->final_message(), "task worker:0 lost: no heartbeat for 25000 ms");
}

TEST_F(JobStateMachineTest, KillStopsEverythingWithTheReasonVerbatim) {
  Create(MakeSpec({{"worker", 2}, {"ps", 1, true}}));
  StartAndAllocate();
  Register(T("worker", 0));
  auto out = Send(KillRequested{"killed by user (tony kill)"});
  EXPECT_EQ(sm_->final_status(), FinalStatus::kKilled);
  EXPECT_EQ(sm_->final_message(), "killed by user (tony kill)");
  EXPECT_EQ(All<StopTask>(out).size(), 3u);
  Stopped(T("worker", 0));
  Stopped(T("worker", 1));
  auto finish = All<FinishJob>(Stopped(T("ps", 0)));
  ASSERT_EQ(finish.size(), 1u);
  EXPECT_EQ(finish[0].status, FinalStatus::kKilled);
  EXPECT_EQ(finish[0].message, "killed by user (tony kill)");
}

TEST_F(JobStateMachineTest, KillBeforeAnyContainerFinishesAtOnce) {
  Create(MakeSpec({{"worker", 2}}));
  Start();
  auto finish = All<FinishJob>(Send(KillRequested{"killed"}));
  ASSERT_EQ(finish.size(), 1u);
  EXPECT_EQ(finish[0].status, FinalStatus::kKilled);
  EXPECT_EQ(sm_->phase(), JobPhase::kFinished);
  EXPECT_EQ(State(T("worker", 0)), TaskState::kNotStarted);
}

TEST_F(JobStateMachineTest, EventsForAStaleAttemptAreIgnored) {
  Create(MakeSpec({{"worker", 1}}));
  StartAndAllocate();
  EXPECT_TRUE(Register(T("worker", 0), /*attempt=*/1).empty());
  EXPECT_EQ(State(T("worker", 0)), TaskState::kAllocated);
  Register(T("worker", 0));
  const int64_t version = sm_->version();
  EXPECT_TRUE(Send(TaskExited{T("worker", 0), 1, 1, "old"}).empty());
  EXPECT_TRUE(Send(TaskLaunchFailed{T("worker", 0), 1, "old"}).empty());
  Send(Heartbeat{T("worker", 0), 1});
  EXPECT_EQ(State(T("worker", 0)), TaskState::kRunning);
  EXPECT_EQ(sm_->version(), version);
  EXPECT_EQ(sm_->FindTask(T("worker", 0))->last_heartbeat_ms,
            sm_->FindTask(T("worker", 0))->registered_ms);
}

TEST_F(JobStateMachineTest, OnlyTheFirstExitReportCounts) {
  JobSpec spec = MakeSpec({{"worker", 2}});
  spec.fail_on_worker_failure = false;
  Create(spec);
  StartAll();
  Exit(T("worker", 1), 0, "from the executor");
  const int64_t version = sm_->version();
  EXPECT_TRUE(ContainerEnded(T("worker", 1), -100, "container lost").empty());
  const TaskRecord* w1 = sm_->FindTask(T("worker", 1));
  EXPECT_EQ(w1->state, TaskState::kSucceeded);
  EXPECT_EQ(w1->diagnostics, "from the executor");
  EXPECT_EQ(sm_->version(), version);
}

TEST_F(JobStateMachineTest, TheFirstDecisionWins) {
  JobSpec spec = MakeSpec({{"worker", 2}});
  spec.application_timeout_ms = 60'000;
  Create(spec);
  StartAll();
  Exit(T("worker", 1), 1, "root cause");
  Send(KillRequested{"killed"});
  now_ += 61'000;
  Exit(T("worker", 0), 1, "collateral");
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(), "task worker:1 failed: exit 1\nroot cause");
  EXPECT_EQ(sm_->phase(), JobPhase::kFinished);
}

TEST_F(JobStateMachineTest, StopGraceExpiryFinishesTheJobAnyway) {
  Create(MakeSpec({{"worker", 2}}));
  StartAll();
  Exit(T("worker", 1), 1);
  const int64_t decided = now_;
  EXPECT_EQ(sm_->NextDeadlineMs(), decided + kStopGraceMs);
  EXPECT_TRUE(TickAt(decided + kStopGraceMs - 1).empty());
  auto finish = All<FinishJob>(TickAt(decided + kStopGraceMs));
  ASSERT_EQ(finish.size(), 1u);
  EXPECT_EQ(finish[0].status, FinalStatus::kFailed);
  const TaskRecord* w0 = sm_->FindTask(T("worker", 0));
  EXPECT_EQ(w0->state, TaskState::kStopped);
  EXPECT_EQ(w0->end_reason, "the job failed: task worker:1 failed: exit 1");
  EXPECT_EQ(w0->diagnostics, "did not end within 15000 ms of the stop; killed");
  EXPECT_FALSE(sm_->NextDeadlineMs().has_value());
}

TEST_F(JobStateMachineTest, LaunchFailureFailsTheJob) {
  JobSpec spec = MakeSpec({{"worker", 2}});
  spec.fail_on_worker_failure = false;
  Create(spec);
  StartAndAllocate();
  Send(TaskLaunchFailed{T("worker", 1), 0, "exec format error"});
  const TaskRecord* w1 = sm_->FindTask(T("worker", 1));
  EXPECT_EQ(w1->state, TaskState::kFailed);
  EXPECT_FALSE(w1->exit_code.has_value());
  EXPECT_EQ(w1->end_reason, "failed to launch: exec format error");
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(),
            "task worker:1 failed to launch before it registered\nexec format error");
}

TEST_F(JobStateMachineTest, FailureBeforeRegistrationFailsTheJob) {
  JobSpec spec = MakeSpec({{"worker", 2}, {"tensorboard", 1, false, true}});
  spec.fail_on_worker_failure = false;
  Create(spec);
  StartAndAllocate();
  Exit(T("tensorboard", 0), 127, "tensorboard: not found");
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(),
            "task tensorboard:0 failed before it registered: exit 127\n"
            "tensorboard: not found");
}

TEST_F(JobStateMachineTest, EventsAfterTheJobFinishedProduceNothing) {
  Create(MakeSpec({{"worker", 1}}));
  StartAll();
  Exit(T("worker", 0), 0);
  ASSERT_EQ(sm_->phase(), JobPhase::kFinished);
  const int64_t version = sm_->version();
  EXPECT_TRUE(Allocate("worker").empty());
  EXPECT_TRUE(Send(KillRequested{"late"}).empty());
  EXPECT_TRUE(TickAt(now_ + 1'000'000).empty());
  EXPECT_EQ(sm_->version(), version);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kSucceeded);
}

TEST_F(JobStateMachineTest, VersionIncreasesOnVisibleChangesOnly) {
  Create(MakeSpec({{"worker", 1}}));
  int64_t v = sm_->version();
  Start();
  EXPECT_GT(sm_->version(), v);
  v = sm_->version();
  Allocate("worker");
  EXPECT_GT(sm_->version(), v);
  v = sm_->version();
  Register(T("worker", 0));
  EXPECT_GT(sm_->version(), v);
  v = sm_->version();
  now_ += 1000;
  Send(Heartbeat{T("worker", 0), 0});
  Send(Tick{});
  EXPECT_EQ(sm_->version(), v);
  Exit(T("worker", 0), 0);
  EXPECT_GT(sm_->version(), v);
}

TEST_F(JobStateMachineTest, NextDeadlineIsTheEarliestPendingTimeout) {
  JobSpec spec = MakeSpec({{"worker", 2}});
  spec.application_timeout_ms = 100'000;
  spec.allocation_timeout_ms = 60'000;
  spec.registration_timeout_ms = 30'000;
  Create(spec);
  EXPECT_FALSE(sm_->NextDeadlineMs().has_value());  // not started
  const int64_t started = now_;
  Start();
  EXPECT_EQ(sm_->NextDeadlineMs(), started + 60'000);
  now_ = started + 1000;
  Allocate("worker");
  Allocate("worker");
  EXPECT_EQ(sm_->NextDeadlineMs(), started + 31'000);
  now_ = started + 2000;
  Register(T("worker", 0));  // its heartbeat expiry: +25000
  EXPECT_EQ(sm_->NextDeadlineMs(), started + 27'000);
  // A heartbeat moves that deadline later; the shell may wake early, and a Tick then finds the
  // true deadline.
  now_ = started + 20'000;
  Send(Heartbeat{T("worker", 0), 0});
  EXPECT_LE(*sm_->NextDeadlineMs(), started + 31'000);
  TickAt(*sm_->NextDeadlineMs());
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  EXPECT_EQ(sm_->NextDeadlineMs(), started + 31'000);
}

TEST_F(JobStateMachineTest, ManyTasksGatherAndFinish) {
  JobSpec spec = MakeSpec({{"worker", 2000}, {"ps", 50, true}});
  Create(spec);
  StartAll();
  EXPECT_EQ(sm_->SpecFor(T("worker", 1999), 0)->at("worker").size(), 2000u);
  for (int i = 0; i < 2000; ++i) Exit(T("worker", i), 0);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kSucceeded);
  for (int i = 0; i < 50; ++i) Stopped(T("ps", i));
  EXPECT_EQ(sm_->phase(), JobPhase::kFinished);
}

}  // namespace
}  // namespace tony::core
