// DIGEST-MD5 (RFC 2831) as used by Hadoop's TOKEN auth (docs/hadoop-ipc.md §2.2).
#include "hadoop/ipc/digest_md5.h"

#include <gtest/gtest.h>

namespace tony::hadoop::ipc {
namespace {

// RFC 2831 §4, the IMAP example.
DigestInputs RfcExample() {
  DigestInputs in;
  in.username = "chris";
  in.realm = "elwood.innosoft.com";
  in.password = "secret";
  in.nonce = "OA6MG9tEQGm2hh";
  in.cnonce = "OA6MHXh6VqTrRk";
  in.nonce_count = "00000001";
  in.qop = "auth";
  in.digest_uri = "imap/elwood.innosoft.com";
  return in;
}

TEST(HadoopDigestMd5Test, Rfc2831ResponseVector) {
  EXPECT_EQ(DigestResponseValue(RfcExample(), "AUTHENTICATE"), "d388dad90d4bbd760a152321f2143af7");
}

TEST(HadoopDigestMd5Test, Rfc2831RspAuthVector) {
  EXPECT_EQ(DigestResponseValue(RfcExample(), ""), "ea40f60335c427b5527b84dbabcdfffd");
}

TEST(HadoopDigestMd5Test, ClientAnswersTheRfcChallenge) {
  DigestMd5Client client("chris", "secret", "imap", "elwood.innosoft.com");
  client.set_cnonce_for_testing("OA6MHXh6VqTrRk");
  auto answer = client.EvaluateChallenge(
      "realm=\"elwood.innosoft.com\",nonce=\"OA6MG9tEQGm2hh\",qop=\"auth\",algorithm=md5-sess,"
      "charset=utf-8");
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  auto fields = ParseDigestDirectives(*answer);
  ASSERT_TRUE(fields.ok());
  EXPECT_EQ((*fields)["username"], "chris");
  EXPECT_EQ((*fields)["realm"], "elwood.innosoft.com");
  EXPECT_EQ((*fields)["nonce"], "OA6MG9tEQGm2hh");
  EXPECT_EQ((*fields)["cnonce"], "OA6MHXh6VqTrRk");
  EXPECT_EQ((*fields)["nc"], "00000001");
  EXPECT_EQ((*fields)["qop"], "auth");
  EXPECT_EQ((*fields)["digest-uri"], "imap/elwood.innosoft.com");
  EXPECT_EQ((*fields)["charset"], "utf-8");
  EXPECT_EQ((*fields)["response"], "d388dad90d4bbd760a152321f2143af7");
  EXPECT_FALSE(fields->contains("authzid"));

  EXPECT_TRUE(client.VerifyServerFinal("rspauth=ea40f60335c427b5527b84dbabcdfffd").ok());
  EXPECT_EQ(client.VerifyServerFinal("rspauth=00000000000000000000000000000000").code(),
            StatusCode::kUnauthenticated);
}

TEST(HadoopDigestMd5Test, HadoopTokenDigestUriIsSlashDefault) {
  // §2.2: protocol "" and serverId "default" give digest-uri "/default".
  DigestMd5Client client("aWQ=", "cHc=", "", "default");
  auto answer = client.EvaluateChallenge(
      "realm=\"default\",nonce=\"abc\",qop=\"auth\",charset=utf-8,algorithm=md5-sess");
  ASSERT_TRUE(answer.ok());
  EXPECT_NE(answer->find("digest-uri=\"/default\""), std::string::npos);
  EXPECT_NE(answer->find("maxbuf=65536"), std::string::npos);
}

TEST(HadoopDigestMd5Test, ParsesQuotedListsAndEscapes) {
  auto d = ParseDigestDirectives(
      "realm=\"default\", nonce=\"a\\\"b,c\",qop=\"auth-int,auth-conf,auth\",cipher=\"3des,rc4\","
      "algorithm=md5-sess");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ((*d)["nonce"], "a\"b,c");
  EXPECT_EQ((*d)["qop"], "auth-int,auth-conf,auth");
  EXPECT_EQ((*d)["cipher"], "3des,rc4");
  EXPECT_EQ((*d)["algorithm"], "md5-sess");
  EXPECT_FALSE(ParseDigestDirectives("nonce=\"unterminated").ok());
}

TEST(HadoopDigestMd5Test, RefusesPrivacyOnlyServers) {
  DigestMd5Client client("u", "p", "", "default");
  auto answer = client.EvaluateChallenge("realm=\"default\",nonce=\"n\",qop=\"auth-conf\"");
  EXPECT_EQ(answer.status().code(), StatusCode::kUnauthenticated);
}

TEST(HadoopDigestMd5Test, Base64HasNoLineBreaks) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  std::string long_input(100, 'x');
  EXPECT_EQ(Base64Encode(long_input).find('\n'), std::string::npos);
}

}  // namespace
}  // namespace tony::hadoop::ipc
