// Unit tests of history/tony_history.h: TonY's history layout and names, the keys that place it,
// the finished directory's date in a time zone, and errors that name the path and the reason.
// (That TonY's own classes read the events back: tests/local/test_tony_history.py.)
#include "history/tony_history.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/files.h"
#include "config/job_spec.h"

namespace tony::history {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

// 2024-03-01 02:30:00 UTC: still 29 February in Los Angeles, already the 1st in Tokyo.
constexpr int64_t kLeapDayEveningInLosAngeles = 1709260200000;

TEST(TonyHistoryTest, AppIdHasNoDashForTonysFileNameParsers) {
  EXPECT_EQ(HistoryAppId("tony-20260101-120000-a1b2c3"), "tony_20260101_120000_a1b2c3");
  EXPECT_EQ(HistoryAppId("application_1700000000000_0001"), "application_1700000000000_0001");
}

// The keys reach the coordinator in the job's spec (config/job_spec.h, rpc/spec_file.h).
JobSpec SpecOf(const std::map<std::string, std::string>& keys) {
  Configuration conf = Configuration::WithDefaults();
  conf.Set("tony.worker.instances", "1", "--conf");
  conf.Set("tony.containers.command", "python train.py", "--executes");
  for (const auto& [key, value] : keys) conf.Set(key, value, "--conf");
  auto spec = BuildJobSpec(conf);
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  return spec.ok() ? *spec : JobSpec{};
}

TEST(TonyHistoryTest, OptionsFromTheKeys) {
  EXPECT_FALSE(TonyHistoryOptionsFrom(SpecOf({})).has_value());  // TonY's placeholder default
  EXPECT_FALSE(TonyHistoryOptionsFrom(SpecOf({{"tony.history.location", " "}})).has_value());

  auto o = TonyHistoryOptionsFrom(SpecOf({{"tony.history.location", "/h/"}}));
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->intermediate, "/h/intermediate");
  EXPECT_EQ(o->finished, "/h/finished");
  EXPECT_EQ(o->timezone, "UTC");

  o = TonyHistoryOptionsFrom(SpecOf({{"tony.history.location", "/h"},
                                     {"tony.history.intermediate", "/running"},
                                     {"tony.history.finished", "/done"},
                                     {"tony.history.finished-dir-timezone", "Asia/Tokyo"}}));
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->intermediate, "/running");
  EXPECT_EQ(o->finished, "/done");
  EXPECT_EQ(o->timezone, "Asia/Tokyo");
}

TEST(TonyHistoryTest, FinishedDateIsTheEndsDateInTheZone) {
  const char* tz = std::getenv("TZ");
  const std::string tz_before = tz ? tz : "(unset)";
  EXPECT_EQ(FinishedDatePath(kLeapDayEveningInLosAngeles, "UTC").value(), "2024/03/01");
  EXPECT_EQ(FinishedDatePath(kLeapDayEveningInLosAngeles, "America/Los_Angeles").value(),
            "2024/02/29");
  EXPECT_EQ(FinishedDatePath(kLeapDayEveningInLosAngeles, "Asia/Tokyo").value(), "2024/03/01");
  // The process's own zone is left as it was.
  tz = std::getenv("TZ");
  EXPECT_EQ(tz ? tz : "(unset)", tz_before);
  auto bad = FinishedDatePath(kLeapDayEveningInLosAngeles, "Mars/Olympus_Mons");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("tony.history.finished-dir-timezone=Mars/Olympus_Mons"));
  EXPECT_FALSE(FinishedDatePath(0, "../etc/passwd").ok());
}

class TonyHistoryWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = MakeTempDir(::testing::TempDir(), "tony-history-test-");
    ASSERT_TRUE(dir.ok()) << dir.status().message();
    root_ = *dir;
  }
  void TearDown() override { ASSERT_TRUE(RemoveAll(root_).ok()); }

  TonyHistoryOptions Options(const std::string& location) const {
    TonyHistoryOptions o;
    o.intermediate = location + "/intermediate";
    o.finished = location + "/finished";
    o.app_id = "application_1_0001";
    o.user = "alice";
    o.host = "am-host";
    return o;
  }

  std::string root_;
};

