// Hadoop token storage streams (docs/hadoop-ipc.md §3): the container's $HADOOP_TOKEN_FILE_LOCATION
// and ContainerLaunchContextProto.tokens, in both formats (0 Writable, 1 protobuf). What parses
// must survive a write and a read in either format unchanged. Also a token's URL string, and
// the delegation token identifiers a token file's RM and HDFS tokens carry (§3.1).
#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "hadoop/security/credentials.h"

using tony::hadoop::security::Credentials;

namespace {

void CheckSame(const Credentials& a, const Credentials& b) {
  FUZZ_CHECK(a.tokens() == b.tokens());
  FUZZ_CHECK(a.secrets() == b.secrets());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // protobuf logs every message that misses a required field; the fuzzer makes many.
  static const bool quiet = (google::protobuf::SetLogHandler(nullptr), true);
  (void)quiet;
  std::string_view in(reinterpret_cast<const char*>(data), size);

  // A delegation token's urlString (WebHDFS GETDELEGATIONTOKEN): what decodes re-encodes to a
  // string that decodes to the same token.
  if (auto token = tony::hadoop::security::DecodeTokenUrlString(in); token.ok()) {
    auto again = tony::hadoop::security::DecodeTokenUrlString(
        tony::hadoop::security::EncodeTokenUrlString(*token));
    FUZZ_CHECK(again.ok() && *again == *token);
  }

  // An identifier in either encoding: what decodes is a plain value; nothing may crash.
  for (std::string_view kind : {tony::hadoop::security::kRmDelegationTokenKind,
                                tony::hadoop::security::kHdfsDelegationTokenKind}) {
    tony::hadoop::security::Token token{std::string(in), "", std::string(kind), ""};
    if (auto id = tony::hadoop::security::DecodeDelegationTokenIdentifier(token); id.ok()) {
      FUZZ_CHECK(id->owner.size() <= size);
    }
  }

  size_t pos = 0;
  int64_t value = 0;
  if (tony::hadoop::security::ReadWritableVLong(in, &pos, &value)) {
    FUZZ_CHECK(pos >= 1 && pos <= 9 && pos <= size);
    std::string encoded;
    tony::hadoop::security::AppendWritableVLong(value, &encoded);
    size_t again = 0;
    int64_t decoded = 0;
    FUZZ_CHECK(tony::hadoop::security::ReadWritableVLong(encoded, &again, &decoded));
    FUZZ_CHECK(decoded == value && again == encoded.size());
  }

  auto creds = Credentials::Parse(in);
  if (!creds.ok()) return 0;
  for (auto format : {Credentials::Format::kWritable, Credentials::Format::kProtobuf}) {
    auto back = Credentials::Parse(creds->Serialize(format));
    FUZZ_CHECK(back.ok());
    CheckSame(*creds, *back);
  }
  return 0;
}
