// Unit tests of executor/python_stacks.h's parsing: /proc's signal masks and faulthandler dumps.
#include "executor/python_stacks.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <vector>

namespace tony {
namespace {

TEST(PythonStacksTest, MaskHasSignalReadsSigCgtBitsFromTheRight) {
  EXPECT_TRUE(MaskHasSignal("0000000000000001", 1));  // SIGHUP
  EXPECT_FALSE(MaskHasSignal("0000000000000001", 2));
  EXPECT_TRUE(MaskHasSignal("\t0000000000004002\n", 15));  // SIGTERM, with /proc's whitespace
  EXPECT_TRUE(MaskHasSignal("1000000000000000", 61));
  EXPECT_FALSE(MaskHasSignal("0000000000000000", 61));
  EXPECT_FALSE(MaskHasSignal("ff", 9));  // past the mask
  EXPECT_FALSE(MaskHasSignal("ff", 0));
}

TEST(PythonStacksTest, TheInnermostFrameOfTheMainThreadIsTheLastThreadsFirst) {
  const char* dump =
      "Thread 0x00007f0000000002 (most recent call first):\n"
      "  File \"/usr/lib/python3.11/threading.py\", line 320 in wait\n"
      "  File \"/usr/lib/python3.11/threading.py\", line 1002 in _bootstrap\n"
      "\n"
      "Current thread 0x00007f0000000001 (most recent call first):\n"
      "  File \"/job/src/train.py\", line 12 in wait_for_peers\n"
      "  File \"/job/src/train.py\", line 30 in <module>\n";
  EXPECT_EQ(InnermostMainFrame(dump), "wait_for_peers at train.py:12");
  EXPECT_EQ(InnermostMainFrame("Thread 0x1 (most recent call first):\n  <no Python frame>\n"), "");
  EXPECT_EQ(InnermostMainFrame(""), "");
}

TEST(PythonStacksTest, ThisProcessIsSeenInItsOwnGroupWithItsCommandLine) {
  std::vector<pid_t> found = ProcessesInGroups({::getpgrp()});
  EXPECT_NE(std::find(found.begin(), found.end(), ::getpid()), found.end());
  EXPECT_FALSE(CommandLine(::getpid()).empty());
  EXPECT_FALSE(IsStopped(::getpid()));
  EXPECT_FALSE(CatchesSignal(::getpid(), StacksSignal()));  // nothing registered it here
  EXPECT_GT(StacksSignal(), SIGRTMIN);
}

}  // namespace
}  // namespace tony
