// The credentials file (docs/hadoop-ipc.md §3): WritableUtils vints, both formats, token lookup.
#include "hadoop/security/credentials.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "yarn_security_token.pb.h"

namespace tony::hadoop::security {
namespace {

std::string Bytes(std::initializer_list<int> v) {
  std::string out;
  for (int b : v) out.push_back(static_cast<char>(b));
  return out;
}

// §3's container_tokens vector: one AMRMToken, empty alias and service, no secrets. The
// identifier is the one from the brief; the 20 password bytes are made up (0x01..0x14).
std::string AmRmIdentifier() {
  return Bytes({0x0a, 0x0d, 0x0a, 0x09, 0x08, 0x0d, 0x10, 0x9f, 0x81, 0xd5, 0xb2,
                0xf3, 0x2d, 0x10, 0x01, 0x10, 0xfc, 0xa7, 0xe6, 0xb1, 0x03});
}
std::string Password20() {
  std::string pw;
  for (int i = 1; i <= 20; ++i) pw.push_back(static_cast<char>(i));
  return pw;
}
std::string ContainerTokensVector() {
  return Bytes({'H', 'D', 'T', 'S', 0x00, 0x01, 0x00, 0x15}) + AmRmIdentifier() + Bytes({0x14}) +
         Password20() + Bytes({0x10}) + "YARN_AM_RM_TOKEN" + Bytes({0x00, 0x00});
}

TEST(HadoopCredentialsTest, WritableVLongEncoding) {
  struct Case {
    int64_t value;
    std::string bytes;
  };
  for (const Case& c :
       {Case{0, Bytes({0x00})}, Case{127, Bytes({0x7F})}, Case{-1, Bytes({0xFF})},
        Case{-112, Bytes({0x90})}, Case{128, Bytes({0x8F, 0x80})}, Case{200, Bytes({0x8F, 0xC8})},
        Case{1000, Bytes({0x8E, 0x03, 0xE8})}, Case{-113, Bytes({0x87, 0x70})}}) {
    std::string out;
    AppendWritableVLong(c.value, &out);
    EXPECT_EQ(out, c.bytes) << c.value;
    size_t pos = 0;
    int64_t back = 0;
    ASSERT_TRUE(ReadWritableVLong(out, &pos, &back));
    EXPECT_EQ(back, c.value);
    EXPECT_EQ(pos, out.size());
  }
  for (int64_t v : {int64_t{1} << 40, -(int64_t{1} << 40), INT64_MAX, INT64_MIN}) {
    std::string out;
    AppendWritableVLong(v, &out);
    size_t pos = 0;
    int64_t back = 0;
    ASSERT_TRUE(ReadWritableVLong(out, &pos, &back));
    EXPECT_EQ(back, v);
  }
}

TEST(HadoopCredentialsTest, ReadsTheContainerTokensVector) {
  std::string bytes = ContainerTokensVector();
  ASSERT_EQ(bytes.size(), 69u);
  auto creds = Credentials::Parse(bytes);
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  ASSERT_EQ(creds->tokens().size(), 1u);
  EXPECT_TRUE(creds->secrets().empty());
  EXPECT_EQ(creds->tokens()[0].first, "");
  // Found by kind: alias and service are empty (§3).
  const Token* t = creds->FindToken(kAmRmTokenKind);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->identifier, AmRmIdentifier());
  EXPECT_EQ(t->password, Password20());
  EXPECT_EQ(t->service, "");
  EXPECT_EQ(creds->FindToken(kAmRmTokenKind, ""), t);
  EXPECT_EQ(creds->FindToken(kNmTokenKind), nullptr);

  ::hadoop::yarn::AMRMTokenIdentifierProto id;
  ASSERT_TRUE(id.ParseFromString(t->identifier));
  EXPECT_EQ(id.appattemptid().application_id().id(), 13);
  EXPECT_EQ(id.appattemptid().attemptid(), 1);

