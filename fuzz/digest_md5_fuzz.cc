// The SASL DIGEST-MD5 messages a Hadoop server sends (docs/hadoop-ipc.md §2.2, RFC 2831): the
// challenge and, after a NUL byte in the input, the final "rspauth=" message. Whatever the
// client answers must parse back to the same nonce and realm (its quoting matches our parsing).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/strings.h"
#include "fuzz/fuzz_check.h"
#include "hadoop/ipc/digest_md5.h"

using namespace tony::hadoop::ipc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  size_t nul = in.find('\0');
  std::string_view challenge = in.substr(0, nul);
  std::string_view final_message = nul == std::string_view::npos ? "" : in.substr(nul + 1);

  auto directives = ParseDigestDirectives(challenge);
  if (directives.ok()) {
    for (const auto& [key, value] : *directives) {
      FUZZ_CHECK(key == tony::ToLower(key) && tony::Trim(key) == key);
      FUZZ_CHECK(value.size() <= challenge.size());
    }
  }

  DigestMd5Client client("aWRlbnRpZmllcg==", "cGFzc3dvcmQ=", "", "default");
  client.set_cnonce_for_testing("OA6MHXh6VqTrRk");
  auto answer = client.EvaluateChallenge(challenge);
  if (!answer.ok()) return 0;
  FUZZ_CHECK(directives.ok());
  auto echoed = ParseDigestDirectives(*answer);
  FUZZ_CHECK(echoed.ok());
  FUZZ_CHECK((*echoed)["nonce"] == (*directives)["nonce"]);
  FUZZ_CHECK((*echoed)["realm"] == (directives->contains("realm") ? (*directives)["realm"] : ""));
  FUZZ_CHECK((*echoed)["username"] == "aWRlbnRpZmllcg==");
  (void)client.VerifyServerFinal(final_message);
  return 0;
}
