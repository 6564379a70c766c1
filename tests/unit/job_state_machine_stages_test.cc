// Unit tests of TonY's prepare/training stages in the coordinator's policy
// (coordinator/core/job_state_machine.h, "Stages"), on simulated time.
#include <gtest/gtest.h>

#include "coordinator/core/job_state_machine.h"
#include "tests/unit/job_state_machine_test_util.h"

namespace tony::core {
namespace {

using namespace ::tony::core::testing;  // NOLINT(google-build-using-namespace)

std::vector<std::string> RequestedRoles(const std::vector<Command>& out) {
  std::vector<std::string> roles;
  for (const auto& r : All<engine::ContainerRequest>(out)) roles.push_back(r.role);
  return roles;
}

// TonY's testTonyAMSchedulerShouldPass layout: dbloader and db prepare, ps and worker train.
JobSpec StagedSpec() {
  return MakeSpec({{"dbloader", 1, false, false, false, 0},
                   {"db", 2, false, false, false, 0},
                   {"ps", 1, /*untracked=*/true, false, false, 1},
                   {"worker", 2, false, false, false, 1}});
}

class StagesTest : public JobStateMachineTest {
 protected:
  // Allocates and registers every task of `role`.
  void Bring(const std::string& role) {
    for (const TaskRecord& t : std::vector<TaskRecord>(sm_->tasks())) {
      if (t.id.role == role) Allocate(role);
    }
    for (const TaskRecord& t : std::vector<TaskRecord>(sm_->tasks())) {
      if (t.id.role == role) Register(t.id);
    }
  }
};

TEST_F(StagesTest, TrainingRolesAreAskedForOnlyAfterEveryPrepareTaskSucceeded) {
  Create(StagedSpec());
  EXPECT_EQ(RequestedRoles(Start()), (std::vector<std::string>{"db", "dbloader"}));
  EXPECT_EQ(sm_->stage(), 0);
  EXPECT_EQ(sm_->last_stage(), 1);
  EXPECT_EQ(State(T("worker", 0)), TaskState::kNew);
  // A training container cannot be had yet: any that came would be released.
  EXPECT_TRUE(Has<ReleaseContainer>(Allocate("worker")));

  Bring("db");
  Bring("dbloader");
  EXPECT_TRUE(RequestedRoles(Exit(T("db", 0), 0)).empty());
  EXPECT_TRUE(RequestedRoles(Exit(T("db", 1), 0)).empty());
  auto out = Exit(T("dbloader", 0), 0);
  EXPECT_EQ(RequestedRoles(out), (std::vector<std::string>{"ps", "worker"}));
  EXPECT_EQ(sm_->stage(), 1);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);  // the prepare stage's end is not the job's

  Bring("ps");
  Bring("worker");
  Exit(T("worker", 0), 0);
  Exit(T("worker", 1), 0);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kSucceeded);
  EXPECT_EQ(sm_->final_message(), "all 5 tracked task(s) succeeded");
}

TEST_F(StagesTest, EachStageHasItsOwnGangBarrierAndClusterSpec) {
  Create(StagedSpec());
  Start();
  Bring("db");
  EXPECT_FALSE(sm_->SpecFor(T("db", 0), 0).has_value());  // dbloader has not registered
  Allocate("dbloader");
  EXPECT_TRUE(Has<SpecPublished>(Register(T("dbloader", 0))));
  runtime::Cluster prepare{{"db", {"host-db:0:2000", "host-db:1:2001"}},
                           {"dbloader", {"host-dbloader:0:2000"}}};
  EXPECT_EQ(sm_->SpecFor(T("db", 1), 0), prepare);
  EXPECT_EQ(State(T("db", 0)), TaskState::kRunning);

  Exit(T("db", 0), 0);
  Exit(T("db", 1), 0);
  Exit(T("dbloader", 0), 0);
  Bring("worker");
  EXPECT_FALSE(sm_->SpecFor(T("worker", 0), 0).has_value());  // ps has not registered
  EXPECT_EQ(State(T("worker", 0)), TaskState::kRegistered);
  Allocate("ps");
  EXPECT_TRUE(Has<SpecPublished>(Register(T("ps", 0))));
  runtime::Cluster training{{"ps", {"host-ps:0:2000"}},
                            {"worker", {"host-worker:0:2000", "host-worker:1:2001"}}};
  EXPECT_EQ(sm_->SpecFor(T("worker", 1), 0), training);
  EXPECT_EQ(sm_->SpecFor(T("dbloader", 0), 0), prepare);  // unchanged
}

