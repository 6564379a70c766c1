// events.jsonl's lines (history/job_dir.h TaskEventLine, JobEndLine): the one builder the
// coordinator and the client write them with, and what each kind of change carries.
#include <gtest/gtest.h>

#include "history/job_dir.h"

namespace tony::history {
namespace {

using core::TaskState;

TEST(EventsLineTest, ALiveStateCarriesOnlyWhatItsChangeKnows) {
  EXPECT_EQ(TaskEventLine(5, TaskEvent("worker:1", 0, TaskState::kAllocated)),
            R"({"attempt":0,"state":"ALLOCATED","task":"worker:1","time_ms":5})");
  TaskEvent registered{"worker:1", 0, TaskState::kRegistered};
  registered.address = "h1:4000";
  EXPECT_EQ(TaskEventLine(6, registered),
            R"({"address":"h1:4000","attempt":0,"state":"REGISTERED","task":"worker:1",)"
            R"("time_ms":6})");
  TaskEvent stalled{"chief:0", 1, TaskState::kStalled};
  stalled.reason = "no output for 60 s";
  EXPECT_EQ(TaskEventLine(7, stalled),
            R"({"attempt":1,"reason":"no output for 60 s","state":"STALLED","task":"chief:0",)"
            R"("time_ms":7})");
}

TEST(EventsLineTest, AnEndCarriesItsExitReasonAndTonysHistoryStatus) {
  TaskEvent failed{"worker:0", 2, TaskState::kFailed};
  failed.exit_code = 3;
  failed.reason = "its own exit";
  EXPECT_EQ(TaskEventLine(8, failed),
            R"({"attempt":2,"exit":"exit 3","exit_code":3,"history_status":"FAILED",)"
            R"("reason":"its own exit","state":"FAILED","task":"worker:0","time_ms":8})");
  TaskEvent killed{"worker:0", 0, TaskState::kFailed};
  killed.signal = 9;
  EXPECT_EQ(TaskEventLine(9, killed),
            R"j({"attempt":0,"exit":"signal 9 (SIGKILL)","history_status":"FAILED","signal":9,)j"
            R"("state":"FAILED","task":"worker:0","time_ms":9})");
  // An end with nothing known of the process (the client's record of a lost task).
  TaskEvent lost{"ps:0", 0, TaskState::kLost};
  lost.reason = "lost: test";
  EXPECT_EQ(TaskEventLine(10, lost),
            R"({"attempt":0,"history_status":"FAILED","reason":"lost: test","state":"LOST",)"
            R"("task":"ps:0","time_ms":10})");
}

TEST(EventsLineTest, TheJobsLastLine) {
  EXPECT_EQ(JobEndLine(11, rpc::KILLED, "killed by user"),
            R"({"job":"KILLED","message":"killed by user","time_ms":11})");
}

}  // namespace
}  // namespace tony::history
