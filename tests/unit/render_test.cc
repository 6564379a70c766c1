// Unit tests of client/render: the task table `tony status` and `tony submit` print.
#include "client/render.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace tony::client {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

rpc::TaskStatus* AddTask(rpc::JobStatus* status, const std::string& role, int index,
                         const std::string& state) {
  rpc::TaskStatus* t = status->add_tasks();
  t->set_role(role);
  t->set_index(index);
  t->set_state(state);
  return t;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The words of a line (cells hold no spaces in these tests).
std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

TEST(RenderTaskTableTest, AStalledTaskShowsItsStallsSummaryNotItsStacks) {
  rpc::JobStatus status;
  rpc::TaskStatus* w0 = AddTask(&status, "worker", 0, "STALLED");
  w0->set_stall(
      "no output or progress for 2 s (tony.worker.stall-timeout-ms = 2000)\n--- pid 41: python3\n"
      "  File \"t.py\", line 5 in hang\n");
  const std::string table = RenderTaskTable(status);
  EXPECT_THAT(table, HasSubstr("STALLED"));
  EXPECT_THAT(table, HasSubstr("stalled: no output or progress for 2 s "
                               "(tony.worker.stall-timeout-ms = 2000)"));
  EXPECT_THAT(table, Not(HasSubstr("in hang")));
}

TEST(RenderTaskTableTest, TheTensorBoardUrlFollowsTheTableOnceKnown) {
  rpc::JobStatus status;
  AddTask(&status, "tensorboard", 0, "RUNNING");
  EXPECT_THAT(RenderTaskTable(status), Not(HasSubstr("TensorBoard")));
  status.set_tensorboard_url("http://node1:4242");
  auto lines = Lines(RenderTaskTable(status));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2], "TensorBoard: http://node1:4242");
}

TEST(RenderSummaryTest, AFailedSidecarOfASucceededJobSaysWhy) {
  rpc::JobStatus status;
  status.set_job_id("j");
  status.set_final_status(rpc::SUCCEEDED);
  rpc::TaskStatus* tb = AddTask(&status, "tensorboard", 0, "FAILED");
  tb->set_diagnostics("exit 127\ntony: the sidecar TensorBoard cannot start: ...\n");
  AddTask(&status, "worker", 0, "SUCCEEDED")->set_tracked(true);
  EXPECT_EQ(RenderSummary(status),
            "job j SUCCEEDED\n"
            "  tensorboard:0 failed (the job does not wait for it): tony: the sidecar TensorBoard "
            "cannot start: ...\n");
}

TEST(RenderTaskTableTest, LocalEngineShowsTheLogDirAndNoClusterColumns) {
  rpc::JobStatus status;
  rpc::TaskStatus* w1 = AddTask(&status, "worker", 1, "RUNNING");
  w1->set_host("127.0.0.1");
  w1->set_port(4001);
  w1->set_log_dir("/jobs/j/tasks/worker-1/attempt-0");
  rpc::TaskStatus* w0 = AddTask(&status, "worker", 0, "SUCCEEDED");
  w0->set_host("127.0.0.1");
  w0->set_port(4000);
  w0->set_exit_code(0);
  w0->set_log_dir("/jobs/j/tasks/worker-0/attempt-0");

  auto lines = Lines(RenderTaskTable(status));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(Words(lines[0]), ElementsAre("ROLE", "INDEX", "STATE", "HOST:PORT", "EXIT", "LOG"));
  EXPECT_THAT(Words(lines[1]), ElementsAre("worker", "0", "SUCCEEDED", "127.0.0.1:4000", "exit",
                                           "0", "/jobs/j/tasks/worker-0/attempt-0"));
  EXPECT_THAT(Words(lines[2]), ElementsAre("worker", "1", "RUNNING", "127.0.0.1:4001", "-",
                                           "/jobs/j/tasks/worker-1/attempt-0"));
}