TEST_F(StagesTest, FcfsSpecListsOnlyTheTasksOfTheSameStage) {
  JobSpec spec = StagedSpec();
  spec.mode = DistributedMode::kFcfs;
  Create(spec);
  Start();
  Bring("db");
  Bring("dbloader");
  runtime::Cluster prepare{{"db", {"host-db:0:2000", "host-db:1:2001"}},
                           {"dbloader", {"host-dbloader:0:2000"}}};
  EXPECT_EQ(sm_->SpecFor(T("db", 0), 0), prepare);
  for (const char* role : {"db", "dbloader"}) {
    for (const TaskRecord& t : std::vector<TaskRecord>(sm_->tasks())) {
      if (t.id.role == role) Exit(t.id, 0);
    }
  }
  Allocate("worker");
  Register(T("worker", 0));
  EXPECT_EQ(sm_->SpecFor(T("worker", 0), 0),
            (runtime::Cluster{{"worker", {"host-worker:0:2000"}}}));
}

TEST_F(StagesTest, AFailedPrepareTaskFailsTheJobEvenWhenWorkerFailuresAreTolerated) {
  JobSpec spec = StagedSpec();
  spec.fail_on_worker_failure = false;
  Create(spec);
  Start();
  Bring("db");
  Bring("dbloader");
  Exit(T("dbloader", 0), 0);
  auto out = Exit(T("db", 1), 3, "boom");
  EXPECT_TRUE(RequestedRoles(out).empty());
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(),
            "task db:1 failed: exit 3; the training stage does not start\nboom");
  // The training tasks never had a container: NOT_STARTED at once, with the job's reason.
  const TaskRecord* w = sm_->FindTask(T("worker", 1));
  EXPECT_EQ(w->state, TaskState::kNotStarted);
  EXPECT_EQ(w->end_reason,
            "the job failed: task db:1 failed: exit 3; the training stage does "
            "not start");
  EXPECT_EQ(State(T("db", 0)), TaskState::kRunning);  // being stopped
  EXPECT_TRUE(sm_->FindTask(T("db", 0))->stop_requested);
}

TEST_F(StagesTest, UntrackedAndSidecarPrepareTasksAreNotWaitedFor) {
  Create(MakeSpec({{"loader", 1, false, false, false, 0},
                   {"cache", 1, /*untracked=*/true, false, false, 0},
                   {"tensorboard", 1, false, /*sidecar=*/true, false, 0},
                   {"worker", 1, false, false, false, 1}}));
  Start();
  Bring("cache");
  Bring("tensorboard");
  Bring("loader");
  auto out = Exit(T("loader", 0), 0);
  EXPECT_EQ(RequestedRoles(out), (std::vector<std::string>{"worker"}));
  EXPECT_EQ(State(T("cache", 0)), TaskState::kRunning);  // keeps running into training
}

TEST_F(StagesTest, AnExplicitChiefInThePrepareStageDoesNotEndTheJob) {
  Create(MakeSpec({{"chief", 1, false, false, false, 0}, {"worker", 1, false, false, false, 1}}));
  Start();
  Bring("chief");
  auto out = Exit(T("chief", 0), 0);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  EXPECT_EQ(RequestedRoles(out), (std::vector<std::string>{"worker"}));
}

