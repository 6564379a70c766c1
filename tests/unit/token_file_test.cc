// A submitter that already holds delegation tokens (engine/yarn/client/token_file.h, issue 9):
// reading $HADOOP_TOKEN_FILE_LOCATION, picking the RM and HDFS tokens, what goes on to the job,
// expired tokens, and which login LoginForCluster picks (engine/yarn/client/yarn_security.h). A
// real submission with only a token file runs on the Kerberized minicluster
// (tests/secure/test_secure_submit.py).
#include "engine/yarn/client/token_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/yarn/client/yarn_security.h"
#include "hadoop/yarn/cluster_conf.h"
#include "yarn_security_token.pb.h"

namespace tony::client {
namespace {

namespace security = hadoop::security;
using ::testing::HasSubstr;

constexpr int64_t kNowMs = 1'800'000'000'000;
constexpr char kRmService[] = "127.0.0.1:8032";
constexpr char kNnService[] = "127.0.0.1:9000";

security::Token RmToken(const std::string& service, int64_t max_date_ms = kNowMs + 3'600'000,
                        const std::string& owner = "alice@EXAMPLE.COM") {
  ::hadoop::yarn::YARNDelegationTokenIdentifierProto id;
  id.set_owner(owner);
  id.set_renewer("rm");
  id.set_realuser("");
  id.set_issuedate(kNowMs - 1000);
  id.set_maxdate(max_date_ms);
  id.set_sequencenumber(7);
  id.set_masterkeyid(3);
  return {id.SerializeAsString(), "rm-password", std::string(security::kRmDelegationTokenKind),
          service};
}

// The Writable identifier of an HDFS delegation token (docs/hadoop-ipc.md §3.1).
security::Token HdfsDelegationToken(const std::string& service,
                                    int64_t max_date_ms = kNowMs + 3'600'000) {
  std::string id(1, '\0');
  for (const char* text : {"alice@EXAMPLE.COM", "rm", "oozie"}) {
    security::AppendWritableVLong(static_cast<int64_t>(std::strlen(text)), &id);
    id += text;
  }
  security::AppendWritableVLong(kNowMs - 1000, &id);
  security::AppendWritableVLong(max_date_ms, &id);
  security::AppendWritableVLong(12, &id);
  security::AppendWritableVLong(4, &id);
  return {id, "nn-password", std::string(security::kHdfsDelegationTokenKind), service};
}

TokenFile FileWith(std::vector<security::Token> tokens) {
  TokenFile file;
  file.path = "/tmp/tokens";
  for (auto& t : tokens) file.credentials.AddToken(t.service, t);
  return file;
}

TEST(DelegationTokenIdentifierTest, DecodesRmAndHdfsIdentifiers) {
  auto rm = security::DecodeDelegationTokenIdentifier(RmToken(kRmService));
  ASSERT_TRUE(rm.ok()) << rm.status().message();
  EXPECT_EQ(rm->owner, "alice@EXAMPLE.COM");
  EXPECT_EQ(rm->renewer, "rm");
  EXPECT_EQ(rm->max_date_ms, kNowMs + 3'600'000);
  EXPECT_EQ(rm->sequence_number, 7);
  auto hdfs = security::DecodeDelegationTokenIdentifier(HdfsDelegationToken(kNnService));
  ASSERT_TRUE(hdfs.ok()) << hdfs.status().message();
  EXPECT_EQ(hdfs->owner, "alice@EXAMPLE.COM");
  EXPECT_EQ(hdfs->real_user, "oozie");
  EXPECT_EQ(hdfs->issue_date_ms, kNowMs - 1000);
  EXPECT_EQ(hdfs->max_date_ms, kNowMs + 3'600'000);
  EXPECT_EQ(hdfs->sequence_number, 12);
  EXPECT_EQ(hdfs->master_key_id, 4);
}

TEST(DelegationTokenIdentifierTest, RefusesOtherKindsAndBrokenBytes) {
  security::Token am{"x", "y", std::string(security::kAmRmTokenKind), ""};
  EXPECT_FALSE(security::DecodeDelegationTokenIdentifier(am).ok());
  security::Token hdfs = HdfsDelegationToken(kNnService);
  hdfs.identifier.resize(hdfs.identifier.size() - 2);
  EXPECT_FALSE(security::DecodeDelegationTokenIdentifier(hdfs).ok());
  hdfs = HdfsDelegationToken(kNnService);
  hdfs.identifier[0] = 1;  // an unknown version
  EXPECT_FALSE(security::DecodeDelegationTokenIdentifier(hdfs).ok());
  security::Token rm = RmToken(kRmService);
  rm.identifier = "\xff\xff";
  EXPECT_FALSE(security::DecodeDelegationTokenIdentifier(rm).ok());
}

// A file Hadoop 3.5's own client code wrote on the Kerberized minicluster (FetchTokens.java):
// alice's RM delegation token for 127.0.0.1:41301 and HDFS delegation token for
// 127.0.0.1:35491, renewer the RM's principal (hadoop/localhost), Writable format.
constexpr char kHadoopWrittenFile[] =
    "\x48\x44\x54\x53\x00\x02\x0f\x31\x32\x37\x2e\x30\x2e\x30\x2e\x31\x3a\x34\x31\x33\x30\x31"
    "\x2b\x0a\x0f\x61\x6c\x69\x63\x65\x40\x54\x4f\x4e\x59\x2e\x54\x45\x53\x54\x12\x06\x68\x61"
    "\x64\x6f\x6f\x70\x20\xe4\xcb\xf7\xc8\xa4\x34\x28\xe4\xd3\xa9\xe9\xa6\x34\x30\x01\x38\x02"
    "\x14\x60\x99\xc3\x13\xbe\x87\xca\xd4\x34\x48\x4b\xa2\x98\x68\xa9\xfc\xa6\x27\xf3\xa5\x13"
    "\x52\x4d\x5f\x44\x45\x4c\x45\x47\x41\x54\x49\x4f\x4e\x5f\x54\x4f\x4b\x45\x4e\x0f\x31\x32"
    "\x37\x2e\x30\x2e\x30\x2e\x31\x3a\x34\x31\x33\x30\x31\x0f\x31\x32\x37\x2e\x30\x2e\x30\x2e"
    "\x31\x3a\x33\x35\x34\x39\x31\x29\x00\x0f\x61\x6c\x69\x63\x65\x40\x54\x4f\x4e\x59\x2e\x54"
    "\x45\x53\x54\x06\x68\x61\x64\x6f\x6f\x70\x00\x8a\x01\xa2\x49\x1d\xe7\x50\x8a\x01\xa2\x6d"
    "\x2a\x6b\x50\x01\x02\x14\xf6\x03\x0d\x98\xb1\x1a\x22\x53\xc2\x90\x46\x9f\x52\x31\x4a\xbe"
    "\xbd\x4a\xd3\x33\x15\x48\x44\x46\x53\x5f\x44\x45\x4c\x45\x47\x41\x54\x49\x4f\x4e\x5f\x54"
    "\x4f\x4b\x45\x4e\x0f\x31\x32\x37\x2e\x30\x2e\x30\x2e\x31\x3a\x33\x35\x34\x39\x31\x00";

TEST(DelegationTokenIdentifierTest, ReadsAFileHadoopWrote) {
  auto creds = security::Credentials::Parse(
      std::string_view(kHadoopWrittenFile, sizeof(kHadoopWrittenFile) - 1));
  ASSERT_TRUE(creds.ok()) << creds.status().message();
  TokenFile file{"/tmp/tokens", *creds};
  auto login = SelectTokenLogin(file, {"127.0.0.1:41301"}, "127.0.0.1:35491", 0);
  ASSERT_TRUE(login.ok()) << login.status().message();
  EXPECT_EQ(login->owner, "alice@TONY.TEST");
  for (const security::Token* t : {&login->rm, &login->hdfs}) {
    auto id = security::DecodeDelegationTokenIdentifier(*t);
    ASSERT_TRUE(id.ok()) << t->kind << ": " << id.status().message();
    EXPECT_EQ(id->owner, "alice@TONY.TEST") << t->kind;
    EXPECT_EQ(id->renewer, "hadoop") << t->kind;
    EXPECT_EQ(id->real_user, "") << t->kind;
    EXPECT_GT(id->max_date_ms, id->issue_date_ms) << t->kind;
    EXPECT_GT(id->issue_date_ms, int64_t{1'700'000'000'000}) << t->kind;
  }
}

TEST(SelectTokenLoginTest, PicksTheRmTokenOfThisClusterAndTheDefaultFsToken) {
  TokenFile file = FileWith({HdfsDelegationToken("127.0.0.1:9999"), RmToken("10.0.0.1:8032"),
                             RmToken(kRmService), HdfsDelegationToken(kNnService)});
  auto login = SelectTokenLogin(file, {kRmService}, kNnService, kNowMs);
  ASSERT_TRUE(login.ok()) << login.status().message();
  EXPECT_EQ(login->rm.service, kRmService);
  EXPECT_EQ(login->hdfs.service, kNnService);
  EXPECT_EQ(login->owner, "alice@EXAMPLE.COM");
}

TEST(SelectTokenLoginTest, AnHaTokenNamesEveryResourceManager) {
  TokenFile file =
      FileWith({RmToken("127.0.0.1:8032,127.0.0.1:8042"), HdfsDelegationToken(kNnService)});
  EXPECT_TRUE(SelectTokenLogin(file, {"127.0.0.1:8042"}, kNnService, kNowMs).ok());
}

TEST(SelectTokenLoginTest, AMissingTokenIsNamedByKindAndService) {
  auto no_rm =
      SelectTokenLogin(FileWith({HdfsDelegationToken(kNnService), RmToken("10.0.0.1:8032")}),
                       {kRmService}, kNnService, kNowMs);
  ASSERT_FALSE(no_rm.ok());
  EXPECT_EQ(no_rm.status().code(), StatusCode::kUnauthenticated);
  EXPECT_THAT(no_rm.status().message(),
              HasSubstr("$HADOOP_TOKEN_FILE_LOCATION (/tmp/tokens) holds no RM_DELEGATION_TOKEN "
                        "for service 127.0.0.1:8032 (this cluster's ResourceManager; the file "
                        "has HDFS_DELEGATION_TOKEN for 127.0.0.1:9000, RM_DELEGATION_TOKEN for "
                        "10.0.0.1:8032)"));
  auto no_hdfs =
      SelectTokenLogin(FileWith({RmToken(kRmService)}), {kRmService}, kNnService, kNowMs);
  ASSERT_FALSE(no_hdfs.ok());
  EXPECT_THAT(no_hdfs.status().message(),
              HasSubstr("holds no HDFS_DELEGATION_TOKEN for service 127.0.0.1:9000 (the default "
                        "file system, where tony stages the job"));
}

TEST(SelectTokenLoginTest, ATokenPastItsMaximumLifetimeIsNamed) {
  TokenFile file = FileWith({RmToken(kRmService, kNowMs - 1), HdfsDelegationToken(kNnService)});
  auto r = SelectTokenLogin(file, {kRmService}, kNnService, kNowMs);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnauthenticated);
  EXPECT_THAT(r.status().message(),
              HasSubstr("the RM_DELEGATION_TOKEN for 127.0.0.1:8032 (owner alice@EXAMPLE.COM) "
                        "passed its maximum lifetime at 2027-01-15 07:59:59 UTC"));
  file = FileWith({RmToken(kRmService), HdfsDelegationToken(kNnService, kNowMs - 1)});
  r = SelectTokenLogin(file, {kRmService}, kNnService, kNowMs);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("the HDFS_DELEGATION_TOKEN for 127.0.0.1:9000"));
}

