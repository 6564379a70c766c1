// A job's record that cannot be written is said, never dropped (client/job_record.h,
// client/warnings.h): the warning names the file and the reason, once per reason.
#include "client/job_record.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "client/warnings.h"
#include "common/files.h"
#include "engine/yarn/client/yarn_cluster.h"

namespace tony::client {
namespace {

namespace fs = std::filesystem;

class JobRecordTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = MakeTempDir(fs::temp_directory_path().string(), "tony-job-record-");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    root_ = *dir;
  }
  void TearDown() override { fs::remove_all(root_); }

  // A job of two unended tasks.
  static rpc::JobStatus Running() {
    rpc::JobStatus status;
    status.set_job_id("job-1");
    for (int i = 0; i < 2; ++i) {
      auto* t = status.add_tasks();
      t->set_role("worker");
      t->set_index(i);
      t->set_state("RUNNING");
    }
    return status;
  }

  std::string root_;
};

TEST_F(JobRecordTest, AnEventsFileThatCannotBeWrittenIsSaidOnceNamingIt) {
  history::JobPaths paths(root_);
  // A directory where events.jsonl belongs: root may write anywhere, not into a directory.
  fs::create_directory(paths.Events());
  ::testing::internal::CaptureStderr();
  rpc::JobStatus ended =
      RecordJobEnd(paths, Running(), rpc::KILLED, "killed", UnendedTasks::kLost, "lost: test");
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(ended.phase(), rpc::FINISHED);
  EXPECT_NE(err.find("tony: warning: the end of job " + BaseName(root_) +
                     " is not fully recorded: cannot open " + paths.Events()),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("Is a directory"), std::string::npos) << err;
  // Three lines failed (two tasks, the job) for one reason: one warning.
  EXPECT_EQ(err.find("tony: warning:"), err.rfind("tony: warning:")) << err;
  // status.json was written all the same.
  auto written = history::ReadJobStatus(paths);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->final_status(), rpc::KILLED);
}

TEST_F(JobRecordTest, AStatusFileThatCannotBeWrittenIsNamedNotItsTemporary) {
  history::JobPaths paths(root_);
  fs::create_directory(paths.Status());
  ::testing::internal::CaptureStderr();
  (void)RecordJobEnd(paths, Running(), rpc::FAILED, "died", UnendedTasks::kLost, "lost: test");
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("cannot write " + paths.Status() + ": "), std::string::npos) << err;
  EXPECT_EQ(err.find(".tmp."), std::string::npos) << err;
  // The events were appended.
  auto events = ReadFile(paths.Events());
  ASSERT_TRUE(events.ok());
  EXPECT_NE(events->find("\"job\":\"FAILED\""), std::string::npos) << *events;
}

TEST_F(JobRecordTest, TheClusterConfRecordThatCannotBeWrittenIsAnErrorNamingIt) {
  // A job dir that is a regular file: nothing can be created under it, not even by root.
  const std::string job_dir = JoinPath(root_, "application_1_0001");
  ASSERT_TRUE(WriteFileAtomic(job_dir, "").ok());
  Cluster cluster;
  cluster.conf.conf_dir = "/etc/hadoop";
  Status s = RecordClusterConf(cluster, job_dir);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot write " + JoinPath(job_dir, kConfDirRecord) + ": "),
            std::string::npos)
      << s.message();
  EXPECT_TRUE(RecordClusterConf(cluster, root_).ok());
  EXPECT_EQ(*ReadFile(JoinPath(root_, kConfDirRecord)), "/etc/hadoop\n");
}

TEST(WarnerTest, ARepeatedWarningIsPrintedOnce) {
  Warner warner;
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(warner.WarnIfFailed(Internal("cannot write /x/status.json: No space left"),
                                    "the local record was not updated"));
  }
  EXPECT_TRUE(warner.WarnIfFailed(Internal("cannot write /x/status.json: Read-only"), "again"));
  EXPECT_FALSE(warner.WarnIfFailed(Status::Ok(), "fine"));
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err,
            "tony: warning: the local record was not updated: cannot write /x/status.json: No "
            "space left\n"
            "tony: warning: again: cannot write /x/status.json: Read-only\n");
}

}  // namespace
}  // namespace tony::client
