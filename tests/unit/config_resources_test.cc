// Unit tests of resource strings (config/resources.h) and of the resources keys and TonY's
// Hadoop framework keys as JobSpec takes them (config/job_spec.cc).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "config/resources.h"
#include "tests/unit/config_test_util.h"

namespace tony {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// ---- Resource strings (config/resources.h) ----

TEST(ResourceRefTest, TonysGrammarAndHadoopsAlias) {
  auto plain = ParseResourceRef("/data/vocab.txt");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->source, "/data/vocab.txt");
  EXPECT_EQ(plain->name, "vocab.txt");
  EXPECT_FALSE(plain->archive || plain->remote);
  auto dir = ParseResourceRef("file:///etc/conf/");
  ASSERT_TRUE(dir.ok());
  EXPECT_EQ(dir->source, "/etc/conf/");
  EXPECT_EQ(dir->name, "conf");
  auto renamed = ParseResourceRef("/tmp/env.zip::env#ARCHIVE");
  ASSERT_TRUE(renamed.ok());
  EXPECT_EQ(renamed->name, "env");
  EXPECT_TRUE(renamed->archive);
  auto alias = ParseResourceRef("/tmp/a.txt#b.txt");
  ASSERT_TRUE(alias.ok());
  EXPECT_EQ(alias->name, "b.txt");
  EXPECT_FALSE(alias->archive);
  auto hdfs = ParseResourceRef("hdfs:///user/tony/env/my-venv.zip#archive");
  ASSERT_TRUE(hdfs.ok());
  EXPECT_TRUE(hdfs->remote && hdfs->archive);
  EXPECT_EQ(hdfs->scheme, "hdfs");
  EXPECT_EQ(hdfs->host, "");
  EXPECT_EQ(hdfs->port, -1);
  EXPECT_EQ(hdfs->path, "/user/tony/env/my-venv.zip");
  EXPECT_EQ(hdfs->name, "my-venv.zip");
  auto nn = ParseResourceRef("hdfs://nn:8020/libs");
  ASSERT_TRUE(nn.ok());
  EXPECT_EQ(nn->host, "nn");
  EXPECT_EQ(nn->port, 8020);
  EXPECT_EQ(nn->name, "libs");
}

TEST(ResourceRefTest, RefusesWhatCannotNameAFile) {
  for (const char* bad : {"", "#archive", "/tmp/a::b/c", "/tmp/a.txt::x#y", "hdfs://nn:99999/p",
                          "/", "/tmp/x::..", "/tmp/venv.zip", "/a/b::tony-final.xml"}) {
    EXPECT_FALSE(ParseResourceRef(bad).ok()) << bad;
  }
}

TEST_F(JobSpecTest, BadResourceEntriesNameTheKeyAndTheEntry) {
  Configuration conf = Runnable();
  ASSERT_TRUE(conf.AddOverride("tony.worker.resources=/tmp/x::..").ok());
  std::string err = BuildError(conf);
  EXPECT_THAT(err, HasSubstr("tony.worker.resources = \"/tmp/x::..\" (from --conf): entry "
                             "\"/tmp/x::..\""));
  EXPECT_THAT(err, HasSubstr("expected SOURCE[::NAME][#archive] or SOURCE#NAME"));
}

TEST_F(JobSpecTest, TheHadoopLocationIsAnArchiveOfEveryTaskAndTheClasspathTheTasks) {
  Configuration conf = Runnable();
  ASSERT_TRUE(conf.AddOverride("tony.ps.instances=1").ok());
  ASSERT_TRUE(conf.AddOverride("tony.application.hadoop.location=hdfs:///apps/hadoop-3.3.6.tar.gz"
                               "#hadoop")
                  .ok());
  ASSERT_TRUE(conf.AddOverride("tony.application.hadoop.classpath=$PWD/hadoop/etc/hadoop,"
                               "{{HADOOP_HOME}}/share/hadoop/common/*")
                  .ok());
  Result<JobSpec> spec = BuildJobSpec(conf);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->hadoop_archive, "hadoop");
  EXPECT_THAT(spec->hadoop_classpath,
              ElementsAre("$PWD/hadoop/etc/hadoop", "{{HADOOP_HOME}}/share/hadoop/common/*"));
  ASSERT_EQ(spec->roles.size(), 2u);
  for (const RoleSpec& r : spec->roles) {
    EXPECT_THAT(r.resources, Contains("hdfs:///apps/hadoop-3.3.6.tar.gz::hadoop#archive"))
        << r.name;
  }
  // The coordinator runs no JVM: it localizes nothing of it.
  EXPECT_THAT(spec->am_resources, IsEmpty());
  // With no alias the archive's directory is named as YARN names it: the file's name.
  auto unnamed = HadoopLocationResource("/opt/dist/hadoop.tgz");
  ASSERT_TRUE(unnamed.ok());
  EXPECT_EQ(unnamed->text, "/opt/dist/hadoop.tgz::hadoop.tgz#archive");
}

TEST_F(JobSpecTest, AHadoopLocationThatNamesNoFileIsRefusedNamingTheKey) {
  Configuration conf = Runnable();
  ASSERT_TRUE(conf.AddOverride("tony.application.hadoop.location=hdfs:///apps/h.tgz#a/b").ok());
  std::string err = BuildError(conf);
  EXPECT_THAT(err, HasSubstr("tony.application.hadoop.location = \"hdfs:///apps/h.tgz#a/b\""));
  EXPECT_THAT(err, HasSubstr("cannot name a file in the working directory"));
  EXPECT_THAT(err, HasSubstr("with #ALIAS for its directory's name"));
}

}  // namespace
}  // namespace tony