TEST(RenderTaskTableTest, YarnShowsNodeAndLogUrlInsteadOfTheAmSideLogDir) {
  rpc::JobStatus status;
  for (int i = 0; i < 2; ++i) {
    rpc::TaskStatus* t = AddTask(&status, "worker", i, "RUNNING");
    t->set_host("nm-host");
    t->set_port(5000 + i);
    t->set_node("nm-host:4545" + std::to_string(i));
    t->set_log_url("http://nm-host:8042/ws/v1/node/containerlogs/container_1_0001_01_00000" +
                   std::to_string(i + 2));
    t->set_log_dir("./tasks/worker-" + std::to_string(i) + "/attempt-0");
  }
  auto lines = Lines(RenderTaskTable(status));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(Words(lines[0]),
              ElementsAre("ROLE", "INDEX", "STATE", "NODE", "HOST:PORT", "EXIT", "LOG", "URL"));
  EXPECT_THAT(
      Words(lines[1]),
      ElementsAre("worker", "0", "RUNNING", "nm-host:45450", "nm-host:5000", "-",
                  "http://nm-host:8042/ws/v1/node/containerlogs/container_1_0001_01_000002"));
  EXPECT_THAT(RenderTaskTable(status), Not(HasSubstr("./tasks/")));
}

TEST(RenderTaskTableTest, ColumnsLineUp) {
  rpc::JobStatus status;
  AddTask(&status, "ps", 0, "RUNNING")->set_node("a:1");
  AddTask(&status, "worker", 12, "NEW");
  auto lines = Lines(RenderTaskTable(status));
  ASSERT_EQ(lines.size(), 3u);
  size_t state = lines[0].find("STATE");
  size_t node = lines[0].find("NODE");
  EXPECT_EQ(lines[1].find("RUNNING"), state);
  EXPECT_EQ(lines[2].find("NEW"), state);
  EXPECT_EQ(lines[1].find("a:1"), node);
  EXPECT_EQ(lines[2].find('-', node), node);  // the task without a node yet
}

TEST(RenderTaskTableTest, NoTasksIsTheHeaderAlone) {
  rpc::JobStatus status;
  EXPECT_THAT(Lines(RenderTaskTable(status)), ElementsAre("ROLE  INDEX  STATE  HOST:PORT  EXIT"));
}

TEST(RenderTaskTableTest, ExitAndReasonAreWordsNeverSentinelNumbers) {
  rpc::JobStatus status;
  rpc::TaskStatus* w0 = AddTask(&status, "worker", 0, "FAILED");
  w0->set_signal(9);
  w0->set_end_reason("SIGKILL not sent by tony");
  AddTask(&status, "worker", 1, "LOST")->set_end_reason("no heartbeat for 1000 ms");
  AddTask(&status, "worker", 2, "FAILED")->set_exit_code(3);
  std::string table = RenderTaskTable(status);
  auto lines = Lines(table);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_THAT(lines[0], HasSubstr("REASON"));
  EXPECT_THAT(lines[1], HasSubstr("signal 9 (SIGKILL)"));
  EXPECT_THAT(lines[1], HasSubstr("SIGKILL not sent by tony"));
  EXPECT_THAT(lines[2], HasSubstr("no heartbeat for 1000 ms"));
  EXPECT_THAT(lines[3], HasSubstr("exit 3"));
  EXPECT_THAT(table, Not(HasSubstr("-1000")));
}

TEST(RenderTaskTableTest, AWidthLimitCutsTheLogColumnFirstKeepingItsEnd) {
  rpc::JobStatus status;
  for (int i = 0; i < 2; ++i) {
    rpc::TaskStatus* t = AddTask(&status, "worker", i, "RUNNING");
    t->set_host("127.0.0.1");
    t->set_port(40000 + i);
    t->set_log_dir("/home/someone/.tony/jobs/20260101-120000-abcdef/tasks/worker-" +
                   std::to_string(i) + "/attempt-0");
  }
  std::string wide = RenderTaskTable(status);
  ASSERT_GT(Lines(wide)[1].size(), 79u);
  auto lines = Lines(RenderTaskTable(status, 79));
  for (const auto& line : lines) EXPECT_LE(line.size(), 79u) << line;
  EXPECT_THAT(lines[1], HasSubstr("127.0.0.1:40000"));
  EXPECT_THAT(lines[1], HasSubstr("...")) << lines[1];
  EXPECT_THAT(lines[1], HasSubstr("worker-0/attempt-0"));
  // A terminal too narrow for the fixed columns still gets lines that do not wrap.
  for (const auto& line : Lines(RenderTaskTable(status, 30))) EXPECT_LE(line.size(), 30u);
}

