// AddHdfsAccess (executor/hadoop_env.h): the tokens of a real credentials file in the variables
// WebHDFS clients take, and TonY's Hadoop CLASSPATH from a real (stand-in) `hadoop` executable.
#include "executor/hadoop_env.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "common/files.h"
#include "hadoop/hdfs/tls.h"
#include "hadoop/security/credentials.h"

namespace tony {
namespace {

namespace fs = std::filesystem;
namespace security = hadoop::security;

security::Token HdfsToken(const std::string& id, const std::string& service) {
  return {id, "pw-" + id, std::string(security::kHdfsDelegationTokenKind), service};
}

class HadoopEnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = MakeTempDir(fs::temp_directory_path().string(), "tony-hadoop-env-");
    ASSERT_TRUE(dir.ok());
    dir_ = *dir;
    env_["TMPDIR"] = dir_;
    env_["PATH"] = "/usr/bin:/bin";
  }
  void TearDown() override { fs::remove_all(dir_); }

  void WriteTokens(const security::Credentials& creds) {
    std::string path = dir_ + "/container_tokens";
    ASSERT_TRUE(creds.WriteFile(path, security::Credentials::Format::kWritable).ok());
    env_["HADOOP_TOKEN_FILE_LOCATION"] = path;
  }

  // <dir>/<where>/bin/hadoop printing `output` for `classpath --glob` and failing otherwise.
  std::string StandInHadoop(const std::string& output, const std::string& where = "hadoop") {
    std::string home = dir_ + "/" + where;
    fs::create_directories(home + "/bin");
    fs::create_directories(home + "/lib/native");
    std::string script = home + "/bin/hadoop";
    EXPECT_TRUE(WriteFileAtomic(script,
                                "#!/bin/sh\n[ \"$1 $2\" = \"classpath --glob\" ] || exit 3\n"
                                "echo '" +
                                    output + "'\n",
                                0755)
                    .ok());
    return home;
  }

  std::string dir_;
  EnvMap env_;
};

TEST_F(HadoopEnvTest, TheDefaultFsTokenIsTheOneOfItsServiceInWebHdfsForm) {
  security::Credentials creds;
  creds.AddToken("other", HdfsToken("other", "10.0.0.2:8020"));
  creds.AddToken("default", HdfsToken("default", "127.0.0.1:9000"));
  creds.AddToken("rm", {"rmid", "rmpw", std::string(security::kRmDelegationTokenKind), "rm:1"});
  WriteTokens(creds);
  env_["TONY_HDFS_TOKEN_SERVICE"] = "127.0.0.1:9000";
  AddHdfsAccess(env_);
  auto token = security::DecodeTokenUrlString(env_["TONY_HDFS_DELEGATION_TOKEN"]);
  ASSERT_TRUE(token.ok()) << token.status().message();
  EXPECT_EQ(*token, HdfsToken("default", "127.0.0.1:9000"));
  EXPECT_EQ(env_["TONY_HDFS_DELEGATION_TOKENS"],
            "10.0.0.2:8020=" + security::EncodeTokenUrlString(HdfsToken("other", "10.0.0.2:8020")) +
                ",127.0.0.1:9000=" +
                security::EncodeTokenUrlString(HdfsToken("default", "127.0.0.1:9000")));
}

TEST_F(HadoopEnvTest, WithoutTheServiceTheDefaultIsTheOnlyHdfsToken) {
  security::Credentials one;
  one.AddToken("a", HdfsToken("a", "10.0.0.2:8020"));
  WriteTokens(one);
  AddHdfsAccess(env_);
  EXPECT_EQ(env_["TONY_HDFS_DELEGATION_TOKEN"],
            security::EncodeTokenUrlString(HdfsToken("a", "10.0.0.2:8020")));

  security::Credentials two = one;
  two.AddToken("b", HdfsToken("b", "10.0.0.3:8020"));
  WriteTokens(two);
  env_.erase("TONY_HDFS_DELEGATION_TOKEN");
  AddHdfsAccess(env_);
  EXPECT_EQ(env_.count("TONY_HDFS_DELEGATION_TOKEN"), 0u);  // which one would be a guess
  EXPECT_NE(env_["TONY_HDFS_DELEGATION_TOKENS"].find("10.0.0.3:8020="), std::string::npos);
}