TEST_F(TonyHistoryWriterTest, WritesIntermediateThenMovesToFinished) {
  std::string conf = root_ + "/tony-final.xml";
  ASSERT_TRUE(WriteFileAtomic(conf, "<configuration/>\n").ok());
  TonyHistoryOptions o = Options("file://" + root_ + "/hist");
  o.final_conf = conf;
  auto w = TonyHistoryWriter::Start(o, 1709251200000);
  ASSERT_TRUE(w.ok()) << w.status().message();
  std::string job = root_ + "/hist/intermediate/application_1_0001";
  EXPECT_EQ((*w)->events_path(), job + "/application_1_0001-1709251200000-alice.jhist.inprogress");
  EXPECT_TRUE(PathExists(job + "/tony-final.xml"));
  struct stat st {};
  ASSERT_EQ(::stat(job.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0770);
  // An Avro object container file: its magic, and TonY's schema in its header.
  auto header = ReadFile((*w)->events_path());
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header->substr(0, 4), std::string("Obj\x01", 4));
  EXPECT_THAT(*header, HasSubstr("com.linkedin.tony.events"));

  ASSERT_TRUE((*w)->ApplicationInited(2, 1709251200000).ok());
  ASSERT_TRUE((*w)->TaskStarted("worker", 0, "h", "container_1", 1709251200001).ok());
  ASSERT_TRUE((*w)->TaskFinished("worker", 0, "FAILED", {{"MAX_MEMORY_BYTES", 1e6}},
                                 std::string("exit 3\n\xff bytes"), 1709251200002)
                  .ok());
  ASSERT_TRUE((*w)->ApplicationFinished(1, 1, {}, kLeapDayEveningInLosAngeles).ok());
  auto done = (*w)->Finish(kLeapDayEveningInLosAngeles, "FAILED");
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_EQ(*done, root_ +
                       "/hist/finished/2024/03/01/application_1_0001/"
                       "application_1_0001-1709251200000-1709260200000-alice-FAILED.jhist");
  EXPECT_TRUE(PathExists(root_ + "/hist/finished/2024/03/01/application_1_0001/tony-final.xml"));
  EXPECT_FALSE(PathExists(job));
  EXPECT_FALSE((*w)->TaskStarted("worker", 1, "h", "", 1).ok());  // closed
}

TEST_F(TonyHistoryWriterTest, ALocationThatCannotBeWrittenNamesThePathAndWhy) {
  auto missing = TonyHistoryWriter::Start(Options(root_ + "/no-parent/hist"), 1);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("cannot create the directory " + root_ +
                                                    "/no-parent/hist: No such file or directory"));
  ASSERT_TRUE(WriteFileAtomic(root_ + "/file", "x").ok());
  auto blocked = TonyHistoryWriter::Start(Options(root_ + "/file"), 1);
  ASSERT_FALSE(blocked.ok());
  EXPECT_THAT(blocked.status().message(), HasSubstr(root_ + "/file"));
  auto hdfs = TonyHistoryWriter::Start(Options("hdfs://nn:8020/h"), 1);
  ASSERT_FALSE(hdfs.ok());
  EXPECT_THAT(hdfs.status().message(),
              MatchesRegex(
                  "tony.history.intermediate=hdfs://nn:8020/h/intermediate: .*local path.*YARN.*"));
}

// A HistoryFs over a local directory (paths under `root`), recording its calls; `fail_append`
// makes every append fail, as a NameNode out of quota would.
class DirFs final : public HistoryFs {
 public:
  DirFs(std::string root, bool fail_append) : root_(std::move(root)), fail_append_(fail_append) {}
  std::string Describe() const override { return "dirfs://test"; }
  Status MakeDirs(const std::string& path) override {
    Note("mkdirs " + path);
    std::error_code ec;
    std::filesystem::create_directories(root_ + path, ec);
    return ec ? Internal(ec.message()) : Status::Ok();
  }
  Status Create(const std::string& path, const std::string& data) override {
    Note("create " + path);
    return WriteFileAtomic(root_ + path, data);
  }
  Status Append(const std::string& path, const std::string& data) override {
    Note("append " + path);
    if (fail_append_) return ResourceExhausted("the quota of /h is exceeded");
    auto old = ReadFile(root_ + path);
    if (!old.ok()) return old.status();
    return WriteFileAtomic(root_ + path, *old + data);
  }
  Status Rename(const std::string& from, const std::string& to) override {
    Note("rename " + from);
    std::error_code ec;
    std::filesystem::rename(root_ + from, root_ + to, ec);
    return ec ? Internal(ec.message()) : Status::Ok();
  }
  std::vector<std::string> calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }

 private:
  void Note(std::string call) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back(std::move(call));
  }
  std::string root_;
  bool fail_append_;
  mutable std::mutex mu_;
  std::vector<std::string> calls_;  // guarded by mu_
};

