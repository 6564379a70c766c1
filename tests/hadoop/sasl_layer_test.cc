// The pure parts of the SASL security layer (hadoop/ipc/sasl_layer.h, sasl_gssapi.h).
#include "hadoop/ipc/sasl_layer.h"

#include <gtest/gtest.h>

#include "hadoop/ipc/sasl_gssapi.h"
#include "hadoop/ipc/wire.h"

namespace tony::hadoop::ipc {
namespace {

std::string Frame(std::string_view body) {
  std::string out;
  AppendBigEndian32(static_cast<uint32_t>(body.size()), &out);
  out.append(body);
  return out;
}

TEST(RpcProtection, ParsesHadoopsWordsInOrder) {
  auto q = ParseRpcProtection("privacy, authentication");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(*q, (std::vector<Qop>{Qop::kPrivacy, Qop::kAuthentication}));
  auto bad = ParseRpcProtection("auth-conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("hadoop.rpc.protection = 'auth-conf'"), std::string::npos);
}

TEST(RpcProtection, ChoosesTheClientsFirstLevelThatTheServerOffers) {
  auto q = ChooseQop(kLayerIntegrity | kLayerPrivacy, {Qop::kIntegrity, Qop::kPrivacy});
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, Qop::kIntegrity);
  auto none = ChooseQop(kLayerPrivacy, {Qop::kAuthentication});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kUnauthenticated);
  EXPECT_NE(none.status().message().find("offers [privacy]"), std::string::npos);
  EXPECT_NE(none.status().message().find("allows [authentication]"), std::string::npos);
}

TEST(GssapiLayer, OfferAndChoiceAreFourBytes) {
  auto offer = ParseGssapiOffer(std::string("\x06\x01\x00\x00", 4));
  ASSERT_TRUE(offer.ok());
  EXPECT_EQ(offer->layers, kLayerIntegrity | kLayerPrivacy);
  EXPECT_EQ(offer->max_message, 65536u);
  EXPECT_FALSE(ParseGssapiOffer("abc").ok());
  EXPECT_FALSE(ParseGssapiOffer(std::string("\x00\x00\x10\x00", 4)).ok());
  EXPECT_EQ(GssapiChoice(Qop::kPrivacy, 0x10000), std::string("\x04\x01\x00\x00", 4));
  // No layer: no buffer size (RFC 4752 §3.1).
  EXPECT_EQ(GssapiChoice(Qop::kAuthentication, 0x10000), std::string("\x01\x00\x00\x00", 4));
  EXPECT_EQ(PrincipalWithoutRealm("hadoop/localhost@TONY.TEST"), "hadoop/localhost");
}

TEST(UnwrappedFrames, SplitsFramesAcrossAndWithinTokens) {
  std::string stream = Frame("first") + Frame("") + Frame("third frame");
  UnwrappedFrames frames;
  std::vector<std::string> seen;
  for (char c : stream) {  // worst case: one byte per token
    frames.Append(std::string_view(&c, 1));
    while (true) {
      auto next = frames.Next();
      ASSERT_TRUE(next.ok());
      if (!next->has_value()) break;
      seen.push_back(**next);
    }
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"first", "", "third frame"}));
  UnwrappedFrames huge;
  huge.Append("\x7f\xff\xff\xff");
  EXPECT_FALSE(huge.Next().ok());
}

TEST(WrapFrames, RoundTripTheToken) {
  std::string frame = BuildWrapFrame("opaque token");
  // A request frame parses like a reply only for its SASL part; check the token survives.
  EXPECT_NE(frame.find("opaque token"), std::string::npos);
  EXPECT_FALSE(ParseWrapReply("garbage").ok());
}

}  // namespace
}  // namespace tony::hadoop::ipc