TEST(ForwardedTokensTest, KeepsDelegationTokensAndDropsYarnsPerApplicationOnes) {
  TokenFile file = FileWith({RmToken(kRmService), HdfsDelegationToken(kNnService)});
  file.credentials.AddToken("", {"id", "pw", std::string(security::kAmRmTokenKind), ""});
  file.credentials.AddToken("nm", {"id", "pw", std::string(security::kNmTokenKind), "nm:1"});
  file.credentials.AddToken("hive", {"id", "pw", "HIVE_DELEGATION_TOKEN", "hive"});
  file.credentials.AddSecret("tony.job.secret", "s");
  security::Credentials out = ForwardedTokens(file);
  std::vector<std::string> kinds;
  for (const auto& [alias, t] : out.tokens()) kinds.push_back(t.kind);
  EXPECT_THAT(kinds, ::testing::ElementsAre("RM_DELEGATION_TOKEN", "HDFS_DELEGATION_TOKEN",
                                            "HIVE_DELEGATION_TOKEN"));
  EXPECT_TRUE(out.secrets().empty());
  EXPECT_TRUE(CheckNotExpired(out, "the file", kNowMs).ok());
  out.AddToken("old", HdfsDelegationToken("127.0.0.1:9999", kNowMs - 5));
  Status s = CheckNotExpired(out, "the file", kNowMs);
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_THAT(s.message(), HasSubstr("the file: the HDFS_DELEGATION_TOKEN for 127.0.0.1:9999"));
}

