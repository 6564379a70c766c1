// status.json of older versions stays readable with today's meaning (history/job_dir.h).
#include <gtest/gtest.h>

#include "history/job_dir.h"

namespace tony::history {
namespace {

TEST(JobStatusFileTest, AnOlderFilesNoExitCodeStaysNoExitCode) {
  // Before the task state model, "has_exit_code": false with "exit_code": 0 meant "no code".
  const char* text = R"({"job_id": "j", "phase": "FINISHED", "tasks": [
      {"role": "worker", "index": 0, "state": "FINISHED", "has_exit_code": false, "exit_code": 0},
      {"role": "worker", "index": 1, "state": "SUCCEEDED", "has_exit_code": true, "exit_code": 0},
      {"role": "worker", "index": 2, "state": "FAILED", "exit_code": 3}]})";
  auto status = ParseJobStatus(text, "status.json");
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  ASSERT_EQ(status->tasks_size(), 3);
  EXPECT_FALSE(status->tasks(0).has_exit_code());
  EXPECT_EQ(status->tasks(0).state(), "FINISHED");
  EXPECT_TRUE(status->tasks(1).has_exit_code());
  EXPECT_EQ(status->tasks(2).exit_code(), 3);
}

TEST(JobStatusFileTest, TodaysFileWritesNoExitCodeWhenThereIsNone) {
  auto status = ParseJobStatus(R"({"tasks": [{"role": "w", "state": "LOST", "signal": 0,
      "end_reason": "no heartbeat for 1000 ms"}]})",
                               "status.json");
  ASSERT_TRUE(status.ok());
  EXPECT_FALSE(status->tasks(0).has_exit_code());
  EXPECT_EQ(status->tasks(0).end_reason(), "no heartbeat for 1000 ms");
}

}  // namespace
}  // namespace tony::history
