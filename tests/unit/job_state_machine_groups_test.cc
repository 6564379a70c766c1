// Unit tests of TonY's group dependency timeouts in the coordinator's policy
// (coordinator/core/job_state_machine.h, "Group dependency timeouts"), on simulated time. The
// cases follow TonY's testGroupDependencyTimeout* and testTaskWithDependencyTimeout* tests.
#include <gtest/gtest.h>

#include "coordinator/core/job_state_machine.h"
#include "tests/unit/job_state_machine_test_util.h"

namespace tony::core {
namespace {

using namespace ::tony::core::testing;  // NOLINT(google-build-using-namespace)

constexpr char kKey[] = "tony.application.dependency.evaluator.timeout.after.A";

// chief, 2 workers, an evaluator that depends on group A = chief,worker with a 10 s timeout.
JobSpec GroupSpec(bool ignored, std::vector<std::string> members = {"chief", "worker"}) {
  JobSpec spec = MakeSpec({{"chief", 1}, {"worker", 2}, {"evaluator", 1}});
  GroupDependency d;
  d.role = "evaluator";
  d.group = "A";
  d.members = std::move(members);
  d.timeout_ms = 10'000;
  d.ignored = ignored;
  d.key = kKey;
  spec.group_dependencies.push_back(d);
  spec.heartbeat_interval_ms = 0;  // no heartbeat deadlines: NextDeadlineMs is the group's
  return spec;
}

TEST_F(JobStateMachineTest, GroupTimeoutFailsTheJobWhenTheDependentOutlivesTheGroup) {
  // The chief's success alone would decide the job: the group is the workers here.
  Create(GroupSpec(/*ignored=*/false, {"worker"}));
  StartAll();
  now_ = 2000;
  Exit(T("worker", 0), 0);
  EXPECT_EQ(sm_->NextDeadlineMs(), std::nullopt);  // worker:1 still runs: the group has not ended
  now_ = 5000;
  Exit(T("worker", 1), 0);
  EXPECT_EQ(sm_->NextDeadlineMs(), 15'000);
  TickAt(14'999);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);
  auto out = TickAt(15'000);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(),
            "role evaluator still running 10 s after every task of group A (worker) ended "
            "(tony.application.dependency.evaluator.timeout.after.A)");
  auto stops = All<StopTask>(out);
  ASSERT_EQ(stops.size(), 2u);  // chief and evaluator
}

TEST_F(JobStateMachineTest, GroupTimeoutIgnoredReleasesTheDependentAndTheJobSucceeds) {
  JobSpec spec = GroupSpec(/*ignored=*/true, {"worker"});
  spec.roles.erase(spec.roles.begin());  // no chief: worker:0 is the chief, the group worker
  spec.chief_role = "worker";
  Create(spec);
  StartAll();
  Exit(T("worker", 0), 0);
  Exit(T("worker", 1), 0);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);  // the evaluator is tracked: the job waits
  auto out = TickAt(now_ + 10'000);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kSucceeded);
  EXPECT_EQ(sm_->final_message(),
            "all 2 tracked task(s) succeeded; role evaluator still running 10 s after every task "
            "of group A (worker) ended, no longer waited for "
            "(tony.application.dependency.evaluator.timeout.after.A.ignored)");
  const TaskRecord* e = sm_->FindTask(T("evaluator", 0));
  EXPECT_FALSE(e->tracked);
  EXPECT_TRUE(e->stop_requested);
  Stopped(T("evaluator", 0));
  EXPECT_EQ(State(T("evaluator", 0)), TaskState::kStopped);
  EXPECT_EQ(sm_->phase(), JobPhase::kFinished);
}

TEST_F(JobStateMachineTest, GroupTimeoutIgnoredStillWaitsForOtherTrackedTasks) {
  JobSpec spec = GroupSpec(/*ignored=*/true, {"chief"});
  spec.chief_role = "none";  // no task decides alone: the job waits for every tracked task
  Create(spec);
  StartAll();
  Exit(T("chief", 0), 0);
  TickAt(now_ + 10'000);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);  // workers still run
  EXPECT_FALSE(sm_->FindTask(T("evaluator", 0))->tracked);
  // A released task that then fails by itself is an untracked failure: it fails the job (TonY).
  Exit(T("evaluator", 0), 4);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kFailed);
  EXPECT_EQ(sm_->final_message(), "untracked task evaluator:0 failed: exit 4");
}

TEST_F(JobStateMachineTest, GroupTimeoutDoesNotFireWhenTheDependentEndsInTime) {
  Create(GroupSpec(false, {"worker"}));
  StartAll();
  Exit(T("worker", 0), 0);
  Exit(T("worker", 1), 0);
  TickAt(now_ + 9'000);
  Exit(T("evaluator", 0), 0);
  TickAt(now_ + 20'000);
  EXPECT_EQ(sm_->phase(), JobPhase::kRunning);  // the chief still runs; nothing fired
  Exit(T("chief", 0), 0);
  EXPECT_EQ(sm_->final_status(), FinalStatus::kSucceeded);
}

TEST_F(JobStateMachineTest, GroupTimeoutWaitsForTheLastStage) {
  JobSpec spec = GroupSpec(false, {"worker"});
  for (RoleSpec& r : spec.roles) r.stage = r.name == "worker" ? 0 : 1;
  spec.chief_role = "chief";
  Create(spec);
  Start();
  Allocate("worker");
  Allocate("worker");
  Register(T("worker", 0));
  Register(T("worker", 1));
  Exit(T("worker", 0), 0);
  auto out = Exit(T("worker", 1), 0);  // the group ended, and the training stage starts now
  EXPECT_EQ(All<engine::ContainerRequest>(out).size(), 2u);
  EXPECT_EQ(sm_->NextDeadlineMs().value_or(-1), now_ + 10'000);  // evaluator NEW is not ended
}

}  // namespace
}  // namespace tony::core