TEST_F(TonyHistoryWriterTest, OnAFileSystemTheSameLayoutIsMirroredAndMovedToFinished) {
  std::string conf = root_ + "/tony-final.xml";
  ASSERT_TRUE(WriteFileAtomic(conf, "<configuration/>\n").ok());
  ASSERT_TRUE(MakeDirs(root_ + "/remote").ok());
  auto fs = std::make_shared<DirFs>(root_ + "/remote", false);
  TonyHistoryOptions o = Options("/h");
  o.final_conf = conf;
  o.fs = fs;
  o.scratch = root_ + "/scratch";
  auto w = TonyHistoryWriter::Start(o, 1709251200000);
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ((*w)->events_path(),
            "dirfs://test/h/intermediate/application_1_0001/"
            "application_1_0001-1709251200000-alice.jhist.inprogress");
  ASSERT_TRUE((*w)->ApplicationInited(2, 1709251200000).ok());
  ASSERT_TRUE((*w)->TaskStarted("worker", 0, "h", "container_1", 1709251200001).ok());
  ASSERT_TRUE((*w)->ApplicationFinished(1, 0, {}, kLeapDayEveningInLosAngeles).ok());
  auto done = (*w)->Finish(kLeapDayEveningInLosAngeles, "SUCCEEDED");
  ASSERT_TRUE(done.ok()) << done.status().message();
  const std::string finished = "/h/finished/2024/03/01/application_1_0001/";
  const std::string name = "application_1_0001-1709251200000-1709260200000-alice-SUCCEEDED.jhist";
  EXPECT_EQ(*done, "dirfs://test" + finished + name);
  // Byte for byte the file written locally, and the configuration beside it.
  auto mirrored = ReadFile(root_ + "/remote" + finished + name);
  auto local = ReadFile(root_ +
                        "/scratch/application_1_0001/"
                        "application_1_0001-1709251200000-alice.jhist.inprogress");
  ASSERT_TRUE(mirrored.ok() && local.ok());
  EXPECT_EQ(*mirrored, *local);
  EXPECT_THAT(*mirrored, HasSubstr("container_1"));
  EXPECT_TRUE(PathExists(root_ + "/remote" + finished + "tony-final.xml"));
  EXPECT_FALSE(PathExists(root_ + "/remote/h/intermediate/application_1_0001"));
  // The events file was created once and then appended to, one append per event.
  std::vector<std::string> calls = fs->calls();
  EXPECT_EQ(std::count_if(calls.begin(), calls.end(),
                          [](const std::string& c) { return c.rfind("append ", 0) == 0; }),
            3);
}

TEST_F(TonyHistoryWriterTest, AFileSystemThatRefusesAnAppendIsReportedAndNothingAfterIsWritten) {
  auto fs = std::make_shared<DirFs>(root_ + "/remote", true);
  ASSERT_TRUE(MakeDirs(root_ + "/remote").ok());
  TonyHistoryOptions o = Options("/h");
  o.fs = fs;
  o.scratch = root_ + "/scratch";
  auto w = TonyHistoryWriter::Start(o, 1);
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_TRUE((*w)->ApplicationInited(1, 1).ok());  // the append fails on the mirror's thread
  auto done = (*w)->Finish(2, "SUCCEEDED");
  ASSERT_FALSE(done.ok());
  EXPECT_THAT(done.status().message(),
              HasSubstr("cannot append to /h/intermediate/application_1_0001/"
                        "application_1_0001-1-alice.jhist.inprogress on dirfs://test"));
  EXPECT_THAT(done.status().message(), HasSubstr("the quota of /h is exceeded"));
  // Nothing after the hole: no rename into finished/.
  for (const std::string& call : fs->calls())
    EXPECT_EQ(call.rfind("rename ", 0), std::string::npos);
}

TEST_F(TonyHistoryWriterTest, AnEnginesRefusalOfTheLocationIsStartsError) {
  TonyHistoryOptions o = Options("/h");
  o.error = "tony.history.intermediate=hdfs://elsewhere/h: not the default file system";
  auto w = TonyHistoryWriter::Start(o, 1);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(), o.error);
}

}  // namespace
}  // namespace tony::history