TEST_F(HadoopEnvTest, TheClustersCasBecomeAFileTheTaskIsToldOf) {
  security::Credentials creds;
  creds.AddToken("a", HdfsToken("a", "10.0.0.2:8020"));
  creds.AddSecret(hadoop::hdfs::kTrustAlias, "-----BEGIN CERTIFICATE-----\nMIIB\n");
  WriteTokens(creds);
  env_["TONY_JOB_DIR"] = dir_;
  AddHdfsAccess(env_);
  EXPECT_EQ(env_["TONY_WEBHDFS_CA_FILE"], dir_ + "/tony-webhdfs-ca.pem");
  auto pem = ReadFile(env_["TONY_WEBHDFS_CA_FILE"]);
  ASSERT_TRUE(pem.ok()) << pem.status().message();
  EXPECT_EQ(*pem, "-----BEGIN CERTIFICATE-----\nMIIB\n");
}

TEST_F(HadoopEnvTest, NoTokenFileNoTokenVariables) {
  AddHdfsAccess(env_);
  EXPECT_EQ(env_.count("TONY_HDFS_DELEGATION_TOKEN"), 0u);
  EXPECT_EQ(env_.count("TONY_HDFS_DELEGATION_TOKENS"), 0u);
  EXPECT_EQ(env_.count("TONY_WEBHDFS_CA_FILE"), 0u);
}

// One test for the classpath: the executor runs `hadoop classpath` once and keeps its answer.
TEST_F(HadoopEnvTest, HadoopHomeGivesTheTaskHadoopsClasspathAndLibraryDirs) {
  std::string home = StandInHadoop("/etc/hadoop:/opt/hadoop/share/hadoop/common/a.jar");
  EnvMap skipped = env_;
  skipped["HADOOP_HOME"] = home;
  skipped["SKIP_HADOOP_PATH"] = "1";
  AddHdfsAccess(skipped);
  EXPECT_EQ(skipped.count("CLASSPATH"), 0u);

  env_["HADOOP_HOME"] = home;
  env_["CLASSPATH"] = "mine.jar";
  env_["LD_LIBRARY_PATH"] = "/usr/local/lib";
  AddHdfsAccess(env_);
  EXPECT_EQ(env_["CLASSPATH"], "/etc/hadoop:/opt/hadoop/share/hadoop/common/a.jar");
  EXPECT_EQ(env_["HADOOP_HDFS_HOME"], home);
  EXPECT_EQ(env_["LD_LIBRARY_PATH"], "/usr/local/lib:" + home + "/lib/native");
}

TEST_F(HadoopEnvTest, HadoopOnPathThroughASymlinkNamesItsInstallation) {
  std::string home = StandInHadoop("/conf:/jars/b.jar");
  fs::create_directories(dir_ + "/path-bin");
  fs::create_symlink(home + "/bin/hadoop", dir_ + "/path-bin/hadoop");
  env_["PATH"] = dir_ + "/path-bin:/usr/bin:/bin";
  AddHdfsAccess(env_);
  EXPECT_EQ(env_["CLASSPATH"], "/conf:/jars/b.jar");
  EXPECT_EQ(env_["HADOOP_HDFS_HOME"], fs::canonical(home).string());
}

TEST_F(HadoopEnvTest, TheJobsOwnHadoopArchiveComesBeforeTheNodes) {
  std::string node = StandInHadoop("/node/conf:/node/a.jar", "node-hadoop");
  // A tarball's one top-level directory, as hadoop-3.x.y.tar.gz unpacks.
  std::string own = StandInHadoop("/own/conf:/own/b.jar", "archive/hadoop-3.3.6");
  env_["HADOOP_HDFS_HOME"] = node;
  JobHadoop job;
  job.archive_dir = dir_ + "/archive";
  AddHdfsAccess(env_, job);
  EXPECT_EQ(env_["CLASSPATH"], "/own/conf:/own/b.jar");
  // Named in the working directory, where the archive is (the local engine links it there).
  EXPECT_EQ(env_["HADOOP_HDFS_HOME"], own);
  EXPECT_EQ(env_["LD_LIBRARY_PATH"], own + "/lib/native");
}