  // Writing format 0 gives back the same bytes.
  EXPECT_EQ(creds->Serialize(Credentials::Format::kWritable), bytes);
}

TEST(HadoopCredentialsTest, ProtobufFormatRoundTrip) {
  Credentials creds;
  creds.AddToken("nm", Token{"id1", "pw1", std::string(kNmTokenKind), "host1:8041"});
  creds.AddToken("nm2", Token{"id2", "pw2", std::string(kNmTokenKind), "host2:8041"});
  creds.AddSecret("job.secret", std::string("\x00\x01\xff", 3));
  std::string bytes = creds.Serialize(Credentials::Format::kProtobuf);
  EXPECT_EQ(bytes.substr(0, 5), Bytes({'H', 'D', 'T', 'S', 0x01}));
  auto back = Credentials::Parse(bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->tokens(), creds.tokens());
  EXPECT_EQ(back->secrets(), creds.secrets());
  const Token* t = back->FindToken(kNmTokenKind, "host2:8041");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->identifier, "id2");
  ASSERT_NE(back->FindSecret("job.secret"), nullptr);
  EXPECT_EQ(*back->FindSecret("job.secret"), std::string("\x00\x01\xff", 3));
}

TEST(HadoopCredentialsTest, WritableFormatRoundTripWithSecrets) {
  Credentials creds;
  creds.AddToken("a", Token{std::string(300, 'i'), "p", "K", "s:1"});
  creds.AddSecret("k", "v");
  auto back = Credentials::Parse(creds.Serialize(Credentials::Format::kWritable));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->tokens(), creds.tokens());
  EXPECT_EQ(back->secrets(), creds.secrets());
}

TEST(HadoopCredentialsTest, RejectsBadInput) {
  EXPECT_EQ(Credentials::Parse("nope").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Credentials::Parse(Bytes({'H', 'D', 'T', 'S', 0x07})).status().code(),
            StatusCode::kInvalidArgument);
  std::string truncated = ContainerTokensVector();
  truncated.resize(40);
  EXPECT_EQ(Credentials::Parse(truncated).status().code(), StatusCode::kInvalidArgument);
}

TEST(HadoopCredentialsTest, WritesAndReadsFiles) {
  char dir_template[] = "/tmp/tony_creds_XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template), nullptr);
  std::string path = std::string(dir_template) + "/container_tokens";
  Credentials creds;
  creds.AddToken("", Token{"id", "pw", std::string(kAmRmTokenKind), ""});
  ASSERT_TRUE(creds.WriteFile(path, Credentials::Format::kWritable).ok());
  ::setenv("HADOOP_TOKEN_FILE_LOCATION", path.c_str(), 1);
  auto back = Credentials::FromEnvironment();
  ::unsetenv("HADOOP_TOKEN_FILE_LOCATION");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->tokens(), creds.tokens());
  EXPECT_EQ(Credentials::FromEnvironment().status().code(), StatusCode::kNotFound);
  EXPECT_EQ(Credentials::ReadFile(path + ".missing").status().code(), StatusCode::kNotFound);
  ::unlink(path.c_str());
  ::rmdir(dir_template);
}

TEST(DelegationTokenUrlString, RoundTripsAndRefusesGarbageWithoutQuotingIt) {
  Token t{std::string("id\0\xff", 4), "secret-password", "HDFS_DELEGATION_TOKEN", "127.0.0.1:8020"};
  std::string url = EncodeTokenUrlString(t);
  EXPECT_EQ(url.find_first_of("+/="), std::string::npos);
  auto back = DecodeTokenUrlString(url);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, t);
  auto bad = DecodeTokenUrlString("secret-password-in-clear");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().find("secret"), std::string::npos);
  EXPECT_FALSE(DecodeTokenUrlString(url + "AAAA").ok());
}

}  // namespace
}  // namespace tony::hadoop::security
