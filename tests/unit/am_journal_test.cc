// The AM's journal (docs/am-restart.md §3, coordinator/am_journal.h): what the core journals and
// its file's round trip.
#include "coordinator/am_journal.h"

#include <gtest/gtest.h>

#include <string>

#include "common/task_state.h"
#include "rpc/am_journal.pb.h"
#include "tests/unit/job_state_machine_test_util.h"

using namespace ::tony::core::testing;  // NOLINT(google-build-using-namespace)

namespace tony::core {
namespace {

class AmJournalTest : public JobStateMachineTest {
 protected:
  // worker:0 RUNNING, worker:1 restarted once (its first attempt FAILED with exit 3) and
  // ALLOCATED again, ps:0 published; the job runs.
  void RunWithARestart() {
    JobSpec spec = MakeSpec({{"worker", 2}, {"ps", 1, /*untracked=*/true}});
    for (RoleSpec& role : spec.roles) {
      if (role.name != "worker") continue;
      role.restart_policy = RestartPolicy::kOnFailure;
      role.restart_scope = RestartScope::kTask;
      role.restart_backoff_ms = 1000;
    }
    Create(spec);
    StartAll();
    Send(TaskPublished{T("ps", 0), 0});
    Send(TaskExited{T("worker", 1), 0, 3, "boom"});
    TickAt(now_ + 1000);
    Allocate("worker");
  }
};

void ExpectSameTask(const TaskRecord& a, const TaskRecord& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.attempt, b.attempt);
  EXPECT_EQ(a.state, b.state);
  EXPECT_EQ(a.container_id, b.container_id);
  EXPECT_EQ(a.host, b.host);
  EXPECT_EQ(a.port, b.port);
  EXPECT_EQ(a.exit_code, b.exit_code);
  EXPECT_EQ(a.signal, b.signal);
  EXPECT_EQ(a.end_reason, b.end_reason);
  EXPECT_EQ(a.restart, b.restart);
  EXPECT_EQ(a.in_completion, b.in_completion);
  EXPECT_EQ(a.preempted, b.preempted);
  ASSERT_EQ(a.past_attempts.size(), b.past_attempts.size());
  for (size_t i = 0; i < a.past_attempts.size(); ++i) {
    const PastAttempt& p = a.past_attempts[i];
    const PastAttempt& q = b.past_attempts[i];
    EXPECT_EQ(p.attempt, q.attempt);
    EXPECT_EQ(p.state, q.state);
    EXPECT_EQ(p.exit_code, q.exit_code);
    EXPECT_EQ(p.signal, q.signal);
    EXPECT_EQ(p.end_reason, q.end_reason);
    EXPECT_EQ(p.host, q.host);
    EXPECT_EQ(p.container_id, q.container_id);
    EXPECT_EQ(p.restart, q.restart);
  }
}

TEST_F(AmJournalTest, TheCoreJournalsTasksAttemptsBudgetsAndPublications) {
  RunWithARestart();
  const JobJournal j = sm_->Journal();
  EXPECT_EQ(j.phase, JobPhase::kRunning);
  EXPECT_EQ(j.final_status, FinalStatus::kUndecided);
  EXPECT_EQ(j.spec_generation, sm_->spec_generation());
  ASSERT_EQ(j.tasks.size(), 3U);
  const TaskRecord& w1 = j.tasks[2];
  EXPECT_EQ(w1.id, T("worker", 1));
  EXPECT_EQ(w1.attempt, 1);
  EXPECT_EQ(w1.state, TaskState::kAllocated);
  ASSERT_EQ(w1.past_attempts.size(), 1U);
  EXPECT_EQ(w1.past_attempts[0].state, TaskState::kFailed);
  EXPECT_EQ(w1.past_attempts[0].exit_code, 3);
  EXPECT_EQ(w1.past_attempts[0].ended_ms, -1);  // a time of this process's clock: not journaled
  EXPECT_EQ(j.tasks[1].state, TaskState::kRunning);
  EXPECT_EQ(j.tasks[1].port, 2000);
  EXPECT_EQ(j.restarts_used.at("worker"), 1);
  EXPECT_EQ(j.published, std::set<std::string>{"ps:0"});
}

TEST_F(AmJournalTest, TheFileGivesBackWhatWasJournaled) {
  RunWithARestart();
  Send(KillRequested{"killed by user (tony kill)"});  // a decided job: its decision is journaled
  const JobJournal j = sm_->Journal();
  auto back = ParseAmJournal(SerializeAmJournal(j), "journal.pb");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->phase, JobPhase::kStopping);
  EXPECT_EQ(back->final_status, FinalStatus::kKilled);
  EXPECT_EQ(back->final_message, j.final_message);
  EXPECT_EQ(back->session, j.session);
  EXPECT_EQ(back->session_note, j.session_note);
  EXPECT_EQ(back->stage, j.stage);
  EXPECT_EQ(back->spec_generation, j.spec_generation);
  EXPECT_EQ(back->restarts_used, j.restarts_used);
  EXPECT_EQ(back->published, j.published);
  ASSERT_EQ(back->tasks.size(), j.tasks.size());
  for (size_t i = 0; i < j.tasks.size(); ++i) ExpectSameTask(back->tasks[i], j.tasks[i]);
}

TEST(AmJournalFileTest, WhatIsNotAJournalOfThisVersionIsRefusedNamingTheFile) {
  auto empty = ParseAmJournal("", "/staging/am/journal.pb");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("/staging/am/journal.pb: AM journal version 0"),
            std::string::npos)
      << empty.status().ToString();
  EXPECT_FALSE(ParseAmJournal("\xff\xff\xff", "journal.pb").ok());
  journal::AmJournal f;
  f.set_version(kAmJournalVersion);
  journal::Task& t = *f.add_tasks();
  t.set_role("worker");
  t.set_state("DREAMING");
  auto unknown = ParseAmJournal(f.SerializeAsString(), "journal.pb");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "journal.pb: task worker:0: unknown task state \"DREAMING\"");
  EXPECT_EQ(AmJournalPath("/s"), "/s/am/journal.pb");
  EXPECT_EQ(AmJournalTmpPath("/s"), "/s/am/journal.pb.tmp");
}

}  // namespace
}  // namespace tony::core