TEST_F(HadoopEnvTest, AnArchiveWithoutHadoopFallsBackToTheNodes) {
  std::string node = StandInHadoop("/node/conf:/node/a.jar", "node-hadoop");
  fs::create_directories(dir_ + "/archive/not-hadoop/bin");
  env_["HADOOP_HOME"] = node;
  JobHadoop job;
  job.archive_dir = dir_ + "/archive";
  AddHdfsAccess(env_, job);
  EXPECT_EQ(env_["CLASSPATH"], "/node/conf:/node/a.jar");
  EXPECT_EQ(env_["HADOOP_HDFS_HOME"], node);
}

TEST_F(HadoopEnvTest, TheJobsClasspathIsExpandedGlobbedAndRunsNoHadoop) {
  // A `hadoop` that would fail the test if it ran: the job's classpath replaces its output.
  std::string home = StandInHadoop("/must/not/appear.jar", "node-hadoop");
  fs::create_directories(dir_ + "/jars");
  for (const char* jar : {"b.jar", "a.jar", "notes.txt"}) {
    ASSERT_TRUE(WriteFileAtomic(dir_ + "/jars/" + jar, "x").ok());
  }
  env_["HADOOP_HOME"] = home;
  env_["JARS"] = dir_ + "/jars";
  JobHadoop job;
  job.classpath = {"{{HADOOP_HOME}}/etc/hadoop", "$JARS/*.jar", "${JARS}/none-*.jar",
                   "$UNSET_VAR/x"};
  AddHdfsAccess(env_, job);
  EXPECT_EQ(env_["CLASSPATH"],
            home + "/etc/hadoop:" + dir_ + "/jars/a.jar:" + dir_ + "/jars/b.jar:/x");
  EXPECT_EQ(env_["HADOOP_HDFS_HOME"], home);

  // $PWD is the working directory, whatever the environment says.
  EnvMap env;
  env["PWD"] = "/somewhere/else";
  EXPECT_EQ(ExpandClasspath({"$PWD/hadoop/etc", "/plain"}, env),
            fs::current_path().string() + "/hadoop/etc:/plain");

  EnvMap skipped = env_;
  skipped.erase("CLASSPATH");
  skipped["SKIP_HADOOP_PATH"] = "1";
  AddHdfsAccess(skipped, job);
  EXPECT_EQ(skipped.count("CLASSPATH"), 0u);
}

// The AM's renewed token (a heartbeat reply's credentials) replaces the task's token of the same
// alias in the executor's own environment's token file; the others stay as they were.
TEST_F(HadoopEnvTest, ARenewedTokenReplacesTheOneOfItsAliasInTheTokenFile) {
  security::Credentials start;
  start.AddToken("default", HdfsToken("old", "127.0.0.1:9000"));
  start.AddToken("other", HdfsToken("other", "10.0.0.2:8020"));
  start.AddSecret(hadoop::hdfs::kTrustAlias, "pem");
  WriteTokens(start);
  ASSERT_EQ(::setenv("HADOOP_TOKEN_FILE_LOCATION", env_["HADOOP_TOKEN_FILE_LOCATION"].c_str(), 1),
            0);
  security::Credentials renewed;
  renewed.AddToken("default", HdfsToken("new", "127.0.0.1:9000"));
  Status s = RenewTokenFile(renewed.Serialize(security::Credentials::Format::kWritable));
  ::unsetenv("HADOOP_TOKEN_FILE_LOCATION");
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto file = security::Credentials::ReadFile(env_["HADOOP_TOKEN_FILE_LOCATION"]);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_EQ(file->tokens().size(), 2u);
  EXPECT_EQ(*file->FindToken(security::kHdfsDelegationTokenKind, "127.0.0.1:9000"),
            HdfsToken("new", "127.0.0.1:9000"));
  EXPECT_EQ(*file->FindToken(security::kHdfsDelegationTokenKind, "10.0.0.2:8020"),
            HdfsToken("other", "10.0.0.2:8020"));
  ASSERT_NE(file->FindSecret(hadoop::hdfs::kTrustAlias), nullptr);
}

TEST_F(HadoopEnvTest, RenewingWithoutATokenFileIsAnError) {
  ::unsetenv("HADOOP_TOKEN_FILE_LOCATION");
  Status s =
      RenewTokenFile(security::Credentials().Serialize(security::Credentials::Format::kWritable));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("HADOOP_TOKEN_FILE_LOCATION"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace tony