TEST(Printable, TerminalControlSequencesFromATaskAreShownNotObeyed) {
  // OSC 0 retitles a terminal; CSI 2J clears it; C1 CSI (U+009B) does the same on some.
  EXPECT_EQ(Printable("\x1b]0;pwned\x07 \x1b[2J done\r"), "^[]0;pwned^G ^[[2J done^M");
  EXPECT_EQ(Printable("a\x7f \xc2\x9b"
                      "31m"),
            "a^? <U+009B>31m");
  EXPECT_EQ(Printable("line 1\n\tcaf\xc3\xa9"), "line 1\n\tcaf\xc3\xa9");
}

TEST(Printable, TheSummaryAndTheTableRenderTaskTextHarmlessly) {
  rpc::JobStatus status;
  status.set_job_id("j");
  status.set_final_status(rpc::FAILED);
  status.set_message("task worker:0 failed:\n\x1b]0;pwned\x07");
  auto* t = status.add_tasks();
  t->set_role("wor\x1bker");
  t->set_state("FAILED");
  EXPECT_THAT(RenderSummary(status), HasSubstr("^[]0;pwned^G"));
  EXPECT_EQ(RenderSummary(status).find('\x1b'), std::string::npos);
  EXPECT_THAT(RenderTaskTable(status), HasSubstr("wor^[ker"));
  EXPECT_EQ(RenderTaskTable(status).find('\x1b'), std::string::npos);
}

TEST(ReasonWordsTest, ATaskHeldForAPublishingTaskSaysWhichOne) {
  rpc::JobStatus status;
  rpc::TaskStatus* w = AddTask(&status, "worker", 0, "REGISTERED");
  w->set_awaits("driver:0");
  EXPECT_EQ(ReasonWords(*w, status), "waits for driver:0 to serve");
  w->set_awaits("");
  EXPECT_EQ(ReasonWords(*w, status), "");
}

TEST(ReasonWordsTest, ANewTaskSaysWhatContainerItWaitsFor) {
  rpc::JobStatus status;
  rpc::TaskStatus* w = AddTask(&status, "worker", 1, "NEW");
  w->set_waits_for("a container of 4096 MB, 1 vcores");
  EXPECT_EQ(ReasonWords(*w, status), "waits for a container of 4096 MB, 1 vcores");
}

TEST(ReasonWordsTest, AnEndedTaskAwaitingItsRestartSaysSoWhileTheJobRuns) {
  rpc::JobStatus status;
  status.set_phase(rpc::RUNNING);
  rpc::TaskStatus* w = AddTask(&status, "worker", 1, "FAILED");
  w->set_exit_code(3);
  w->set_restart(
      "restart 1 of 3 (tony.worker.max-restarts) in 1000 ms, gang scope: task "
      "worker:1 failed: exit 3");
  EXPECT_EQ(ReasonWords(*w, status),
            "restarting: restart 1 of 3 (tony.worker.max-restarts) in 1000 ms, gang scope: task "
            "worker:1 failed: exit 3");
  status.set_phase(rpc::STOPPING);  // the job ended first: no restart comes
  EXPECT_EQ(ReasonWords(*w, status), "");
}

TEST(RenderTaskTableTest, TheAttemptColumnShowsOnceATaskRestarted) {
  rpc::JobStatus status;
  AddTask(&status, "worker", 0, "RUNNING");
  rpc::TaskStatus* w1 = AddTask(&status, "worker", 1, "RUNNING");
  EXPECT_THAT(Lines(RenderTaskTable(status))[0], Not(HasSubstr("ATTEMPT")));
  w1->set_attempt(2);
  auto lines = Lines(RenderTaskTable(status));
  EXPECT_THAT(Words(lines[0]),
              ElementsAre("ROLE", "INDEX", "ATTEMPT", "STATE", "HOST:PORT", "EXIT"));
  EXPECT_THAT(Words(lines[1]), ElementsAre("worker", "0", "0", "RUNNING", "-", "-"));
  EXPECT_THAT(Words(lines[2]), ElementsAre("worker", "1", "2", "RUNNING", "-", "-"));
}

}  // namespace
}  // namespace tony::client