// LoginForCluster with $HADOOP_TOKEN_FILE_LOCATION and no usable ticket cache.
class TokenFileLoginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tony-token-file-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    ::setenv("KRB5CCNAME", ("FILE:" + (dir_ / "no-such-cache").string()).c_str(), 1);
    Configuration raw;
    raw.Set("hadoop.security.authentication", "kerberos", "test");
    raw.Set("yarn.resourcemanager.address", kRmService, "test");
    raw.Set("yarn.resourcemanager.principal", "rm/_HOST@EXAMPLE.COM", "test");
    raw.Set("fs.defaultFS", std::string("hdfs://") + kNnService, "test");
    auto cluster = hadoop::ParseClusterConf(raw, dir_.string());
    ASSERT_TRUE(cluster.ok()) << cluster.status().message();
    cluster_ = *cluster;
  }
  void TearDown() override {
    ::unsetenv(kTokenFileEnv);
    ::unsetenv("KRB5CCNAME");
    std::filesystem::remove_all(dir_);
  }
  std::string WriteTokens(std::vector<security::Token> tokens) {
    std::string path = (dir_ / "tokens").string();
    Status s = FileWith(std::move(tokens))
                   .credentials.WriteFile(path, security::Credentials::Format::kWritable);
    EXPECT_TRUE(s.ok()) << s.message();
    ::setenv(kTokenFileEnv, path.c_str(), 1);
    return path;
  }

  std::filesystem::path dir_;
  hadoop::ClusterConf cluster_;
};

