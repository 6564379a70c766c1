// executor/stall_watch.h on simulated time: what counts as progress (output growing, the progress
// file touched), when a task is stalled, and that progress ends the stall. The process groups are
// empty here, so no stacks are asked for (tests/local/test_stalls.py has real Python processes).
#include "executor/stall_watch.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/files.h"

namespace tony {
namespace {

using ::testing::StartsWith;

class StallWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::string> dir = MakeTempDir(::testing::TempDir(), "stall_watch_test.");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_ = *dir;
    ASSERT_TRUE(WriteFileAtomic(Path("stdout"), "").ok());
    ASSERT_TRUE(WriteFileAtomic(Path("progress"), "").ok());
    auto loop = EventLoop::Create([](int) {});
    ASSERT_TRUE(loop.ok()) << loop.status().ToString();
    loop_ = std::move(*loop);
    watch_ = std::make_unique<StallWatch>(
        *loop_,
        [this](bool stalled, const std::string& note) {
          changes_.push_back({stalled, note});
        },
        clock_);
    StallWatchOptions o;
    o.timeout_ms = 2000;
    o.key = "tony.worker.stall-timeout-ms";
    o.files = {Path("stdout"), Path("progress")};
    o.log_dir = dir_;
    watch_->Start(std::move(o), [] { return std::vector<pid_t>{}; });
    watch_->Check();  // the first look sees the files as they are: that is no stall
  }
  void TearDown() override {
    watch_.reset();
    (void)RemoveAll(dir_);
  }

  std::string Path(const std::string& name) const { return JoinPath(dir_, name); }
  void Print(const std::string& text) {
    int fd = ::open(Path("stdout").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ::close(fd);
  }
  // os.utime(progress file): a new mtime, the size unchanged.
  void Touch(int64_t seconds) {
    struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, Path("progress").c_str(), times, 0), 0);
  }
  void Wait(int64_t ms) {
    clock_.Advance(ms);
    watch_->Check();
  }

  std::string dir_;
  SimClock clock_{5000};
  std::unique_ptr<EventLoop> loop_;
  std::unique_ptr<StallWatch> watch_;
  std::vector<std::pair<bool, std::string>> changes_;
};

TEST_F(StallWatchTest, SilenceForTheTimeoutIsAStallAndOutputEndsIt) {
  Wait(1999);
  EXPECT_TRUE(changes_.empty());
  Wait(1);
  ASSERT_EQ(changes_.size(), 1u);
  EXPECT_TRUE(changes_[0].first);
  EXPECT_THAT(changes_[0].second,
              StartsWith("no output or progress for 2 s (tony.worker.stall-timeout-ms = 2000); no "
                         "Python stacks: no process of the task catches signal"));
  Wait(5000);
  EXPECT_EQ(changes_.size(), 1u);  // said once

  Print("step 1\n");
  Wait(100);
  ASSERT_EQ(changes_.size(), 2u);
  EXPECT_FALSE(changes_[1].first);
  EXPECT_EQ(changes_[1].second, "");
}

TEST_F(StallWatchTest, OutputOrATouchOfTheProgressFileMoreOftenThanTheTimeoutIsNoStall) {
  for (int i = 0; i < 10; ++i) {
    Wait(1500);
    if (i % 2 == 0) {
      Print("step\n");
    } else {
      Touch(1'000'000 + i);
    }
  }
  Wait(1500);
  EXPECT_TRUE(changes_.empty());
}

TEST_F(StallWatchTest, ALaterSilenceIsAStallAgain) {
  Wait(2000);
  Print("step\n");
  Wait(100);
  Wait(1999);
  ASSERT_EQ(changes_.size(), 2u);
  Wait(1);
  ASSERT_EQ(changes_.size(), 3u);
  EXPECT_TRUE(changes_[2].first);
}

}  // namespace
}  // namespace tony
