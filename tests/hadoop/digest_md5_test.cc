// DIGEST-MD5 (RFC 2831) as used by Hadoop's TOKEN auth (docs/hadoop-ipc.md §2.2).
#include "hadoop/ipc/digest_md5.h"

#include <gtest/gtest.h>

#include "hadoop/ipc/digest_md5_layer.h"

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

namespace tony::hadoop::ipc {
namespace {

// RFC 2831 §2.3/§2.4 layers: what one side wraps the other unwraps, in sequence; a flipped bit,
// a replay or a reordering is refused.
TEST(HadoopDigestMd5LayerTest, IntegrityAndPrivacyRoundTripAndRefuseTampering) {
  const std::string ha1 = Md5Hex("some a1").substr(0, 16);
  for (Qop qop : {Qop::kIntegrity, Qop::kPrivacy}) {
    auto client = DigestSecurityLayer::Create(qop, ha1, 65536);
    auto server = DigestSecurityLayer::CreateServerSideForTesting(qop, ha1);
    ASSERT_TRUE(client.ok() && server.ok());
    std::vector<std::string> tokens;
    for (const std::string& msg :
         {std::string("first frame"), std::string(), std::string(1000, 'z')}) {
      auto token = (*client)->Wrap(msg);
      ASSERT_TRUE(token.ok());
      if (qop == Qop::kPrivacy && !msg.empty()) {
        EXPECT_EQ(token->find(msg), std::string::npos);  // sealed, not in clear
      }
      auto back = (*server)->Unwrap(*token);
      ASSERT_TRUE(back.ok()) << back.status().ToString();
      EXPECT_EQ(*back, msg);
      tokens.push_back(*token);
    }
    EXPECT_FALSE((*server)->Unwrap(tokens[0]).ok());  // a replay: wrong sequence number
    auto reply = (*server)->Wrap("reply");
    ASSERT_TRUE(reply.ok());
    std::string flipped = *reply;
    flipped[0] ^= 1;
    EXPECT_FALSE((*client)->Unwrap(flipped).ok());
  }
}

TEST(HadoopDigestMd5LayerTest, DesKeysTakeSevenBitsPerByteWithOddParity) {
  EXPECT_EQ(DesKeyWithParity(std::string(7, '\xff')), std::string(8, '\xfe'));
  EXPECT_EQ(DesKeyWithParity(std::string(7, '\0')), std::string(8, '\x01'));
}

TEST(HadoopDigestMd5Test, AnswersPrivacyWith3desWhenAllowed) {
  DigestMd5Client client("u", "p", "", "default", {Qop::kPrivacy});
  client.set_cnonce_for_testing("c");
  auto answer = client.EvaluateChallenge(
      "realm=\"default\",nonce=\"n\",qop=\"auth-conf\",cipher=\"3des,rc4\",maxbuf=4096");
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_NE(answer->find("qop=auth-conf"), std::string::npos);
  EXPECT_NE(answer->find("cipher=3des"), std::string::npos);
  EXPECT_EQ(client.qop(), Qop::kPrivacy);
  DigestMd5Client rc4_only("u", "p", "", "default", {Qop::kPrivacy});
  EXPECT_FALSE(
      rc4_only.EvaluateChallenge("realm=\"default\",nonce=\"n\",qop=\"auth-conf\",cipher=\"rc4\"")
          .ok());
}

}  // namespace
}  // namespace tony::hadoop::ipc