TEST_F(TokenFileLoginTest, TheFilesTokensServeWithNoTicket) {
  WriteTokens({RmToken(kRmService, INT64_MAX), HdfsDelegationToken(kNnService, INT64_MAX),
               HdfsDelegationToken("127.0.0.1:9999", INT64_MAX)});
  auto login = LoginForCluster(cluster_, Configuration(), "root");
  ASSERT_TRUE(login.ok()) << login.status().message();
  ASSERT_TRUE(login->tokens.has_value());
  EXPECT_EQ(login->kerberos, nullptr);
  EXPECT_TRUE(login->secure());
  EXPECT_EQ(login->user, "alice");
  EXPECT_EQ(login->tokens->rm.service, kRmService);
  EXPECT_EQ(login->file_tokens.tokens().size(), 3u);
}

TEST_F(TokenFileLoginTest, NoRmTokenAndNoTicketNamesTheTokenAndKinit) {
  WriteTokens({HdfsDelegationToken(kNnService, INT64_MAX)});
  auto login = LoginForCluster(cluster_, Configuration(), "root");
  ASSERT_FALSE(login.ok());
  EXPECT_EQ(login.status().code(), StatusCode::kUnauthenticated);
  EXPECT_THAT(login.status().message(),
              HasSubstr("holds no RM_DELEGATION_TOKEN for service 127.0.0.1:8032"));
  EXPECT_THAT(login.status().message(), HasSubstr("run kinit"));
  EXPECT_THAT(login.status().message(),
              HasSubstr("or submit with a token file that holds RM_DELEGATION_TOKEN for service "
                        "127.0.0.1:8032 and HDFS_DELEGATION_TOKEN for service 127.0.0.1:9000"));
}

