// Hadoop IPC replies, as a server (or anything between it and us) sends them: the 4-byte frame
// length, the varint-delimited RpcResponseHeaderProto and response (docs/hadoop-ipc.md §1.2, §1.7),
// the Status of an ERROR/FATAL header, and the SASL handshake's replies (§1.9) down to the
// DIGEST-MD5 challenge of the TOKEN entry.
#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "hadoop/ipc/digest_md5.h"
#include "hadoop/ipc/wire.h"

using namespace tony::hadoop::ipc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // protobuf logs every message that misses a required field; the fuzzer makes many.
  static const bool quiet = (google::protobuf::SetLogHandler(nullptr), true);
  (void)quiet;
  std::string_view in(reinterpret_cast<const char*>(data), size);

  if (size >= 4) {
    auto len = FrameBodyLength(in.substr(0, 4));
    FUZZ_CHECK(!len.ok() || *len <= kMaxFrameBytes);
  }

  size_t pos = 0;
  uint32_t value = 0;
  if (ReadVarint32(in, &pos, &value)) {
    FUZZ_CHECK(pos >= 1 && pos <= 5 && pos <= size);
    std::string encoded;
    AppendVarint32(value, &encoded);
    size_t again = 0;
    uint32_t decoded = 0;
    FUZZ_CHECK(ReadVarint32(encoded, &again, &decoded) && decoded == value &&
               again == encoded.size());
  }

  if (auto frame = ParseResponseFrame(in); frame.ok()) {
    FUZZ_CHECK(frame->payload.size() <= size);
    tony::Status s = RemoteErrorStatus(frame->header);
    FUZZ_CHECK(!s.ok() && !s.message().empty());
  }

  auto reply = ParseSaslReply(in);
  if (!reply.ok()) return 0;
  auto chosen = FindTokenDigestAuth(*reply);
  if (!chosen.ok()) return 0;
  FUZZ_CHECK((*chosen)->method() == "TOKEN" && (*chosen)->mechanism() == "DIGEST-MD5");
  DigestMd5Client client("aWRlbnRpZmllcg==", "cGFzc3dvcmQ=", (*chosen)->protocol(),
                         (*chosen)->serverid());
  client.set_cnonce_for_testing("OA6MHXh6VqTrRk");
  if (client.EvaluateChallenge((*chosen)->challenge()).ok()) {
    (void)client.VerifyServerFinal(reply->token());
  }
  return 0;
}
