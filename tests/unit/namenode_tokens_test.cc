// ParseNameNodeUri (engine/yarn/client/namenode_tokens.h): what tony.other.namenodes entries may
// say. Fetching the tokens is tested on the Kerberized minicluster
// (tests/secure/test_secure_data.py).
#include "engine/yarn/client/namenode_tokens.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tony::client {
namespace {

using ::testing::HasSubstr;

TEST(NameNodeUriTest, HdfsAndWebHdfsWithOrWithoutPortAndPath) {
  auto a = ParseNameNodeUri("hdfs://nn2.example.com:8020", "tony.other.namenodes");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->scheme, "hdfs");
  EXPECT_EQ(a->host, "nn2.example.com");
  EXPECT_EQ(a->port, 8020);
  auto b = ParseNameNodeUri("hdfs://otherns/tony-history", "tony.history.location");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->host, "otherns");
  EXPECT_EQ(b->port, -1);
  auto c = ParseNameNodeUri("webhdfs://nn3:9870/", "tony.other.namenodes");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->scheme, "webhdfs");
  EXPECT_EQ(c->port, 9870);
}

TEST(NameNodeUriTest, OtherSchemesAndBadPortsNameTheKeyAndValue) {
  for (const char* bad : {"s3a://bucket", "nn2:8020", "hdfs://nn2:0", "hdfs://nn2:99999",
                          "hdfs://:8020", "hdfs://nn2:x"}) {
    auto r = ParseNameNodeUri(bad, "tony.other.namenodes");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(r.status().message(), HasSubstr("tony.other.namenodes: \"" + std::string(bad)));
  }
}

TEST(NameNodeUriTest, AnIpv6NameNodeInBracketsAndWhyAPortIsBad) {
  auto v6 = ParseNameNodeUri("hdfs://[fe80::1]:8020/x", "tony.other.namenodes");
  ASSERT_TRUE(v6.ok()) << v6.status().ToString();
  EXPECT_EQ(v6->host, "fe80::1");
  EXPECT_EQ(v6->port, 8020);
  auto bad = ParseNameNodeUri("hdfs://nn2:99999", "tony.other.namenodes");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "tony.other.namenodes: \"hdfs://nn2:99999\": expected host[:port], got \"nn2:99999\": "
            "the port 99999 is not in 1-65535");
}

TEST(NameNodeUriTest, AnOpenClusterNeedsNoTokens) {
  hadoop::ClusterConf cluster;
  ClientSecurity open;  // no Kerberos login
  Configuration conf;
  conf.Set("tony.other.namenodes", "hdfs://nn2:8020", "test");
  hadoop::security::Credentials creds;
  EXPECT_TRUE(AddOtherNameNodeTokens(cluster, open, conf, {}, &creds).empty());
  EXPECT_TRUE(creds.tokens().empty());
}

TEST(NameNodeUriTest, ATokenFileLoginPassesTheFilesTokensAndNamesTheMissing) {
  hadoop::ClusterConf cluster;
  ClientSecurity login;
  login.tokens = TokenLogin{};
  login.token_file = "$HADOOP_TOKEN_FILE_LOCATION (/tmp/tokens)";
  Configuration conf;
  conf.Set("tony.other.namenodes", "hdfs://127.0.0.1:8020,webhdfs://127.0.0.1:9871", "test");
  hadoop::security::Credentials creds;
  creds.AddToken("127.0.0.1:8020", {"id", "pw", "HDFS_DELEGATION_TOKEN", "127.0.0.1:8020"});
  auto warnings = AddOtherNameNodeTokens(cluster, login, conf, {}, &creds);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("no delegation token for webhdfs://127.0.0.1:9871 "
                                     "(tony.other.namenodes); tasks cannot reach it: "
                                     "$HADOOP_TOKEN_FILE_LOCATION (/tmp/tokens) has none for "
                                     "service 127.0.0.1:9871"));
  EXPECT_EQ(creds.tokens().size(), 1u);
}

}  // namespace
}  // namespace tony::client