TEST_F(TokenFileLoginTest, AMissingOrCorruptFileNamesTheVariableAndPath) {
  std::string missing = (dir_ / "gone").string();
  ::setenv(kTokenFileEnv, missing.c_str(), 1);
  auto login = LoginForCluster(cluster_, Configuration(), "root");
  ASSERT_FALSE(login.ok());
  EXPECT_EQ(login.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(login.status().message(),
              HasSubstr("$HADOOP_TOKEN_FILE_LOCATION (" + missing +
                        "), the delegation tokens to submit with: No such file or directory"));
  std::string corrupt = (dir_ / "corrupt").string();
  std::ofstream(corrupt) << "not tokens";
  ::setenv(kTokenFileEnv, corrupt.c_str(), 1);
  login = LoginForCluster(cluster_, Configuration(), "root");
  ASSERT_FALSE(login.ok());
  EXPECT_THAT(login.status().message(),
              HasSubstr("$HADOOP_TOKEN_FILE_LOCATION (" + corrupt +
                        "), the delegation tokens to submit with: not a Hadoop credentials file"));
  ::setenv(kTokenFileEnv, dir_.c_str(), 1);
  login = LoginForCluster(cluster_, Configuration(), "root");
  ASSERT_FALSE(login.ok());
  EXPECT_THAT(login.status().message(), HasSubstr("not a regular file"));
}

TEST_F(TokenFileLoginTest, AKeytabOrAProxyUserGoesBeforeTheTokenFile) {
  WriteTokens({RmToken(kRmService, INT64_MAX), HdfsDelegationToken(kNnService, INT64_MAX)});
  Configuration keytab;
  keytab.Set("tony.kerberos.principal", "alice@EXAMPLE.COM", "--principal");
  keytab.Set("tony.kerberos.keytab", (dir_ / "no.keytab").string(), "--keytab");
  auto login = LoginForCluster(cluster_, keytab, "root");
  ASSERT_FALSE(login.ok());  // the keytab is used, and it is not there
  EXPECT_THAT(login.status().message(), HasSubstr("tony.kerberos.keytab = "));
  Configuration proxy;
  proxy.Set("tony.kerberos.proxy-user", "bob", "--proxy_user");
  login = LoginForCluster(cluster_, proxy, "root");
  ASSERT_FALSE(login.ok());  // a proxy user needs a Kerberos login, and there is no ticket
  EXPECT_THAT(login.status().message(), HasSubstr("run kinit"));
}

TEST_F(TokenFileLoginTest, AnOpenClusterIgnoresTheFile) {
  ::setenv(kTokenFileEnv, (dir_ / "gone").c_str(), 1);
  cluster_.kerberos = false;
  auto login = LoginForCluster(cluster_, Configuration(), "root");
  ASSERT_TRUE(login.ok()) << login.status().message();
  EXPECT_FALSE(login->secure());
  EXPECT_EQ(login->user, "root");
}

}  // namespace
}  // namespace tony::client

namespace tony::client {
namespace {

TEST(ExplainTokenRefusalTest, NamesTheFileAndTokenOnlyForATokenLogin) {
  const Status refused = Unauthenticated(
      "IPC handshake with localhost:8032: org.apache.hadoop.security.token.SecretManager"
      "$InvalidToken: Token for real user: , can't be found in cache [FATAL_UNAUTHORIZED]");
  ClientSecurity kerberos;
  EXPECT_FALSE(ExplainTokenRefusal(kerberos, refused).has_value());
  ClientSecurity tokens;
  tokens.tokens =
      TokenLogin{RmToken(kRmService), HdfsDelegationToken(kNnService), "alice@EXAMPLE.COM"};
  tokens.token_file = "$HADOOP_TOKEN_FILE_LOCATION (/tmp/tokens)";
  EXPECT_FALSE(ExplainTokenRefusal(tokens, Unavailable("connection refused")).has_value());
  auto told = ExplainTokenRefusal(tokens, refused);
  ASSERT_TRUE(told.has_value());
  EXPECT_EQ(told->code(), StatusCode::kUnauthenticated);
  EXPECT_THAT(told->message(),
              HasSubstr("$HADOOP_TOKEN_FILE_LOCATION (/tmp/tokens): the ResourceManager refused "
                        "its RM_DELEGATION_TOKEN for 127.0.0.1:8032 (IPC handshake"));
  EXPECT_THAT(told->message(),
              HasSubstr("run kinit and submit without HADOOP_TOKEN_FILE_LOCATION"));
}

}  // namespace
}  // namespace tony::client
