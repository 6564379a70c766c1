// What a server (or anything between it and us) sends once SASL has settled on a security
// layer: WRAP frames (docs/hadoop-ipc.md, SASL), the byte stream of frames reassembled from
// their unwrapped tokens (a frame may span tokens), SASL GSSAPI's 4-byte security-layer offer
// and the layer chosen from it (RFC 4752 §3.1), DIGEST-MD5's integrity and privacy tokens
// (RFC 2831 §2.3, §2.4: forged ones are refused, never crash), and hadoop.rpc.protection values.
#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "hadoop/ipc/digest_md5_layer.h"
#include "hadoop/ipc/sasl_gssapi.h"
#include "hadoop/ipc/sasl_layer.h"
#include "hadoop/ipc/wire.h"

using namespace tony::hadoop::ipc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool quiet = (google::protobuf::SetLogHandler(nullptr), true);
  (void)quiet;
  std::string_view in(reinterpret_cast<const char*>(data), size);

  if (auto token = ParseWrapReply(in); token.ok()) FUZZ_CHECK(token->size() <= size);

  // The input as unwrapped bytes fed in two pieces: every frame that comes out fits the input,
  // and the frames plus what is left add up to what went in.
  UnwrappedFrames frames;
  frames.Append(in.substr(0, size / 2));
  size_t taken = 0;
  bool fed_rest = false;
  while (true) {
    auto next = frames.Next();
    if (!next.ok()) break;
    if (!next->has_value()) {
      if (fed_rest) break;
      frames.Append(in.substr(size / 2));
      fed_rest = true;
      continue;
    }
    taken += 4 + (*next)->size();
    FUZZ_CHECK(taken <= size);
  }

  if (auto offer = ParseGssapiOffer(in); offer.ok()) {
    FUZZ_CHECK(size == 4 && offer->max_message <= 0xFFFFFF);
    auto qop = ChooseQop(offer->layers, {Qop::kPrivacy, Qop::kIntegrity, Qop::kAuthentication});
    FUZZ_CHECK(qop.ok() && (offer->layers & QopLayerBit(*qop)) != 0);
    std::string choice = GssapiChoice(*qop, offer->max_message);
    FUZZ_CHECK(choice.size() == 4 && static_cast<uint8_t>(choice[0]) == QopLayerBit(*qop));
  }

  for (Qop qop : {Qop::kIntegrity, Qop::kPrivacy}) {
    auto layer = DigestSecurityLayer::Create(qop, "0123456789abcdef", 65536);
    FUZZ_CHECK(layer.ok());
    auto plain = (*layer)->Unwrap(in);
    FUZZ_CHECK(!plain.ok() || plain->size() <= size);
  }

  if (auto levels = ParseRpcProtection(in); levels.ok()) FUZZ_CHECK(!levels->empty());
  return 0;
}
