// ReadJobCredentials (rpc/job_secret.h) from both places a tony process can get them, and what
// it leaves behind there: nothing a process started later could read.
#include "rpc/job_secret.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "common/files.h"
#include "common/process.h"
#include "hadoop/security/credentials.h"
#include "rpc/client.h"

namespace tony {
namespace {

using hadoop::security::Credentials;

TEST(ReadJobCredentials, FromTheFdTheParentNamedWhichIsThenEmpty) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], "s3cret\n", 7), 7);
  ::close(fds[1]);
  ::setenv(kSecretFdEnv, std::to_string(fds[0]).c_str(), 1);
  auto credentials = rpc::ReadJobCredentials();
  ::unsetenv(kSecretFdEnv);
  ASSERT_TRUE(credentials.ok()) << credentials.status().ToString();
  EXPECT_EQ(credentials->secret, "s3cret");
  EXPECT_FALSE(credentials->tls.has_value());  // the local engine: loopback, no TLS
  char c;
  EXPECT_EQ(::read(fds[0], &c, 1), 0);  // now /dev/null
  ::close(fds[0]);
}

TEST(ReadJobCredentials, FromTheCredentialsFileWhichKeepsItsTokensButNotTheSecrets) {
  auto dir = MakeTempDir(std::filesystem::temp_directory_path().string(), "tony-secret-");
  ASSERT_TRUE(dir.ok());
  std::string path = *dir + "/container_tokens";
  Credentials creds;
  creds.AddToken("", hadoop::security::Token{"id", "pw", "YARN_AM_RM_TOKEN", ""});
  creds.AddSecret(rpc::kJobSecretAlias, "abc123");
  creds.AddSecret(rpc::kJobTlsKeyAlias, "KEY-PEM");
  creds.AddSecret(rpc::kJobTlsCertAlias, "CERT-PEM");
  ASSERT_TRUE(creds.WriteFile(path, Credentials::Format::kWritable).ok());
  ::unsetenv(kSecretFdEnv);
  ::setenv("HADOOP_TOKEN_FILE_LOCATION", path.c_str(), 1);
  auto credentials = rpc::ReadJobCredentials();
  ASSERT_TRUE(credentials.ok()) << credentials.status().ToString();
  EXPECT_EQ(credentials->secret, "abc123");
  ASSERT_TRUE(credentials->tls.has_value());
  EXPECT_EQ(credentials->tls->key_pem, "KEY-PEM");
  EXPECT_EQ(credentials->tls->cert_pem, "CERT-PEM");
  auto after = Credentials::ReadFile(path);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->FindSecret(rpc::kJobSecretAlias), nullptr);
  EXPECT_EQ(after->FindSecret(rpc::kJobTlsKeyAlias), nullptr);
  EXPECT_EQ(after->FindSecret(rpc::kJobTlsCertAlias), nullptr);
  EXPECT_NE(after->FindToken("YARN_AM_RM_TOKEN"), nullptr);
  std::string left = *ReadFile(path);
  EXPECT_EQ(left.find("abc123"), std::string::npos);
  EXPECT_EQ(left.find("KEY-PEM"), std::string::npos);
  EXPECT_FALSE(rpc::ReadJobCredentials().ok());  // taken: a second reader finds nothing
  ::unsetenv("HADOOP_TOKEN_FILE_LOCATION");
  std::filesystem::remove_all(*dir);
}

// A credentials file with the secret but no TLS identity is refused, naming what is missing, and
// keeps the secret: a YARN control plane is never started in clear.
TEST(ReadJobCredentials, RefusesACredentialsFileWithoutTheTlsIdentity) {
  auto dir = MakeTempDir(std::filesystem::temp_directory_path().string(), "tony-secret-");
  ASSERT_TRUE(dir.ok());
  std::string path = *dir + "/container_tokens";
  Credentials creds;
  creds.AddSecret(rpc::kJobSecretAlias, "abc123");
  creds.AddSecret(rpc::kJobTlsKeyAlias, "KEY-PEM");
  ASSERT_TRUE(creds.WriteFile(path, Credentials::Format::kWritable).ok());
  ::unsetenv(kSecretFdEnv);
  ::setenv("HADOOP_TOKEN_FILE_LOCATION", path.c_str(), 1);
  auto credentials = rpc::ReadJobCredentials();
  ::unsetenv("HADOOP_TOKEN_FILE_LOCATION");
  ASSERT_FALSE(credentials.ok());
  EXPECT_EQ(credentials.status().code(), StatusCode::kNotFound);
  EXPECT_NE(credentials.status().message().find(rpc::kJobTlsCertAlias), std::string::npos)
      << credentials.status().message();
  auto after = Credentials::ReadFile(path);
  ASSERT_TRUE(after.ok());
  EXPECT_NE(after->FindSecret(rpc::kJobSecretAlias), nullptr);  // all or nothing
  std::filesystem::remove_all(*dir);
}

TEST(SpawnStdinData, TheChildReadsExactlyTheBytesThenEof) {
  auto dir = MakeTempDir(std::filesystem::temp_directory_path().string(), "tony-spawn-");
  ASSERT_TRUE(dir.ok());
  SpawnOptions o;
  o.argv = {"cat"};
  o.env = CurrentEnvironment();
  o.stdin_data = "handed over\n";
  o.stdout_path = *dir + "/out";
  auto pid = Spawn(o);
  ASSERT_TRUE(pid.ok());
  int st = 0;
  ASSERT_EQ(::waitpid(*pid, &st, 0), *pid);
  EXPECT_EQ(ExitCodeFromWaitStatus(st), 0);
  EXPECT_EQ(*ReadFile(*dir + "/out"), "handed over\n");
  std::filesystem::remove_all(*dir);
}

}  // namespace
}  // namespace tony