TEST_F(StagesTest, AllocationTimeoutCountsFromTheStagesStartAndNamesTheStage) {
  JobSpec spec = StagedSpec();
  spec.allocation_timeout_ms = 10'000;
  Create(spec);
  Start();  // at 1000
  Bring("db");
  Bring("dbloader");
  now_ = 9000;
  Exit(T("db", 0), 0);
  Exit(T("db", 1), 0);
  Exit(T("dbloader", 0), 0);  // the training stage starts at 9000
  Bring("worker");
  EXPECT_EQ(sm_->NextDeadlineMs(), 19'000);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  TickAt(18'999);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  TickAt(19'000);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(),
            "only 2 of 3 tasks of the training stage registered within 10000 ms "
            "(tony.container.allocation.timeout); 0 of 1 ps containers of 1024 MB, 2 vcores "
            "allocated");
}

TEST_F(StagesTest, KillDuringThePrepareStageLeavesTrainingTasksNotStarted) {
  Create(StagedSpec());
  Start();
  Bring("db");
  Send(KillRequested{"killed by user (tony kill)"});
  EXPECT_EQ(State(T("worker", 0)), TaskState::kNotStarted);
  EXPECT_EQ(State(T("ps", 0)), TaskState::kNotStarted);
  for (const TaskRecord& t : std::vector<TaskRecord>(sm_->tasks())) {
    if (t.id.role == "db") Stopped(t.id);
  }
  auto out = Send(TaskLaunchFailed{T("dbloader", 0), 0, "not launched"});
  EXPECT_TRUE(RequestedRoles(out).empty());
  EXPECT_EQ(sm_->phase(), JobPhase::kFinished);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kKilled);
}

// tony.application.enable-preprocess: am:0 (RoleSpec::preprocess) runs in a stage of its own.
JobSpec PreprocessSpec() {
  JobSpec spec =
      MakeSpec({{"am", 1, false, false, false, 0}, {"worker", 2, false, false, false, 1}});
  spec.roles[0].preprocess = true;
  return spec;
}

TEST_F(StagesTest, ThePreprocessTaskRunsFirstAndIsAStageNotATaskOfTheResult) {
  Create(PreprocessSpec());
  EXPECT_EQ(RequestedRoles(Start()), (std::vector<std::string>{"am"}));
  Bring("am");
  EXPECT_EQ(sm_->SpecFor(T("am", 0), 0), (runtime::Cluster{{"am", {"host-am:0:2000"}}}));
  EXPECT_EQ(RequestedRoles(Exit(T("am", 0), 0)), (std::vector<std::string>{"worker"}));
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  Bring("worker");
  EXPECT_EQ(sm_->SpecFor(T("worker", 0), 0),
            (runtime::Cluster{{"worker", {"host-worker:0:2000", "host-worker:1:2001"}}}));
  Exit(T("worker", 0), 0);
  Exit(T("worker", 1), 0);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kSucceeded);
  EXPECT_EQ(sm_->final_message(), "all 2 tracked task(s) succeeded");
}

TEST_F(StagesTest, AFailedPreprocessTaskFailsTheJobAndNoOtherTaskStarts) {
  JobSpec spec = PreprocessSpec();
  spec.fail_on_worker_failure = false;
  Create(spec);
  Start();
  Bring("am");
  auto out = Exit(T("am", 0), 2, "no data");
  EXPECT_TRUE(RequestedRoles(out).empty());
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(),
            "task am:0 failed: exit 2; the training stage does not start\nno data");
  EXPECT_EQ(State(T("worker", 0)), TaskState::kNotStarted);
}

// A job of no task but am:0 (TonY's single-node job): its result is am:0's.
TEST_F(StagesTest, ASingleNodeJobEndsWithItsOneTask) {
  JobSpec spec = MakeSpec({{"am", 1, false, false, false, 0}});
  spec.roles[0].preprocess = true;
  Create(spec);
  Start();
  Bring("am");
  Exit(T("am", 0), 0);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kSucceeded);
  EXPECT_EQ(sm_->final_message(), "all 1 tracked task(s) succeeded");

  Create(spec);
  Start();
  Bring("am");
  Exit(T("am", 0), 4, "bad");
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(), "task am:0 failed: exit 4\nbad");
}

}  // namespace
}  // namespace tony::core
